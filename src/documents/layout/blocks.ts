/**
 * @module documents/layout/blocks
 * Lines in reading order → typed blocks: headings (from font size and weight relative to the body text),
 * paragraphs (lines joined, hyphenation at line ends repaired, ends found by documents/layout/paragraphs.ts),
 * bulleted and numbered lists (nesting by indent), code blocks (documents/layout/code.ts) and simple tables (rows
 * of cells separated by wide gaps with the same number of cells).
 */
import { codeBlockEnd, codeText } from "./code.ts";
import type { Block, PageText } from "./model.ts";
import { type OpenParagraph, startsParagraph } from "./paragraphs.ts";
import { readingOrder } from "./reading-order.ts";
import { normalPitches, type Row, sizeKey, toRows } from "./rows.ts";
import { joinSpans, sliceSpan, type Span, spanInline, trimSpan } from "./spans.ts";

export { joinLines } from "./spans.ts";

/** A size at least this much larger than the body text makes a heading. */
export const HEADING_RATIO = 1.15;
/** A bold line shorter than this (characters) on its own is a heading. */
const BOLD_HEADING_MAX_CHARS = 90;
/** Vertical gap (in font sizes) that ends a paragraph whatever the line pitch. */
const PARAGRAPH_GAP_EM = 0.75;

const BULLET = /^\s*([•●○◦▪▫■□‣⁃∙·*–-])\s+/;
const ORDERED = /^\s*(\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])\s+/i;
/** A capital and a full stop: an item marker, or an initial that a line wrapped before ("then Portal / B. More"). */
const INITIAL = /^[A-Z]\.\s/;

