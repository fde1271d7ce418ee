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

/** Unclosed `[` kept while scanning (a page of text brackets never closed cannot grow the scan's memory past it). */
const MAX_OPEN_BRACKETS = 64;
/** Longest link destination and title read after `](`: a page's own links are far shorter. */
const MAX_DESTINATION_CHARS = 4096;

/** One inline link or image of markdown: its text (between the brackets) and destination. */
interface InlineLink {
  image: boolean;
  text: string;
  destination: string;
}

/**
 * The inline links and images of `markdown`, in one pass: `[` positions are kept on a stack (an escaped one, `\[`,
 * is text), and a `]` followed by `(destination "title")` closes the latest. A regex that allowed a level of nested
 * brackets backtracked over every link after each text bracket (`\[for 2026\]`): a 136 KB article took 60 s, on
 * the server's main thread.
 */
function inlineLinks(markdown: string): InlineLink[] {
  const found: InlineLink[] = [];
  const open: { at: number; image: boolean }[] = [];
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[") {
      if (open.length === MAX_OPEN_BRACKETS) open.shift();
      open.push({ at: i, image: markdown[i - 1] === "!" });
      continue;
    }
    if (c !== "]" || open.length === 0) continue;
    const opener = open.pop()!;
    if (markdown[i + 1] !== "(") continue;
    const end = destinationEnd(markdown, i + 2);
    if (end < 0) continue;
    const destination = markdown.slice(i + 2, end).trim().split(/\s+/)[0]!;
    found.push({ image: opener.image, text: markdown.slice(opener.at + 1, i), destination });
    i = end;
  }
  return found;
}

/** Where `(destination "title")` starting at `from` ends (its `)`), or -1 when it is not one. */
function destinationEnd(markdown: string, from: number): number {
  const limit = Math.min(markdown.length, from + MAX_DESTINATION_CHARS);
  let i = from;
  while (i < limit && !/[\s()]/.test(markdown[i]!)) i++;
  if (i === from) return -1;
  if (markdown[i] === ")") return i;
  while (i < limit && (markdown[i] === " " || markdown[i] === "\t")) i++;
  if (markdown[i] !== '"') return -1;
  for (i++; i < limit; i++) {
    if (markdown[i] === "\\") i++;
    else if (markdown[i] === '"') return markdown[i + 1] === ")" ? i + 1 : -1;
  }
  return -1;
}

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
  for (const link of inlineLinks(markdown)) {
    if (link.image) continue; // an image, not a link
    let url: URL;
    try {
      url = new URL(link.destination, pageUrl);
    } catch {
      continue;
    }
    url.hash = "";
    // The markdown percent-encodes parentheses in a destination, which a page's own link list keeps as they are.
    const key = url.href.replace(/%28/g, "(").replace(/%29/g, ")");
    const label = plainLabel(link.text);
    if (label && !labels.get(key)) labels.set(key, label);
  }
  return labels;
}
