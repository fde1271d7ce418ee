/**
 * @module pipeline/markdown/heading
 * `<h1>`–`<h6>` as one-line ATX headings.
 *
 * An ATX heading ends at the end of its line, so a `<br>` (or a block) inside `<h2>` split it in two, the second
 * half becoming a paragraph: line breaks inside a heading become spaces. A heading whose text ends in `#` after a
 * space (`Issue #`) lost it, because CommonMark reads a trailing run of `#` as the optional closing sequence
 * (spec 4.2, example 76): the first `#` of that run is escaped.
 */
import { PostProcessResult, type TranslatorConfigFactory } from "node-html-markdown";
import { escapeClosingHashes } from "./escape.ts";
import { newlineRunsToSpace } from "./whitespace.ts";

/** Translator for `h1,h2,h3,h4,h5,h6`. */
export const headingTranslator: TranslatorConfigFactory = ({ node }) => ({
  prefix: `${"#".repeat(Number(node.tagName.charAt(1)))} `,
  postprocess: ({ content }) => {
    const text = newlineRunsToSpace(content).trim();
    if (!text) return PostProcessResult.RemoveNode;
    return escapeClosingHashes(text);
  },
});