/** The most common font size, weighted by characters: the body text. */
export function bodySize(pages: PageText[]): number {
  const weight = new Map<number, number>();
  for (const p of pages) for (const l of p.lines) weight.set(sizeKey(l.size), (weight.get(sizeKey(l.size)) ?? 0) + l.text.length);
  let best = 11;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

/** Heading sizes (larger than the body), largest first; index + 1 is the heading level. */
function headingSizes(pages: PageText[], body: number): number[] {
  const sizes = new Set<number>();
  for (const p of pages) for (const l of p.lines) if (l.size >= body * HEADING_RATIO && l.text.trim().length > 0) sizes.add(sizeKey(l.size));
  return [...sizes].sort((a, b) => b - a).slice(0, 5);
}

interface Builder {
  blocks: Block[];
  open?: OpenParagraph & { kind: "paragraph" | "heading" | "listItem"; span: Span; level?: number; depth?: number; ordered?: boolean };
  listIndent: number[];
}

function closeOpen(b: Builder) {
  const o = b.open;
  if (!o) return;
  b.open = undefined;
  const content = spanInline(trimSpan(o.span));
  if (o.kind === "heading") b.blocks.push({ kind: "heading", level: o.level!, content });
  else if (o.kind === "paragraph") b.blocks.push({ kind: "paragraph", content });
  else {
    const last = b.blocks[b.blocks.length - 1];
    const item = { depth: o.depth!, content };
    if (last?.kind === "list" && (last.ordered === o.ordered || o.depth! > 0)) last.items.push(item);
    else b.blocks.push({ kind: "list", ordered: o.ordered!, items: [item] });
  }
}

/** Opens a block of `kind` with `span` (the row's text, or what follows its list marker). */
function open(b: Builder, kind: "paragraph" | "heading" | "listItem", row: Row, span: Span, extra: { level?: number; depth?: number; ordered?: boolean } = {}) {
  closeOpen(b);
  // A copy: the open block's span grows in place (spans.ts, joinSpans).
  const own = trimSpan(span);
  b.open = { kind, span: { text: own.text, links: [...own.links] }, first: row, last: row, lines: 1, minX0: row.x0, maxX1: row.x1, ...extra };
}

/** Adds `row` to the open block as its next line. */
function extend(o: NonNullable<Builder["open"]>, row: Row) {
  o.span = joinSpans(o.span, row.span, true);
  o.last = row;
  o.lines++;
  o.minX0 = Math.min(o.minX0, row.x0);
  o.maxX1 = Math.max(o.maxX1, row.x1);
}

function isTableRow(row: Row): boolean {
  return row.cells.length >= 2;
}

/**
 * Converts pages into blocks. `pageMarkers` inserts a marker block between pages (and before the first too with
 * `markFirstPage`, for splitting the blocks by page); paragraphs then do not run on across a page break.
 */
export function layoutBlocks(pages: PageText[], options: { pageMarkers?: boolean; markFirstPage?: boolean } = {}): Block[] {
  const body = bodySize(pages);
  const hSizes = headingSizes(pages, body);
  const b: Builder = { blocks: [], listIndent: [] };
  const streams = pages.map((page) => readingOrder(page.lines, page.width).map((stream) => toRows(stream, true)));
  normalPitches(streams.flat());

  pages.forEach((page, p) => {
    if (options.pageMarkers && (options.markFirstPage || p > 0)) {
      closeOpen(b);
      b.blocks.push({ kind: "pageMarker", page: page.number });
    }
    const rows = streams[p]!.flat();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!row.text.trim()) continue;
      const sizeLevel = hSizes.indexOf(sizeKey(row.size));
      // Code: consecutive monospace rows (not of a heading's size), whatever their cells.
      const codeEnd = sizeLevel < 0 ? codeBlockEnd(rows, i) : -1;
      if (codeEnd >= 0) {
        closeOpen(b);
        b.blocks.push({ kind: "code", text: codeText(rows.slice(i, codeEnd + 1)) });
        i = codeEnd;
        continue;
      }
      // Tables: two or more consecutive rows with the same number (≥ 2) of widely separated cells.
      if (isTableRow(row)) {
        let j = i;
        while (j + 1 < rows.length && isTableRow(rows[j + 1]!) && rows[j + 1]!.cells.length === row.cells.length && rows[j + 1]!.y0 - rows[j]!.y1 < 2.5 * row.size) j++;
        if (j > i) {
          closeOpen(b);
          b.blocks.push({ kind: "table", rows: rows.slice(i, j + 1).map((r) => r.cells.map((c) => spanInline(trimSpan(c.span)))) });
          i = j;
          continue;
        }
      }
      let headingLevel = 0;
      if (sizeLevel >= 0) headingLevel = sizeLevel + 1;
      else if (row.bold && row.text.length <= BOLD_HEADING_MAX_CHARS && !BULLET.test(row.text) && !/[.:,;]$/.test(row.text.trim())) headingLevel = Math.min(6, hSizes.length + 1);

      const o = b.open;
      const gap = o ? row.y0 - o.last.y1 : Infinity;
      const sameStyle = o ? Math.abs(o.last.size - row.size) < 0.15 * row.size && o.last.bold === row.bold : false;
      const crossesStream = row.streamStart && o !== undefined;
      const continues =
        o !== undefined &&
        sameStyle &&
        (crossesStream ? !/[.!?:]$/.test(o.span.text.trim()) && /^[a-z]/.test(row.text.trim()) : gap >= -row.size && gap < PARAGRAPH_GAP_EM * row.size);

      if (headingLevel > 0) {
        if (o?.kind === "heading" && o.level === headingLevel && continues) {
          extend(o, row);
          continue;
        }
        open(b, "heading", row, row.span, { level: headingLevel });
        continue;
      }

      // A paragraph runs on unless a sign of a new one is there (a line wrapped before an initial is no list item).
      const runsOn = o?.kind === "paragraph" && continues && (crossesStream || !startsParagraph(o, row));
      const bullet = BULLET.exec(row.text);
      const ordered = bullet || (runsOn && INITIAL.test(row.text) && !/[.!?:]$/.test(o!.span.text.trim())) ? undefined : ORDERED.exec(row.text);
      if (bullet || ordered) {
        closeOpen(b);
        const prev = b.blocks[b.blocks.length - 1];
        if (prev?.kind !== "list") b.listIndent = [];
        let depth = b.listIndent.findIndex((x) => Math.abs(x - row.x0) < 6);
        if (depth < 0) {
          b.listIndent = b.listIndent.filter((x) => x < row.x0);
          b.listIndent.push(row.x0);
          depth = b.listIndent.length - 1;
        }
        const marker = (bullet ?? ordered)![0].length;
        open(b, "listItem", row, sliceSpan(row.span, marker), { depth, ordered: !!ordered });
        continue;
      }

      if (o && (runsOn || (o.kind === "listItem" && row.x0 > (b.listIndent[o.depth!] ?? 0) + 2 && continues))) {
        extend(o, row);
        continue;
      }
      open(b, "paragraph", row, row.span);
    }
  });
  closeOpen(b);
  return b.blocks;
}
