/**
 * @module pipeline/markdown/list-item
 * Lists whose items keep their block content inside them.
 *
 * node-html-markdown's `li` translator indents nested lists by two spaces per level and rewrites every other
 * newline in an item into a hard break. Under a `1. ` marker two spaces are less than the three columns CommonMark
 * needs to continue the item (spec 5.2), so nested lists came out as separate lists (a nested `<ol>` flattened
 * into its parent); a `<pre>` inside an item lost its blank lines, got two trailing spaces per line and an
 * unindented fence that ended the list; and `<p>`s inside an item were joined by a hard break.
 *
 * Here an item is its marker followed by its content, every continuation line indented by the marker's width, and
 * nothing else rewritten. Nested lists need no indent of their own: the enclosing item indents them, so each level
 * is indented by exactly its parent's marker width (2 under `- `, 3 under `1. `, 4 under `10. `).
 */
import { PostProcessResult, type NodeMetadata, type TranslatorConfigFactory } from "node-html-markdown";
import type { MarkdownNode } from "./dom.ts";

/** A continuation line: not the first line and not blank (blank lines stay empty, without trailing spaces). */
const CONTINUATION_LINE_RE = /\n(?=[^\n])/g;

/** The `start` of an `<ol>` (steps continued after an interruption), 1 when absent or unusable. */
function listStart(list: MarkdownNode | null | undefined): number {
  const start = Number.parseInt(list?.getAttribute?.("start") ?? "", 10);
  return Number.isSafeInteger(start) ? start : 1;
}

/** Indent every continuation line of `content` by `width` columns. */
function indentContinuation(content: string, width: number): string {
  return width ? content.replace(CONTINUATION_LINE_RE, `\n${" ".repeat(width)}`) : content;
}

/** The marker of the item the list metadata describes: `- ` in a `<ul>`, `N. ` numbered from the list's start. */
function itemMarker(meta: Partial<NodeMetadata>, bulletMarker: string, list: MarkdownNode | null | undefined): string {
  if (meta.listKind !== "OL" || meta.listItemNumber === undefined) return `${bulletMarker} `;
  return `${meta.listItemNumber + listStart(list) - 1}. `;
}

/**
 * Translator for `li`: the marker as prefix, the content trimmed and its continuation lines indented by the
 * marker's width. Code blocks inside are indented the same way and otherwise kept verbatim.
 */
export const listItemTranslator: TranslatorConfigFactory = (ctx) => {
  const marker = itemMarker(ctx, ctx.options.bulletMarker, ctx.parent as unknown as MarkdownNode | undefined);
  return {
    prefix: marker,
    surroundingNewlines: 1,
    postprocess: ({ content }) => {
      const trimmed = content.trim();
      return trimmed ? indentContinuation(trimmed, marker.length) : PostProcessResult.RemoveNode;
    },
  };
};

/**
 * Translator for `ol,ul`: one newline around a list, as node-html-markdown writes them. A list directly inside
 * another list (`<ul><li>a</li><ul>…</ul></ul>`, which browsers show nested under the previous item) is indented by
 * that item's marker width; a list inside an item is indented by the item.
 */
export const listTranslator: TranslatorConfigFactory = ({ parent, nodeMetadata, options }) => {
  const parentTag = parent?.tagName;
  if (parentTag !== "UL" && parentTag !== "OL") return { surroundingNewlines: 1 };
  const parentMeta = nodeMetadata.get(parent!) ?? {};
  // Before the list's first item there is nothing to nest under, and 4 columns would make an indented code block.
  const width = parentMeta.listKind === "OL" && !parentMeta.listItemNumber ? 0 : itemMarker(parentMeta, options.bulletMarker, parent as unknown as MarkdownNode).length;
  if (!width) return { surroundingNewlines: 1 };
  const indent = " ".repeat(width);
  return { surroundingNewlines: 1, postprocess: ({ content }) => `${indent}${indentContinuation(content.replace(/^\n+/, ""), width)}` };
};
