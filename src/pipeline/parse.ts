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

/** Matches an `<html>` start tag; its absence means we were given a fragment. */
const HTML_TAG_RE = /<html[\s>]/i;
/** Elements that belong in `<head>` and must not be moved into the body. */
const HEAD_TAGS = new Set(["HEAD", "TITLE", "META", "LINK", "BASE", "STYLE", "SCRIPT", "NOSCRIPT"]);

/**
 * Parse an HTML document or fragment.
 *
 * Always returns a document whose `documentElement` is `<html>` and that has a `<body>` (empty input gives an
 * empty body). The input is never rejected: malformed markup is handled the way htmlparser2 handles it.
 *
 * @param html - a full page, a fragment (`<p>hi</p>`) or plain text
 * @example
 * const doc = parseHtml("<p>Hello</p>");
 * doc.body.innerHTML; // "<p>Hello</p>"
 */
export function parseHtml(html: string): Document {
  let source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  if (!HTML_TAG_RE.test(source)) source = `<html>${source}</html>`;
  const { document } = parseHTML(source) as unknown as { document: Document };
  normaliseShell(document);
  return document;
}

/** Ensure `<html><head?><body>` exists and move stray top-level content into the body, like a browser. */
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
  let body: Element | null = null;
  for (let child = root.firstElementChild; child; child = child.nextElementSibling) {
    if (child.tagName === "BODY") {
      body = child;
      break;
    }
  }
  if (!body) {
    body = doc.createElement("body");
    for (const node of Array.from(root.childNodes)) {
      if (node.nodeType === 1 && HEAD_TAGS.has((node as Element).tagName)) continue;
      body.appendChild(node);
    }
    root.appendChild(body);
    return;
  }
  // Content after </body> (inside <html>) and after </html> belongs to the body.
  for (let node = body.nextSibling; node; ) {
    const next = node.nextSibling;
    body.appendChild(node);
    node = next;
  }
  for (let node = root.nextSibling; node; ) {
    const next = node.nextSibling;
    if (node.nodeType === 1 || node.nodeType === 3) body.appendChild(node);
    node = next;
  }
}
