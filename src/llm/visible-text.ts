/**
 * @module llm/visible-text
 * Whether a page's markdown has anything for a model to read. The `summary`, `question` and `highlights` formats
 * skip the model on a page without text (an empty body, a page of images, a JavaScript shell read without its
 * script): asked about nothing, a model answers from what it imagines (a "premium widget priced at $42" for an
 * empty page), and the client pays for that answer. Upstream skips these calls on empty markdown too, with a
 * warning ("Summary generation was skipped because the markdown content is empty.", "Query was skipped because the
 * markdown content is empty.").
 */

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * True when `markdown` has a letter or a digit outside link and image destinations (`[text](destination)`): the
 * text a reader of the page sees, alt texts included. A page whose markdown is only `![](/hero.png)`, rules and
 * punctuation has none. One pass, left as soon as a letter is seen (at once, on almost every page).
 * @example
 * hasVisibleText("![](https://example.com/a.png)\n\n---"); // false
 * hasVisibleText("[Home](https://example.com/)"); // true
 */
export function hasVisibleText(markdown: string): boolean {
  let inDestination = false;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown[i]!;
    if (inDestination) {
      if (c === ")" || c === "\n") inDestination = false;
    } else if (c === "]" && markdown[i + 1] === "(") {
      inDestination = true;
      i++;
    } else if (c.charCodeAt(0) > 0x2f && LETTER_OR_DIGIT.test(c)) {
      return true;
    } else if (c >= "\ud800" && c <= "\udbff" && LETTER_OR_DIGIT.test(markdown.slice(i, i + 2))) {
      return true; // a letter outside the BMP (CJK extension B, historic scripts)
    }
  }
  return false;
}
