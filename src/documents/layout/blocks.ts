/**
 * @module documents/layout/blocks
 * Lines in reading order → typed blocks: headings (from font size and weight relative to the body text),
 * paragraphs (lines joined, hyphenation at line ends repaired), bulleted and numbered lists (nesting by indent),
 * and simple tables (rows of cells separated by wide gaps with the same number of cells).
 */
import type { Block, Inline, PageText, TextLine } from "./model.ts";
import { readingOrder } from "./reading-order.ts";

/** A size at least this much larger than the body text makes a heading. */
const HEADING_RATIO = 1.15;
/** A bold line shorter than this (characters) on its own is a heading. */
const BOLD_HEADING_MAX_CHARS = 90;
/** Horizontal gap (in font sizes) that separates table cells rather than words. */
const CELL_GAP_EM = 1.2;
/** Vertical gap (in font sizes) that ends a paragraph. */
const PARAGRAPH_GAP_EM = 0.75;

const BULLET = /^\s*([•●○◦▪▫■□‣⁃∙·*–-])\s+/;
const ORDERED = /^\s*(\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])\s+/i;

/** One visual row: lines on the same baseline. */
interface Row {
  cells: TextLine[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  size: number;
  bold: boolean;
  text: string;
  links: { text: string; uri: string }[];
  /** First row of a stream (column or region). */
  streamStart: boolean;
}

function toRows(stream: TextLine[], streamStart: boolean): Row[] {
  const rows: Row[] = [];
  for (const line of stream) {
    const last = rows[rows.length - 1];
    const mid = (line.y0 + line.y1) / 2;
    if (last && mid > last.y0 && mid < last.y1 && Math.abs((last.y0 + last.y1) / 2 - mid) < (line.y1 - line.y0) * 0.5) {
      last.cells.push(line);
    } else {
      rows.push({ cells: [line], x0: 0, y0: line.y0, x1: 0, y1: line.y1, size: 0, bold: false, text: "", links: [], streamStart: streamStart && rows.length === 0 });
    }
  }
  for (const row of rows) {
    row.cells.sort((a, b) => a.x0 - b.x0);
    // Cells closer than a table gap are parts of one line of text.
    const merged: TextLine[] = [];
    for (const c of row.cells) {
      const prev = merged[merged.length - 1];
      if (prev && c.x0 - prev.x1 < CELL_GAP_EM * Math.max(prev.size, c.size)) {
        merged[merged.length - 1] = { ...prev, x1: Math.max(prev.x1, c.x1), text: `${prev.text.trimEnd()} ${c.text.trimStart()}`, links: [...(prev.links ?? []), ...(c.links ?? [])], bold: prev.bold && c.bold };
      } else merged.push(c);
    }
    row.cells = merged;
    // A loop, not Math.min(...cells): a row of a million cells passes the engine's argument limit (RangeError).
    row.x0 = row.y0 = Infinity;
    row.x1 = row.y1 = row.size = -Infinity;
    for (const c of merged) {
      row.x0 = Math.min(row.x0, c.x0);
      row.x1 = Math.max(row.x1, c.x1);
      row.y0 = Math.min(row.y0, c.y0);
      row.y1 = Math.max(row.y1, c.y1);
      row.size = Math.max(row.size, c.size);
    }
    row.bold = merged.every((c) => c.bold);
    row.text = merged.map((c) => c.text.trim()).join(" ");
    row.links = merged.flatMap((c) => c.links ?? []);
  }
  return rows;
}

/** The most common font size, weighted by characters: the body text. */
export function bodySize(pages: PageText[]): number {
  const weight = new Map<number, number>();
  for (const p of pages) for (const l of p.lines) weight.set(Math.round(l.size * 2) / 2, (weight.get(Math.round(l.size * 2) / 2) ?? 0) + l.text.length);
  let best = 11;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

/** Heading sizes (larger than the body), largest first; index + 1 is the heading level. */
function headingSizes(pages: PageText[], body: number): number[] {
  const sizes = new Set<number>();
  for (const p of pages) for (const l of p.lines) if (l.size >= body * HEADING_RATIO && l.text.trim().length > 0) sizes.add(Math.round(l.size * 2) / 2);
  return [...sizes].sort((a, b) => b - a).slice(0, 5);
}

/** Inline content of `text`, with the row's links applied to the first occurrence of each link text. */
function inline(text: string, links: { text: string; uri: string }[]): Inline[] {
  let parts: Inline[] = [{ text }];
  for (const link of links) {
    const t = link.text.trim();
    if (!t) continue;
    const next: Inline[] = [];
    let done = false;
    for (const part of parts) {
      const at = done || part.href ? -1 : part.text.indexOf(t);
      if (at < 0) {
        next.push(part);
        continue;
      }
      if (at > 0) next.push({ text: part.text.slice(0, at) });
      next.push({ text: t, href: link.uri });
      if (at + t.length < part.text.length) next.push({ text: part.text.slice(at + t.length) });
      done = true;
    }
    parts = next;
  }
  return parts;
}

/** Joins two lines of a paragraph: a hyphen at the end of a line before a lower-case letter is a hyphenation. */
export function joinLines(a: string, b: string): string {
  const left = a.trimEnd();
  const right = b.trimStart();
  if (left.endsWith("\u00ad")) return left.slice(0, -1) + right;
  if (/[A-Za-zÀ-ÿ]-$/.test(left) && /^[a-zà-ÿ]/.test(right)) return left.slice(0, -1) + right;
  if (left === "") return right;
  return `${left} ${right}`;
}

interface Builder {
  blocks: Block[];
  open?: { kind: "paragraph" | "heading" | "listItem"; text: string; links: Row["links"]; last: Row; level?: number; depth?: number; ordered?: boolean };
  listIndent: number[];
}

function closeOpen(b: Builder) {
  const o = b.open;
  if (!o) return;
  b.open = undefined;
  const content = inline(o.text, o.links);
  if (o.kind === "heading") b.blocks.push({ kind: "heading", level: o.level!, content });
  else if (o.kind === "paragraph") b.blocks.push({ kind: "paragraph", content });
  else {
    const last = b.blocks[b.blocks.length - 1];
    const item = { depth: o.depth!, content };
    if (last?.kind === "list" && (last.ordered === o.ordered || o.depth! > 0)) last.items.push(item);
    else b.blocks.push({ kind: "list", ordered: o.ordered!, items: [item] });
  }
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

  for (const page of pages) {
    if (options.pageMarkers && (options.markFirstPage || page !== pages[0])) {
      closeOpen(b);
      b.blocks.push({ kind: "pageMarker", page: page.number });
    }
    const rows = readingOrder(page.lines, page.width).flatMap((stream) => toRows(stream, true));
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!row.text.trim()) continue;
      // Tables: two or more consecutive rows with the same number (≥ 2) of widely separated cells.
      if (isTableRow(row)) {
        let j = i;
        while (j + 1 < rows.length && isTableRow(rows[j + 1]!) && rows[j + 1]!.cells.length === row.cells.length && rows[j + 1]!.y0 - rows[j]!.y1 < 2.5 * row.size) j++;
        if (j > i) {
          closeOpen(b);
          b.blocks.push({ kind: "table", rows: rows.slice(i, j + 1).map((r) => r.cells.map((c) => inline(c.text.trim(), c.links ?? []))) });
          i = j;
          continue;
        }
      }
      const sizeKey = Math.round(row.size * 2) / 2;
      const sizeLevel = hSizes.indexOf(sizeKey);
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
        (crossesStream ? !/[.!?:]$/.test(o.text.trim()) && /^[a-z]/.test(row.text.trim()) : gap >= -row.size && gap < PARAGRAPH_GAP_EM * row.size);

      if (headingLevel > 0) {
        if (o?.kind === "heading" && o.level === headingLevel && continues) {
          o.text = joinLines(o.text, row.text);
          o.links.push(...row.links);
          o.last = row;
          continue;
        }
        closeOpen(b);
        b.open = { kind: "heading", level: headingLevel, text: row.text.trim(), links: [...row.links], last: row };
        continue;
      }

      const bullet = BULLET.exec(row.text);
      const ordered = bullet ? undefined : ORDERED.exec(row.text);
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
        const text = bullet ? row.text.slice(bullet[0].length) : row.text.slice(ordered![0].length);
        b.open = { kind: "listItem", text, links: [...row.links], last: row, depth, ordered: !!ordered };
        continue;
      }

      if (o && (o.kind === "paragraph" || (o.kind === "listItem" && row.x0 > (b.listIndent[o.depth!] ?? 0) + 2)) && continues) {
        o.text = joinLines(o.text, row.text);
        o.links.push(...row.links);
        o.last = row;
        continue;
      }
      closeOpen(b);
      b.open = { kind: "paragraph", text: row.text.trim(), links: [...row.links], last: row };
    }
  }
  closeOpen(b);
  return b.blocks;
}
