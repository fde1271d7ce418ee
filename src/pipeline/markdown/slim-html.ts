/**
 * @module pipeline/markdown/slim-html
 * Shrinks HTML to what the markdown converter reads before node-html-markdown parses it: on whole pages
 * attributes, inline SVG and comments are most of the bytes, and parsing them was most of the time.
 *
 * It is one pass over the tags with a tokenizer that reads quoted attribute values whole. The SVG used to be cut
 * with a regex over the raw string, which also matched inside attribute values: `<a title="Export as <svg> or
 * PNG">` deleted everything up to the next `</svg>` (most of a page), and a `data:image/svg+xml,<svg…></svg>` image
 * source was truncated.
 */

/**
 * A comment, or a start or end tag with its attributes (a quoted value is read whole, `>` and `<svg>` included).
 * Groups: 1 `/` of an end tag, 2 tag name, 3 attributes, 4 `/` of a self-closing tag.
 */
const TOKEN_RE = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/g;
const ATTRIBUTE_RE = /([^\s=>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
/** The only attributes the converter reads. */
const MARKDOWN_ATTRIBUTES = new Set(["href", "src", "alt", "title", "class", "data-lang", "data-language", "colspan", "rowspan", "start", "alttext", "encoding", "display"]);
/**
 * Elements whose content node-html-parser (the converter's parser) reads as raw text and the converter ignores:
 * dropped whole, so a `<svg>` or `<!--` inside a script cannot start a token.
 */
const RAW_TEXT_END_RES: Record<string, RegExp> = {
  script: /<\/script\s*>/gi,
  style: /<\/style\s*>/gi,
  noscript: /<\/noscript\s*>/gi,
};

/** Headings and a `<details>` summary: a button inside one is its text (a Bootstrap accordion's question). */
const LABEL_PARENT_RE = /^(?:h[1-6]|summary)$/;
/** Attributes of a button that shows or hides content (an accordion, a tab): its text labels that content. */
const DISCLOSURE_ATTRIBUTE_RE = /(?:^|\s)(?:aria-expanded|aria-controls)(?:\s*=|\s|$)|(?:^|\s)role\s*=\s*["']?tab\b/i;

/** A start tag with only the attributes the converter reads. */
function slimTag(name: string, attrs: string): string {
  let kept = "";
  for (const m of attrs.matchAll(ATTRIBUTE_RE)) {
    if (MARKDOWN_ATTRIBUTES.has(m[1]!.toLowerCase()) && m[2] !== undefined) kept += ` ${m[1]}=${m[2]}`;
  }
  return `<${name}${kept}>`;
}

/**
 * Where the `<svg>` whose start tag ends at `from` ends: after its matching `</svg>`, counting nested `<svg>`s,
 * or -1 when it is never closed.
 */
function svgEnd(html: string, from: number): number {
  let depth = 1;
  TOKEN_RE.lastIndex = from;
  for (let m = TOKEN_RE.exec(html); m; m = TOKEN_RE.exec(html)) {
    if (m[2]?.toLowerCase() !== "svg") continue;
    if (m[1]) depth--;
    else if (!m[4]) depth++;
    if (depth === 0) return TOKEN_RE.lastIndex;
  }
  return -1;
}

/**
 * Drop what the converter ignores: inline `<svg>` elements, comments, scripts, styles and every attribute but
 * {@link MARKDOWN_ATTRIBUTES}. An `<svg>` that is never closed loses only its start tag. A `<button>` inside a
 * heading or `<summary>`, or one that discloses content (`aria-expanded`, `aria-controls`, `role="tab"`), becomes a
 * `<span>`: the converter drops buttons, and an FAQ accordion's questions and a tab set's labels went with them.
 *
 * @param html - cleaned HTML
 * @returns HTML that converts to the same markdown
 */
export function slimHtml(html: string): string {
  let out = "";
  let copied = 0; // html[copied…] is not in `out` yet
  // Open headings and summaries, and for each open button whether it was kept (written as a span).
  let labelDepth = 0;
  const buttons: boolean[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(html); m; m = TOKEN_RE.exec(html)) {
    const [, endSlash, name, attrs, selfClosing] = m;
    if (name === undefined) {
      out += html.slice(copied, m.index); // a comment
      copied = TOKEN_RE.lastIndex;
      continue;
    }
    const lower = name.toLowerCase();
    if (endSlash) {
      if (LABEL_PARENT_RE.test(lower)) labelDepth = Math.max(0, labelDepth - 1);
      else if (lower === "button" && buttons.pop()) {
        // A space after it when a tag or a word follows: a tab set's buttons sit side by side with nothing between
        // them ("PythonJavaScript"); before punctuation or a space, none ("Show more.").
        const next = html.charAt(TOKEN_RE.lastIndex);
        out += `${html.slice(copied, m.index)}</span>${next === "<" || /[\p{L}\p{N}]/u.test(next) ? " " : ""}`;
        copied = TOKEN_RE.lastIndex;
      }
      continue;
    }
    if (LABEL_PARENT_RE.test(lower) && !selfClosing) labelDepth++;
    let next = TOKEN_RE.lastIndex;
    let replacement: string | undefined;
    if (lower === "button" && !selfClosing) {
      // The converter ignores buttons ("Copy", "Add to cart"); one that labels content is written as a span.
      const kept = labelDepth > 0 || DISCLOSURE_ATTRIBUTE_RE.test(attrs ?? "");
      buttons.push(kept);
      if (kept) replacement = "<span>";
    } else if (lower === "svg") {
      const end = selfClosing ? -1 : svgEnd(html, next);
      replacement = "";
      if (end >= 0) next = end;
    } else if (RAW_TEXT_END_RES[lower]) {
      const endRe = RAW_TEXT_END_RES[lower]!;
      endRe.lastIndex = next;
      next = endRe.exec(html) ? endRe.lastIndex : html.length;
      replacement = "";
    } else if (attrs) {
      replacement = slimTag(name, attrs);
    }
    if (replacement !== undefined) {
      out += html.slice(copied, m.index) + replacement;
      copied = next;
    }
    TOKEN_RE.lastIndex = next;
  }
  return out + html.slice(copied);
}
