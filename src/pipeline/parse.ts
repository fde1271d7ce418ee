/**
 * @module pipeline/parse
 * HTML string → linkedom `Document`, normalised so that every later stage can rely on
 * `documentElement` being `<html>` with one `<body>` child holding all visible content.
 *
 * linkedom builds its tree with htmlparser2, which does not run the HTML5 tree-construction algorithm:
 * a fragment without `<html>` yields a `documentElement` that is the first tag, `document.body` can
 * throw, and nodes after `</body>` or `</html>` stay outside the body. Browsers move all of that into
 * `<body>`, so we do the same here instead of patching every caller.
 */
import { parseHTML } from "linkedom";
import { limitDepth } from "./depth-limit.ts";

/** Matches an `<html>` start tag; its absence means we were given a fragment. */
const HTML_TAG_RE = /<html[\s>]/i;
/** Elements that belong in `<head>` and must not be moved into the body. */
const HEAD_TAGS = new Set(["HEAD", "TITLE", "META", "LINK", "BASE", "STYLE", "SCRIPT", "NOSCRIPT"]);

/** Options of {@link parseHtml}. */
export interface ParseOptions {
  /**
   * The markup was served as XML (XHTML, RSS, Atom, any `+xml`): see {@link isXmlContentType}. There `<![CDATA[…]]>`
   * is a real CDATA section, whose text must be kept; in HTML it is a bogus comment. @default false
   */
  xml?: boolean;
}

/** Whether a MIME type (lower-case, no parameters) is an XML one, whose markup follows XML's CDATA rules. */
export function isXmlContentType(mimeType: string): boolean {
  return mimeType === "application/xml" || mimeType === "text/xml" || mimeType.endsWith("+xml");
}

/**
 * Parse an HTML document or fragment.
 *
 * Always returns a document whose `documentElement` is `<html>` and that has a `<body>` (empty input gives an
 * empty body). The input is never rejected: malformed markup is handled the way htmlparser2 handles it.
 *
 * @param html - a full page, a fragment (`<p>hi</p>`) or plain text
 * @param options - `xml` for markup served with an XML content type
 * @example
 * const doc = parseHtml("<p>Hello</p>");
 * doc.body.innerHTML; // "<p>Hello</p>"
 */
export function parseHtml(html: string, options?: ParseOptions): Document {
  let source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  if (source.includes("<![CDATA[")) source = options?.xml ? cdataToText(source) : neutraliseCdata(source);
  if (!HTML_TAG_RE.test(source)) source = `<html>${source}</html>`;
  const { document } = parseHTML(source) as unknown as { document: Document };
  normaliseShell(document);
  limitDepth(document.documentElement);
  return document;
}

/**
 * Raw-text and foreign elements, where `<![CDATA[` is either plain text or legitimate, and comments (`!--`), where it
 * is comment text. Pages comment out a whole script, CDATA markers and all (`<!--script>//<![CDATA[ var a = {…};
 * //]]></script-->`, a WordPress plugin's): the empty comment put in for the CDATA closed the real one early, and the
 * script's text showed on the page.
 */
const CDATA_SAFE_TAGS = ["script", "style", "svg", "math", "!--"] as const;

/**
 * In HTML content `<![CDATA[` is not a CDATA section but a bogus comment that ends at the next `>` (HTML
 * standard, "markup declaration open state"): `<p><![CDATA[ x ]]>after</p>` shows "after" alone. htmlparser2
 * instead swallows everything up to `]]>`, which on some XenForo pages is the whole body. Outside script, style,
 * svg, math and comments, the bogus comment becomes an empty comment: all of it up to that `>`, as a browser reads
 * it, unless a `<` comes first. Then only `<![CDATA[` goes and the markup after it is kept (`<![CDATA[ <div>Thread
 * title…`): a browser would hide the text up to the first tag's `>`, and the page's own tags are the safer reading.
 */
function neutraliseCdata(source: string): string {
  return splitElements(source, CDATA_SAFE_TAGS)
    .map((part, i) => (i % 2 === 0 ? part.replace(HTML_CDATA_RE, "<!--[CDATA[-->") : part))
    .join("");
}

