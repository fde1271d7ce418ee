/**
 * @module pipeline/markdown/blockquote
 * `<blockquote>` with its content's indentation intact.
 *
 * node-html-markdown prefixes each line with `> ` after removing one leading space from it (to write nested
 * quotes as `>>`). That space is part of the content's indentation: a code block or paragraph inside a list item
 * inside a quote fell one column short of the item's content column and left the item. Here every line is
 * prefixed as it is (`> > b` for a nested quote, which CommonMark reads the same as `>> b`).
 */
import { PostProcessResult, type TranslatorConfig } from "node-html-markdown";
import { trimNewlines } from "./whitespace.ts";

/** Translator for `blockquote`: each line prefixed with `> `, blank lines with `>` alone. */
export const blockquoteTranslator: TranslatorConfig = {
  postprocess: ({ content }) => {
    const quoted = trimNewlines(content);
    if (!/\S/.test(quoted)) return PostProcessResult.RemoveNode;
    return quoted.replace(/^(.?)/gm, (_, first: string) => (first ? `> ${first}` : ">"));
  },
};
