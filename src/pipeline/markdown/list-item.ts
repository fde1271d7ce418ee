/**
 * @module pipeline/markdown/list-item
 * Lists whose items keep their block content inside them, and that end where the HTML list ends.
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
 *
 * A list also needs a blank line after it wherever text follows: a line right after an item is lazy continuation
 * text of that item (spec 5.2), so `<ul><li>a</li></ul>Trailing` read `- a Trailing`. Two lists of the same kind
 * with only blank lines between are one list in CommonMark; the second takes the other marker (`*`, or `1)`),
 * which starts a new list (spec 5.3).
 */
import { PostProcessResult, type NodeMetadata, type TranslatorConfigFactory } from "node-html-markdown";
import type { MarkdownNode } from "./dom.ts";

/** A continuation line: not the first line and not blank (blank lines stay empty, without trailing spaces). */
const CONTINUATION_LINE_RE = /\n(?=[^\n])/g;

/** The marker a list's items take instead of the default (`*` for `-`, `)` for `.`): set by the list, read by items. */
const ALTERNATE_MARKERS = new WeakMap<object, string>();

/** The last list item a conversion wrote: its list, the list's tag and marker, and where the item's text ended. */
interface WrittenItem {
  list: object | null | undefined;
  tag: string;
  marker: string;
  end: number;
}
/** Per conversion (node-html-markdown's visitor): the last list item written, to tell if a new list runs into it. */
const lastItems = new WeakMap<object, WrittenItem>();
/** The most whitespace between two lists that still join: their newlines and a space or a `<br>` between them. */
const MAX_GAP = 16;

/** The visitor's output so far, the only place that shows what a list has been written right after. */
type Output = { result: { text: string } };

/** The `start` of an `<ol>` (steps continued after an interruption), 1 when absent or unusable. */
function listStart(list: MarkdownNode | null | undefined): number {
  const start = Number.parseInt(list?.getAttribute?.("start") ?? "", 10);
  return Number.isSafeInteger(start) ? start : 1;
}

/** Indent every continuation line of `content` by `width` columns. */
function indentContinuation(content: string, width: number): string {
  return width ? content.replace(CONTINUATION_LINE_RE, `\n${" ".repeat(width)}`) : content;
}

/** The marker character of a list with the default markers: the bullet of a `<ul>`, the `.` of an `<ol>`. */
function defaultMarker(tag: string, bulletMarker: string): string {
  return tag === "OL" ? "." : bulletMarker;
}

/** The marker of the item the list metadata describes: `- ` in a `<ul>`, `N. ` numbered from the list's start. */
function itemMarker(meta: Partial<NodeMetadata>, bulletMarker: string, list: MarkdownNode | null | undefined): string {
  const alternate = list ? ALTERNATE_MARKERS.get(list) : undefined;
  if (meta.listKind !== "OL" || meta.listItemNumber === undefined) return `${alternate ?? bulletMarker} `;
  return `${meta.listItemNumber + listStart(list) - 1}${alternate ?? "."} `;
}

/**
 * Whether the output holds only whitespace from `from` on. Read one character at a time: the output is a rope,
 * and JavaScriptCore reads one character of it in place but flattened the whole output for `charCodeAt` or a
 * longer slice (measured: 40,000 small lists took 0.55 s instead of 0.2 s, growing quadratically).
 */
function blankFrom(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.slice(i, i + 1);
    if (c !== " " && c !== "\n" && c !== "\t" && c !== "\r") return false;
  }
  return true;
}

/**
 * The marker character for `list`, about to be written: the other one when the last item written belongs to a list
 * of the same kind with the default marker and nothing but a little whitespace has been written since, so the two
 * lists do not read as one; else the default. Only the output's last few characters are read. An enclosing quote
 * or item may have rewritten the output since the item was written; then the offset points into its text, which
 * is not blank, and a chance match only changes the marker character.
 */
function markerFor(output: Output, list: MarkdownNode, bulletMarker: string): string {
  const tag = list.tagName ?? "";
  const fallback = defaultMarker(tag, bulletMarker);
  const last = lastItems.get(output);
  const text = output.result.text;
  if (!last || last.tag !== tag || last.marker !== fallback) return fallback;
  if (text.length < last.end || text.length - last.end > MAX_GAP || !blankFrom(text, last.end)) return fallback;
  // A list right in the last item's list nests under that item (`<ul><li>a</li><ul>`): it cannot join it.
  if (list.parentNode === last.list) return fallback;
  if (tag === "OL") return ")";
  return bulletMarker === "*" ? "-" : "*";
}

/** Remember an item of `list` (a `tag` list with `marker`) as the last one written; its text ends at `end`. */
function rememberItem(output: Output, list: object | null | undefined, tag: string, marker: string, end: number): void {
  lastItems.set(output, { list, tag, marker, end });
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
    postprocess: ({ content, visitor }) => {
      const trimmed = content.trim();
      if (!trimmed) return PostProcessResult.RemoveNode;
      const item = indentContinuation(trimmed, marker.length);
      // The caller writes `item` in place of `content`, which ends the output: remembered as it will stand.
      const output = visitor as unknown as Output;
      const end = output.result.text.length - content.length + item.length;
      rememberItem(output, ctx.parent, ctx.listKind ?? "UL", marker.trimEnd().slice(-1), end);
      return item;
    },
  };
};

/**
 * Translator for `ol,ul`. A list outside any list has a blank line before and after it; a list inside an item
 * keeps the item tight before it (a bullet or a `1.` list may follow the item's first line directly) and has a
 * blank line after it, which the item trims when nothing follows. An `<ol>` not starting at 1 always has a blank
 * line before it: it cannot interrupt a paragraph (spec 5.2), and would read as text of the line above.
 *
 * A list directly inside another list (`<ul><li>a</li><ul>…</ul></ul>`, which browsers show nested under the
 * previous item) is indented by that item's marker width; a list inside an item is indented by the item.
 */
export const listTranslator: TranslatorConfigFactory = (ctx) => {
  const { node, parent, nodeMetadata, options, visitor, indentLevel } = ctx;
  const list = node as unknown as MarkdownNode;
  const tag = list.tagName ?? "";
  const output = visitor as unknown as Output;
  const marker = markerFor(output, list, options.bulletMarker);
  if (marker !== defaultMarker(tag, options.bulletMarker)) ALTERNATE_MARKERS.set(list, marker);
  const blankBefore = !indentLevel || (tag === "OL" && listStart(list) !== 1);
  const parentTag = parent?.tagName;
  if (parentTag !== "UL" && parentTag !== "OL") {
    return {
      surroundingNewlines: blankBefore ? 2 : 1,
      postfix: "\n",
    };
  }
  const parentMeta = nodeMetadata.get(parent!) ?? {};
  // Before the list's first item there is nothing to nest under, and 4 columns would make an indented code block.
  const width = parentMeta.listKind === "OL" && !parentMeta.listItemNumber ? 0 : itemMarker(parentMeta, options.bulletMarker, parent as unknown as MarkdownNode).length;
  const indent = " ".repeat(width);
  return {
    surroundingNewlines: 1,
    postprocess: ({ content }) => {
      const body = indentContinuation(content.replace(/^\n+/, ""), width);
      const nested = `${width && blankBefore ? "\n" : ""}${indent}${body}`;
      // Indenting moved the end of the list's last item: remembered where the caller will write it.
      const end = output.result.text.length - content.length + nested.length;
      if (/\S/.test(content)) rememberItem(output, list, tag, marker, end);
      return nested;
    },
  };
};
