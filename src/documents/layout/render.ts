/**
 * @module documents/layout/render
 * Blocks → markdown (GFM tables, GitHub footnotes), from the same blocks as the HTML (render-html.ts) so the
 * `markdown` and `html` formats of a document agree.
 */
import { codeSpan, escapeClosingHashes } from "../../pipeline/markdown/escape.ts";
import { itemOrdered, listDepths, listNumbers } from "./list-numbers.ts";
import type { Block, Inline, ListItem } from "./model.ts";
import { blocksHtml, BODY_END } from "./render-html.ts";

/** Most cells (rows × the widest row, over all of a document's tables) written with every row padded to full width. */
const MAX_PADDED_CELLS = 1_000_000;

/**
 * Block syntax a line of text may start with (after its leading blanks, which are dropped: four would make code):
 * an ATX heading, a quote, a bullet, a fence, a thematic break or a setext underline. An escaped first character
 * keeps the line text. An ordered list marker is escaped at its `.` or `)` (a backslash before a digit is no escape
 * and stayed visible).
 */
const LINE_START = /^(?:#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|~{3,}|-(?=[ \t]*-[ \t]*-[- \t]*$)|=+[ \t]*$)/gm;
const ORDERED_MARKER = /^(\d{1,9})([.)])(?=[ \t]|$)/gm;

/**
 * `text` with what markdown would read as inline syntax escaped: marks, entities, tags, and a run of `~` touching
 * text (GFM's strikethrough: `~~tilde~~` was struck through; a `~~~` between spaces can open or close nothing).
 */
