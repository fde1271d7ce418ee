/**
 * @module agent/link-labels
 * The text of a page's links, read from its markdown, so the agent's link picker (agent/explore.ts) sees "Pricing"
 * or "Kettle K2 — 25 EUR" beside a URL, and ranks candidates by it. A page's `links` list carries URLs only: every
 * link was offered as a bare URL, and `/p/8812` told the model nothing of what it leads to.
 *
 * The markdown is crawlbox's own (pipeline/markdown/link-image.ts): inline links `[text](destination "title")`
 * whose destination has no spaces or parentheses (they are percent-encoded), and images `![alt](src)`, which may
 * stand inside a link's text (an image link reads as its alt text).
 */

/** Characters of a label kept: enough for a product name or a heading, not a card's whole teaser. */
export const MAX_LABEL_CHARS = 120;

/** An inline link: text (with one level of nested brackets, such as an image), destination, optional title. */
const INLINE_LINK = /(!?)\[((?:\\.|[^[\]\\]|\[(?:\\.|[^[\]\\])*\])*)\]\(([^\s()]+)(?:\s+"(?:\\.|[^"\\])*")?\)/g;
/** An image inside a link's text: its alt text stands for it. */
const IMAGE = /!\[((?:\\.|[^[\]\\])*)\]\([^\s()]*(?:\s+"(?:\\.|[^"\\])*")?\)/g;

/** Link text as a reader sees it: images as their alt text, escapes and emphasis markers dropped, one line. */
function plainLabel(text: string): string {
  const plain = text
    .replace(IMAGE, "$1")
    .replace(/\\(.)/g, "$1")
    .replace(/[*_`]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > MAX_LABEL_CHARS ? `${plain.slice(0, MAX_LABEL_CHARS - 1)}…` : plain;
}

/**
 * The text of each link of `markdown` (read at `pageUrl`), by absolute URL without its fragment (as the agent keeps
 * candidates); the first non-empty text wins when a page links one URL several times (a card's image, then its
 * title: the title is kept when the image has no alt text).
 * @example
 * linkLabels("See [the **Kettle**](https://shop.test/p/1#top).", "https://shop.test/").get("https://shop.test/p/1"); // "the Kettle"
 */
export function linkLabels(markdown: string, pageUrl: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const m of markdown.matchAll(INLINE_LINK)) {
    if (m[1] === "!") continue; // an image, not a link
    let url: URL;
    try {
      url = new URL(m[3]!, pageUrl);
    } catch {
      continue;
    }
    url.hash = "";
    // The markdown percent-encodes parentheses in a destination, which a page's own link list keeps as they are.
    const key = url.href.replace(/%28/g, "(").replace(/%29/g, ")");
    const label = plainLabel(m[2]!);
    if (label && !labels.get(key)) labels.set(key, label);
  }
  return labels;
}
