/**
 * @module documents/layout/render
 * Blocks → markdown (GFM tables, GitHub footnotes), from the same blocks as the HTML (render-html.ts) so the
 * `markdown` and `html` formats of a document agree. Marks are written by inline-marks.ts, which checks that
 * CommonMark reads them back as meant.
 */
import { codeSpan, escapeClosingHashes } from "../../pipeline/markdown/escape.ts";
import { marksMarkdown } from "./inline-marks.ts";
import { itemOrdered, listDepths, listLabel, listNumbers } from "./list-numbers.ts";
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
 * text or the run's edge (GFM's strikethrough: `~~tilde~~` was struck through; a `~~~` between spaces can open or
 * close nothing, but what follows a run is another run's, a tag or a delimiter: `a ~` then `b` then `~ c` struck b).
 */
function escapeMarkdown(text: string): string {
  return text
    .replace(/([\\`*_[\]])/g, "\\$1")
    .replace(/~+/g, (run, at: number, all: string) => (/\S/.test(all[at - 1] ?? "x") || /\S/.test(all[at + run.length] ?? "x") ? run.replace(/~/g, "\\~") : run))
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

/** Whether `a` and `b` are code with the same marks and link: one code span (see {@link joinedCode}). */
function sameCode(a: Inline, b: Inline): boolean {
  return !!a.code && !!b.code && a.note === undefined && b.note === undefined && !a.lineBreak && !b.lineBreak && !a.bold === !b.bold && !a.italic === !b.italic && !a.strike === !b.strike && a.href === b.href;
}

/**
 * `content` with consecutive code inlines of the same marks and link joined: two code spans side by side share their
 * backticks (`` `<` `` then `` `[` `` is `` `<``[` ``, one span showing the backticks), so a code word a document
 * split into runs is written as one span.
 */
function joinedCode(content: Inline[]): Inline[] {
  if (!content.some((c, i) => i > 0 && sameCode(content[i - 1]!, c))) return content;
  const out: Inline[] = [];
  for (let i = 0; i < content.length; ) {
    let j = i + 1;
    while (j < content.length && sameCode(content[j - 1]!, content[j]!)) j++;
    out.push(j === i + 1 ? content[i]! : { ...content[i]!, text: content.slice(i, j).map((c) => c.text).join("") });
    i = j;
  }
  return out;
}

/**
 * Markdown of inline content: text with its syntax escaped, links, note references, code spans and marks. A hard
 * line break is `lineBreak` (`\` and a new line in a paragraph; a space where one line is all there is).
 */
function inlineText(inlines: Inline[], lineBreak = "\\\n"): string {
  const content = joinedCode(inlines);
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
  // A `!` right before the `[` of a link or a note reference made it an image (`Wow![site](…)` showed no "Wow!" link
  // but a picture): escaped. Found walking back, past empty runs.
  let bracketNext = false;
  for (let i = content.length - 1; i >= 0; i--) {
    const c = content[i]!;
    if (bracketNext && !c.code && c.note === undefined && pieces[i]!.endsWith("!")) pieces[i] = `${pieces[i]!.slice(0, -1)}\\!`;
    const href = target(c);
    if (c.note !== undefined || (href !== undefined && (i === 0 || target(content[i - 1]!) !== href))) bracketNext = true;
    else if (pieces[i] !== "" || href !== undefined) bracketNext = false;
  }
  let out = "";
  /** The last two characters of `out` (slicing `out` itself for them copied it at every link: quadratic). */
  let tail = "";
  for (let i = 0; i < content.length; ) {
    const href = target(content[i]!);
    let j = i + 1;
    while (j < content.length && target(content[j]!) === href) j++;
    // A link's text is read between its brackets; text outside links up to the next link's `[`.
    const before = href ? "[" : tail;
    const after = href ? "]" : j < content.length ? "[" : "";
    const inner = marksMarkdown(pieces, content, i, j, before, after);
    const written = href ? `[${inner}](${linkTarget(href)})` : inner;
    out += written;
    tail = written.length >= 2 ? written.slice(-2) : (tail + written).slice(-2);
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
 * list right after another of its kind would otherwise join it, blank line or not. An item numbered in letters or
 * roman numerals is a bullet whose text starts with its label (`- b. Terms`, `- iv. Fees`): markdown numbers only in
 * digits, and `2.` in place of the document's `b.` would misname the item its text refers to. The label is the
 * document's own where the reader has it, else its number in the format, by the document's rule for letters past z
 * ({@link listLabel}); one that falls back to digits has its dot escaped (`- 0\. Zero`: `- 0. Zero` was a list in
 * the bullet).
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
      const { ordered: numbered, number, format } = kinds[i]!;
      const top = alternate && depth === 0;
      const marker = numbered && !format ? `${number}${top ? ")" : "."}` : top ? "*" : "-";
      columns[depth] = indent + marker.length + 1;
      const label = format ? itemLabel(it.label ?? listLabel(number, format, it.letterSync)) : "";
      return `${" ".repeat(indent)}${marker} ${label}${inlineMarkdown(it.content, false, true)}`;
    })
    .join("\n");
}

/** A lettered item's label and its `. `, the dot escaped where the label is digits, which would read as a list marker. */
function itemLabel(label: string): string {
  return /^\d+$/.test(label) ? `${label}\\. ` : `${escapeMarkdown(label)}. `;
}

/** Whether a list block's first item is written with a digit marker (`1.`), not a bullet (`-`, a lettered item's too). */
function digitMarker(block: Block | undefined): boolean | undefined {
  if (block?.kind !== "list" || !block.items[0]) return undefined;
  const first = block.items[0];
  return itemOrdered(first, 0, block.ordered) && !first.format;
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
        alternate = before?.kind === "list" && digitMarker(before) === digitMarker(block) ? !alternate : false;
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
