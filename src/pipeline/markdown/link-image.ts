/**
 * @module pipeline/markdown/link-image
 * Links and images. They replace node-html-markdown's own translators, which wrote titles unescaped
 * (`[t](url "say "hi"")` is not a link), left `(`/`)` in image URLs, percent-encoded `_` and `*` in every href, made
 * `<a href="/docs">/docs</a>` into `</docs>` (an HTML end tag, not an autolink), and ran a card link's heading and
 * teaser together (`[TitleTeaser](…)`).
 */
import { PostProcessResult, type TranslatorConfig, type TranslatorConfigFactory } from "node-html-markdown";
import { ELEMENT_NODE, TEXT_NODE, type MarkdownNode } from "./dom.ts";
import { codeSpan, escapeAltText, linkDestination, linkTitle } from "./escape.ts";
import { mediaWikiFormula } from "./math.ts";
import { newlineRunsToSpace, trimEdgeNewlines } from "./whitespace.ts";

/**
 * What CommonMark accepts as an autolink (spec 6.5): a scheme, then no whitespace, controls or angle brackets.
 * Anything else, such as a relative URL, is written as an inline link.
 */
const AUTOLINK_RE = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>\x00-\x1f\x7f]*$/;

/**
 * `<a>`: `[text](destination "title")`, or `<url>` when the text is the URL itself. Text inside is rendered with the
 * converter's link-text translators (see nested-content), which end a line at each block and `<br>`: newlines at
 * either end of the text are dropped with the spaces around them, and each one inside becomes one space.
 */
export const linkTranslator: TranslatorConfigFactory = ({ node, visitor }) => {
  const href = node.getAttribute("href");
  if (!href) return {};
  // The text is shown as is inside `<…>`: no escaping, no percent-encoding (which changed what the reader sees).
  if (AUTOLINK_RE.test(href) && node.textContent === href) return { content: `<${href}>`, recurse: false };
  const level = soleHeadingLevel(node as unknown as MarkdownNode);
  return {
    // A link around a heading and nothing else is the heading, linked (`### [Title](…)`): as link text alone the
    // heading was lost, and with it the page's outline (header-based splitters cut documents there).
    ...(level ? { surroundingNewlines: 2 } : {}),
    prefix: level ? `${"#".repeat(level)} [` : "[",
    postfix: `](${linkDestination(href)}${linkTitle(node.getAttribute("title"))})`,
    childTranslators: visitor.instance.aTagTranslators,
    // An icon link without text to a fragment (a README heading's anchor; made absolute by cleanHtml, so any `#`)
    // says nothing: it goes. Other icon links stay `[](url)`, as upstream writes them. Naming them by their
    // aria-label or title ("Share on Twitter") was tried: those words are chrome, and wcxb-dev fell 0.834 → 0.833.
    postprocess: ({ content }) => {
      const text = newlineRunsToSpace(trimEdgeNewlines(content));
      return text.trim() || !href.includes("#") ? text : PostProcessResult.RemoveNode;
    },
  };
};

/**
 * Ancestors under which a linked heading cannot be written as a heading: a table cell (one line), another heading
 * (`## ### [T]`), and anything that wraps its text in delimiters (`**### [T](…)**` prints the hashes).
 */
const NO_HEADING_WITHIN = /^(?:TD|TH|CAPTION|H[1-6]|B|STRONG|EM|I|DEL|S|STRIKE|SUP|SUB|CODE|A)$/;

/** The level of the non-empty heading that is all a link holds (whitespace aside), where one can be; else 0. */
function soleHeadingLevel(link: MarkdownNode): number {
  let level = 0;
  for (const child of link.childNodes) {
    if (child.nodeType === TEXT_NODE) {
      if (child.rawText?.trim()) return 0;
    } else if (child.nodeType === ELEMENT_NODE) {
      if (level || !/^H[1-6]$/.test(child.tagName ?? "") || !child.textContent.trim()) return 0;
      level = Number(child.tagName!.charAt(1));
    }
  }
  for (let up = link.parentNode; level && up; up = up.parentNode) {
    if (NO_HEADING_WITHIN.test(up.tagName ?? "")) return 0;
  }
  return level;
}

/**
 * `<img>`: `![alt](src "title")`; an image whose `src` was removed (cleanHtml's removeBase64Images) renders as its
 * alt text so the words stay, and one with neither is dropped.
 */
export const imageTranslator: TranslatorConfigFactory = ({ node }) => {
  const formula = mediaWikiFormula(node.getAttribute("class") ?? undefined, node.getAttribute("alt") ?? undefined);
  if (formula) return { content: formula, recurse: false, noEscape: true };
  const src = node.getAttribute("src") ?? "";
  const alt = escapeAltText(node.getAttribute("alt") ?? "");
  if (!src) return alt ? { content: alt, recurse: false } : { ignore: true };
  return { content: `![${alt}](${linkDestination(src)}${linkTitle(node.getAttribute("title"))})`, recurse: false };
};

/**
 * `<code>` where a code block cannot be (link text, table cells): always a code span, delimited by one backtick
 * more than the longest run inside it and padded with a space when it starts or ends with a backtick (CommonMark
 * 6.1). node-html-markdown had no `code` translator there, so the backticks were lost.
 */
export const inlineCodeTranslator: TranslatorConfig = {
  noEscape: true,
  spaceIfRepeatingChar: true,
  postprocess: ({ content }) => {
    const code = newlineRunsToSpace(content);
    if (!code) return PostProcessResult.RemoveNode;
    return codeSpan(code);
  },
};