function escapeMarkdown(text: string): string {
  return text
    .replace(/([\\`*_[\]])/g, "\\$1")
    .replace(/~+/g, (run, at: number, all: string) => (/\S/.test(all[at - 1] ?? " ") || /\S/.test(all[at + run.length] ?? " ") ? run.replace(/~/g, "\\~") : run))
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "\\&")
    .replace(/<(?=[A-Za-z/!?])/g, "\\<");
}

/**
 * Markdown text whose every line reads as text, not as block syntax (see {@link LINE_START}). Before, only the start
 * of the text was escaped, so a line break followed by `~~~` opened a code block that took the rest of the document.
 */
function escapeLineStarts(markdown: string): string {
  return markdown.replace(/^[ \t]+/gm, "").replace(LINE_START, "\\$&").replace(ORDERED_MARKER, "$1\\$2");
}

/** A link target as markdown writes it: parentheses and white space percent-encoded (`encodeURIComponent` keeps `(`). */
function linkTarget(href: string): string {
  return href.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/** The marks written as delimiters, outermost first, so that a run nested in another closes inside it. */
const MARK_DELIMITERS = [
  ["bold", "**"],
  ["italic", "*"],
  ["strike", "~~"],
] as const;

/**
 * Markdown of `content`'s inlines from `from` to `to` (exclusive), marks from `level` of {@link MARK_DELIMITERS}
 * on: each maximal run carrying the mark is wrapped once (runs a document split mid-word stay one `**bold**`), with
 * its outer blanks moved outside the delimiters, where CommonMark needs them to read emphasis at all.
 */
function markedRuns(pieces: string[], content: Inline[], from: number, to: number, level: number): string {
  if (level === MARK_DELIMITERS.length) return pieces.slice(from, to).join("");
  const [mark, delimiter] = MARK_DELIMITERS[level]!;
  let out = "";
  for (let i = from; i < to; ) {
    const on = content[i]![mark] === true && content[i]!.note === undefined;
    let j = i + 1;
    while (j < to && (content[j]![mark] === true && content[j]!.note === undefined) === on) j++;
    const inner = markedRuns(pieces, content, i, j, level + 1);
    out += on ? delimited(inner, delimiter) : inner;
    i = j;
  }
  return out;
}

/** Punctuation as CommonMark's flanking rules read it (ASCII and Unicode punctuation and symbols). */
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
/** Characters at a marked run's edge that are markdown syntax of this renderer (nested delimiters, code spans). */
const SYNTAX_EDGE = new Set(["*", "~", "`", "_", "[", "]", "\\"]);
const isBlank = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v" || /^\s$/.test(c);

/**
 * `inner` wrapped in `delimiter`, with what CommonMark needs outside the delimiters moved out: blanks (`** bold**`
 * is no emphasis) and punctuation at the edges, whole escapes included (`**Note:**text`, `word**(1)**`,
 * `**注意：**文字` printed their asterisks: a delimiter between punctuation and a letter cannot open or close). A run
 * of blanks and punctuation only is not marked. Linear: the edges are found by index, not by a regex that
 * backtracked over every blank (a bold run of 300,000 spaces took 42 s).
 */
function delimited(inner: string, delimiter: string): string {
  let start = 0;
  let end = inner.length;
  for (;;) {
    if (start < end && isBlank(inner[start]!)) start++;
    else if (start + 1 < end && inner[start] === "\\" && PUNCTUATION.test(inner[start + 1]!)) start += 2;
    else if (start < end && PUNCTUATION.test(inner[start]!) && !SYNTAX_EDGE.has(inner[start]!)) start++;
    else break;
  }
  for (;;) {
    if (end > start && isBlank(inner[end - 1]!)) end--;
    else if (end - 1 > start && PUNCTUATION.test(inner[end - 1]!) && escapedAt(inner, end - 1, start)) end -= 2;
    else if (end > start && PUNCTUATION.test(inner[end - 1]!) && !SYNTAX_EDGE.has(inner[end - 1]!)) end--;
    else break;
  }
  if (start >= end) return inner;
  return `${inner.slice(0, start)}${delimiter}${inner.slice(start, end)}${delimiter}${inner.slice(end)}`;
}

/** Whether the character at `at` is escaped: an odd number of backslashes before it, back to `from`. */
function escapedAt(text: string, at: number, from: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= from && text[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

/**
 * Markdown of inline content: text with its syntax escaped, links, note references, code spans and marks. A hard
 * line break is `lineBreak` (`\` and a new line in a paragraph; a space where one line is all there is).
 */
function inlineText(content: Inline[], lineBreak = "\\\n"): string {
  const pieces = content.map((c, i) => {
    if (c.note !== undefined) return `[^${c.note}]`;
    if (c.lineBreak) return lineBreak;
    const text = c.code ? codeSpan(c.text) : escapeMarkdown(c.text);
    // Right after a note reference, `:` would make it a footnote definition (at a line's start) and `(` a link.
    return !c.code && content[i - 1]?.note !== undefined ? text.replace(/^[:(]/, "\\$&") : text;
  });
  // Consecutive inlines with one target are one link, their marks inside it: a link whose runs differ in marks
  // (`exam` + bold `ple`) was two links side by side.
  const target = (c: Inline) => (c.note === undefined && !c.lineBreak ? c.href : undefined);
  let out = "";
  for (let i = 0; i < content.length; ) {
    const href = target(content[i]!);
    let j = i + 1;
    while (j < content.length && target(content[j]!) === href) j++;
    const inner = markedRuns(pieces, content, i, j, 0);
    out += href ? `[${inner}](${linkTarget(href)})` : inner;
    i = j;
  }
  return out;
}

/** `markdown` with its line breaks made spaces. */
function oneLineOf(markdown: string): string {
  return markdown.replace(/[ \t]*(?:\r\n?|\n)\s*/g, " ");
}

/**
 * Markdown of inline content. `oneLine` (table cells, list items, notes): line breaks become spaces, since a cell, an
 * item or a `[^n]:` definition cannot hold one (a blank line in a note's text ended the note).
 */
function inlineMarkdown(content: Inline[], inTable = false, oneLine = inTable): string {
  const s = oneLine ? inlineText(content, " ") : inlineText(content);
  const lines = escapeLineStarts(oneLine ? oneLineOf(s) : s);
  return inTable ? lines.replace(/\|/g, "\\|") : lines;
}

/**
 * Markdown of a heading's text, on one line. After the `## ` that opens it no block syntax can start, so only what
 * the heading line itself reads is escaped: a closing run of `#` (`Item #` lost its `#`). Line starts were escaped
 * as in a paragraph before, and a numbered heading read `## 1\. Background` in the source.
 */
function headingMarkdown(content: Inline[]): string {
  return escapeClosingHashes(oneLineOf(inlineText(content, " ")).trim());
}

/**
 * Markdown of a list. An item is indented to its parent's content column (the width of the parent's marker and
 * its space: 3 under `1. `, 4 under `10. `, 2 under `- `), the column CommonMark reads nesting from. A fixed 2 spaces
 * under `1. ` started a new list: the numbering restarted. `alternate` writes the other delimiters (`1)`, `*`): a
 * list right after another of its kind would otherwise join it, blank line or not.
 */
function listMarkdown(ordered: boolean, items: ListItem[], alternate: boolean): string {
  const depths = listDepths(items);
  const kinds = listNumbers(items, depths, ordered);
  /** Content column of the latest item at each depth, in characters. */
  const columns: number[] = [];
  return items
    .map((it, i) => {
      const depth = depths[i]!;
      const indent = depth === 0 ? 0 : columns[depth - 1]!;
      const { ordered: numbered, number } = kinds[i]!;
      const top = alternate && depth === 0;
      const marker = numbered ? `${number}${top ? ")" : "."}` : top ? "*" : "-";
      columns[depth] = indent + marker.length + 1;
      return `${" ".repeat(indent)}${marker} ${inlineMarkdown(it.content, false, true)}`;
    })
    .join("\n");
}

/** Markdown of `blocks`. */
export function blocksToMarkdown(blocks: Block[]): string {
  const out: string[] = [];
  /** Cells the document's tables may still be padded with (one allowance for them all, not one per table). */
  let padding = MAX_PADDED_CELLS;
  /** Whether the list before was written with the alternate delimiters. */
  let alternate = false;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    switch (block.kind) {
      case "heading":
        out.push(`${"#".repeat(block.level)} ${headingMarkdown(block.content)}`);
        break;
      case "paragraph":
        out.push(inlineMarkdown(block.content));
        break;
      case "list": {
        const before = blocks[i - 1];
        const top = (b: Block | undefined) => (b?.kind === "list" && b.items[0] ? itemOrdered(b.items[0], 0, b.ordered) : undefined);
        alternate = before?.kind === "list" && top(before) === top(block) ? !alternate : false;
        out.push(listMarkdown(block.ordered, block.items, alternate));
        break;
      }
      case "quote":
        out.push(inlineMarkdown(block.content).replace(/^/gm, "> "));
        break;
      case "table": {
        // A loop, not Math.max(...rows): a spread of 1.2M rows passes the engine's argument limit (RangeError).
        let width = 0;
        for (const r of block.rows) if (r.length > width) width = r.length;
        const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
        // GFM fills a body row short of the header's cells itself; padding each is only for reading the source, and
        // is left out where it would outgrow the document (a crafted RTF of one row of 25,000 cells over 25,000 short
        // rows: 1.9 billion characters of empty cells from a 425 KB file; 100 smaller such tables, 301 million).
        const padded = width * block.rows.length <= padding;
        if (padded) padding -= width * block.rows.length;
        const bodyLine = padded ? line : (cells: string[]) => `| ${cells.join(" | ")} |`;
        const rows = block.rows.map((r) => r.map((c) => inlineMarkdown(c, true)));
        out.push([line(rows[0]!), line(Array.from({ length: width }, () => "---")), ...rows.slice(1).map(bodyLine)].join("\n"));
        break;
      }
      case "code": {
        // A fence longer than any run of backticks in the code, which would otherwise close it early (a loop: a
        // spread of a million runs passes the engine's argument limit).
        let longest = 2;
        for (const m of block.text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
        const fence = "`".repeat(longest + 1);
        out.push(`${fence}\n${block.text}\n${fence}`);
        break;
      }
      case "pageMarker":
        out.push(`---\n\n<!-- page ${block.page} -->`);
        break;
      case "notes":
        // GFM footnotes: `[^1]: text`, one a line.
        out.push(block.notes.map((n) => `[^${n.label}]: ${inlineMarkdown(n.content, false, true)}`).join("\n"));
        break;
    }
  }
  return out.join("\n\n") + (out.length ? "\n" : "");
}

/**
 * Adds `blocks` at the end of a converted document's markdown and HTML, rendered as the rest: for what is said
 * after the conversion (the line ending a PDF cut at its text budget, documents/pdf/text-budget.ts).
 */
export function appendBlocks(doc: { markdown: string; html: string }, blocks: Block[]): void {
  if (blocks.length === 0) return;
  const markdown = blocksToMarkdown(blocks);
  doc.markdown = doc.markdown ? `${doc.markdown}\n${markdown}` : markdown;
  const at = doc.html.endsWith(BODY_END) ? doc.html.length - BODY_END.length : doc.html.length;
  const sep = doc.html.slice(0, at).endsWith("<body>") ? "" : "\n";
  doc.html = `${doc.html.slice(0, at)}${sep}${blocksHtml(blocks)}${doc.html.slice(at)}`;
}