/** `<![CDATA[` and, when it comes before any `<`, the rest of the bogus comment up to its `>`. */
const HTML_CDATA_RE = /<!\[CDATA\[(?:[^<>]*>)?/g;

/**
 * In XML a CDATA section is text: `<![CDATA[a <b> & c]]>` means the characters `a <b> & c`. htmlparser2 (HTML mode)
 * would drop it as a comment, and the HTML rule above would leave its content to be parsed as markup, so each section
 * becomes the same text HTML-escaped. Inside script and style, which are raw text (not entity-decoded), sections are
 * left as they are, as on the HTML path. An unterminated section runs to the end, as XML parsers read it.
 */
function cdataToText(source: string): string {
  return splitElements(source, CDATA_RAW_TEXT_TAGS)
    .map((part, i) => (i % 2 === 0 ? part.replace(CDATA_SECTION_RE, (_, text: string) => escapeText(text)) : part))
    .join("");
}

const CDATA_RAW_TEXT_TAGS = ["script", "style"] as const;
const CDATA_SECTION_RE = /<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)/g;
const escapeText = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

type SplitTag = (typeof CDATA_SAFE_TAGS)[number];
/** The end of each element of {@link CDATA_SAFE_TAGS}: its first closing tag (a comment's first `-->`). */
const CLOSING_TAG_RE = Object.fromEntries(
  CDATA_SAFE_TAGS.map((tag) => [tag, tag === "!--" ? /-->/g : new RegExp(`<\\/${tag}\\s*>`, "gi")]),
) as Record<SplitTag, RegExp>;

/**
 * `source` cut around each element (or comment) of `tags`, from its start tag to its first closing tag, leftmost first:
 * `[outside, element, outside, …, outside]`, as `source.split(/(<script\b[\s\S]*?<\/script\s*>|…)/gi)` cuts it. An
 * element never closed is not cut out. That regex rescanned the rest of the input from every unclosed start tag
 * (quadratic: `<svg>` 100k times took 13 s); here a tag found unclosed is not looked for again, since no later one
 * of that name can be closed either.
 */
function splitElements(source: string, tags: readonly SplitTag[]): string[] {
  const parts: string[] = [];
  let open = [...tags];
  let opening = startTagRe(open);
  let partStart = 0;
  let searchFrom = 0;
  while (open.length > 0) {
    opening.lastIndex = searchFrom;
    const start = opening.exec(source);
    if (!start) break;
    const tag = start[1]!.toLowerCase() as SplitTag;
    const closing = CLOSING_TAG_RE[tag];
    // A comment's `-->` may overlap its `<!--`: `<!-->` is a whole (empty) comment.
    closing.lastIndex = tag === "!--" ? start.index + 2 : start.index + start[0].length;
    if (!closing.exec(source)) {
      open = open.filter((t) => t !== tag);
      opening = startTagRe(open);
      searchFrom = start.index + 1;
      continue;
    }
    parts.push(source.slice(partStart, start.index), source.slice(start.index, closing.lastIndex));
    partStart = searchFrom = closing.lastIndex;
  }
  parts.push(source.slice(partStart));
  return parts;
}

const startTagRe = (tags: readonly SplitTag[]): RegExp =>
  new RegExp(`<(${tags.map((tag) => (tag === "!--" ? tag : `${tag}\\b`)).join("|")})`, "gi");

/**
 * Make `<html>` hold exactly `<head>` then `<body>`, moving everything else where a browser would put it:
 * metadata found outside `<head>` before the body goes into `<head>`, any other stray content into `<body>`.
 * This matters beyond tidiness: linkedom's `document.body` is `head.nextElementSibling` when that is a `<body>`,
 * and otherwise a brand-new empty body, so a `<script>` between `</head>` and `<body>` would hide the whole page.
 */
function normaliseShell(doc: Document): void {
  let root = doc.documentElement as Element | null;
  if (!root || root.tagName !== "HTML") {
    const html = doc.createElement("html");
    for (const node of Array.from(doc.childNodes)) {
      if (node.nodeType !== 10) html.appendChild(node);
    }
    doc.appendChild(html);
    root = html;
  }
  let head: Element | null = null;
  let body: Element | null = null;
  for (let child = root.firstElementChild; child; child = child.nextElementSibling) {
    if (!head && child.tagName === "HEAD") head = child;
    else if (!body && child.tagName === "BODY") body = child;
  }
  head ??= doc.createElement("head");
  const hadBody = body !== null;
  body ??= doc.createElement("body");

  const beforeBody: ChildNode[] = [];
  const afterBody: ChildNode[] = [];
  let seenBody = false;
  for (const node of Array.from(root.childNodes)) {
    if (node === head) continue;
    if (node === body) {
      seenBody = true;
      continue;
    }
    (seenBody ? afterBody : beforeBody).push(node);
  }
  // Siblings of <html> itself (content after </html>, text before <html>).
  for (const node of Array.from(doc.childNodes)) {
    if (node !== root && (node.nodeType === 1 || node.nodeType === 3)) afterBody.push(node);
  }

  const firstBodyNode = body.firstChild;
  for (const node of beforeBody) {
    if (node.nodeType === 1 && HEAD_TAGS.has((node as Element).tagName) && hadBody) head.appendChild(node);
    else if (node.nodeType === 1 || node.nodeType === 3) body.insertBefore(node, firstBodyNode);
    else node.remove();
  }
  for (const node of afterBody) body.appendChild(node);
  root.insertBefore(head, root.firstChild);
  if (head.nextSibling !== body) head.after(body);
}
