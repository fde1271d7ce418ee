/**
 * @module pipeline/markdown
 * Cleaned HTML → GitHub-flavoured markdown with node-html-markdown.
 *
 * node-html-markdown does the walking; crawlbox replaces the translators whose output did not render as the page
 * reads, each in its own module under `markdown/`:
 * - slim-html: attributes, inline SVG, comments and scripts dropped before parsing (for speed), tag by tag;
 * - code-block: a fenced block for every `<pre>`, with its language;
 * - list-item, blockquote: items whose continuation lines (nested lists, paragraphs, code) are indented by the
 *   marker width, and quotes that keep that indentation;
 * - table and nested-content: GFM tables on the real grid (colspan, rowspan, escaped pipes), with line breaks,
 *   blocks and code kept apart inside cells and link text;
 * - link-image and escape: destinations with `(`/`)` encoded, escaped titles, text that looks like HTML escaped;
 * - emphasis and heading: delimiters that satisfy CommonMark's flanking rules, one-line headings;
 * - math: `<sup>`/`<sub>` kept as HTML, formulas as their TeX once, in GitHub's math syntax;
 * - tidy: trailing spaces and blank-line runs normalised outside code blocks.
 */
import { NodeHtmlMarkdown, type TranslatorConfigObject } from "node-html-markdown";
import { blockquoteTranslator } from "./markdown/blockquote.ts";
import { codeBlockTranslator } from "./markdown/code-block.ts";
import { EMPHASIS_TRANSLATORS } from "./markdown/emphasis.ts";
import { HTML_TEXT_REPLACE, LINE_START_ESCAPE } from "./markdown/escape.ts";
import { headingTranslator } from "./markdown/heading.ts";
import { imageTranslator, linkTranslator } from "./markdown/link-image.ts";
import { listItemTranslator, listTranslator } from "./markdown/list-item.ts";
import { MATH_TRANSLATORS } from "./markdown/math.ts";
import { installNestedTranslators } from "./markdown/nested-content.ts";
import { slimHtml } from "./markdown/slim-html.ts";
import { layoutCellTranslator, layoutRowTranslator, tableTranslator } from "./markdown/table.ts";
import { tidy } from "./markdown/tidy.ts";

const TRANSLATORS: TranslatorConfigObject = {
  table: tableTranslator,
  // Only reached inside layout tables: data tables switch to their own row and cell translators.
  tr: layoutRowTranslator,
  "td,th": layoutCellTranslator,
  "ol,ul": listTranslator,
  li: listItemTranslator,
  blockquote: blockquoteTranslator,
  pre: codeBlockTranslator,
  "h1,h2,h3,h4,h5,h6": headingTranslator,
  a: linkTranslator,
  img: imageTranslator,
  ...MATH_TRANSLATORS,
  ...EMPHASIS_TRANSLATORS,
};

/** Block-level extras node-html-markdown does not know about; without them their text runs together. */
const EXTRA_BLOCK_ELEMENTS = ["DETAILS", "SUMMARY", "DIALOG", "NAV", "FIGURE", "FIGCAPTION", "DL", "DT", "DD"];

const converter = new NodeHtmlMarkdown(
  {
    codeBlockStyle: "fenced",
    bulletMarker: "-",
    keepDataImages: true,
    // 0 turns the built-in pass off: tidy() collapses blank-line runs, leaving code blocks alone, which that pass
    // does not. Its regex, (?:\r?\n\s*)+((?:\r?\n\s*){N}), can split a run of newlines in exponentially many ways:
    // from about 25 newlines in a row it backtracked for ~400 ms until JavaScriptCore gave up, changing nothing.
    maxConsecutiveNewlines: 0,
    blockElements: EXTRA_BLOCK_ELEMENTS,
    ignore: ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "SVG", "BUTTON", "SELECT", "TEXTAREA", "IFRAME"],
    textReplace: [HTML_TEXT_REPLACE],
    lineStartEscape: LINE_START_ESCAPE,
  },
  TRANSLATORS,
);
installNestedTranslators(converter);

/**
 * Convert HTML (normally the output of `cleanHtml`) to markdown.
 *
 * @param html - an HTML document or fragment
 * @returns GFM markdown: `#` headings, `-` bullets, `**strong**`, `_em_` (`*em*` inside a word), `[text](url)`
 *   links, GFM tables and fenced code blocks with a language tag when one is declared; never more than one blank
 *   line in a row outside code blocks.
 * @example
 * htmlToMarkdown('<pre><code class="language-ts">let a = 1;</code></pre>'); // "```ts\nlet a = 1;\n```"
 */
export function htmlToMarkdown(html: string): string {
  if (!html.trim()) return "";
  return tidy(converter.translate(slimHtml(html)));
}
