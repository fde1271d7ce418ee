/**
 * @module pipeline/markdown/nested-content
 * How content is written inside link text and table cells, where markdown allows only one line of inline content.
 *
 * node-html-markdown renders those with small translator sets of their own (`aTagTranslators`,
 * `tableCellTranslators`) that know only emphasis, images and, in links, `<br>`: every other element's text was
 * glued to its neighbour's (`<td>Pro<br>yearly</td>` → `Proyearly`, `<a><h2>Title</h2><p>Teaser</p></a>` →
 * `[TitleTeaser](…)`), `<code>` lost its backticks, and crawlbox's own image, link and emphasis translators did not
 * apply. Here blocks and line breaks end a line, which the link and the cell then turn into one space.
 */
import type { NodeHtmlMarkdown, TranslatorConfig, TranslatorConfigFactory } from "node-html-markdown";
import { EMPHASIS_TRANSLATORS } from "./emphasis.ts";
import { imageTranslator, inlineCodeTranslator, linkTranslator } from "./link-image.ts";
import { MATH_TRANSLATORS } from "./math.ts";
import { tableCellTranslator, tableRowTranslator } from "./table.ts";

/** Block elements that may sit in link text or a cell; each starts and ends a line there (later a space). */
const BLOCKS_IN_INLINE_CONTEXT =
  "p,div,section,article,aside,header,footer,main,nav,address,figure,figcaption,details,summary,dl,dt,dd,ul,ol,li," +
  "blockquote,center,fieldset,form,h1,h2,h3,h4,h5,h6,table,thead,tbody,tfoot,tr,td,th,pre,caption";
const LINE_BLOCK: TranslatorConfig = { surroundingNewlines: 1 };
const LINE_BREAK: TranslatorConfig = { content: "\n", recurse: false };

/** Translators shared by link text and table cells. */
const INLINE_CONTEXT_TRANSLATORS: Record<string, TranslatorConfig | TranslatorConfigFactory> = {
  [BLOCKS_IN_INLINE_CONTEXT]: LINE_BLOCK,
  "br,hr": LINE_BREAK,
  code: inlineCodeTranslator,
  img: imageTranslator,
  ...MATH_TRANSLATORS,
  ...EMPHASIS_TRANSLATORS,
};

/**
 * Install crawlbox's translators for link text, table rows and table cells into a converter's collections.
 * Called once on the module's converter, right after it is built.
 */
export function installNestedTranslators(converter: NodeHtmlMarkdown): void {
  for (const [tags, translator] of Object.entries(INLINE_CONTEXT_TRANSLATORS)) {
    converter.aTagTranslators.set(tags, translator);
    converter.tableCellTranslators.set(tags, translator);
  }
  // A link in a cell; links cannot nest (the parser splits them), so link text needs none.
  converter.tableCellTranslators.set("a", linkTranslator);
  // The caption keeps node-html-markdown's translator (it renders through tableCellTranslators, updated above).
  converter.tableTranslators.set("tr", tableRowTranslator);
  converter.tableTranslators.set("th,td", tableCellTranslator);
  converter.tableRowTranslators.set("th,td", tableCellTranslator);
}
