/**
 * @module documents/layout/furniture
 * Drops page furniture from the top and bottom margins: running headers and footers, and page numbers.
 *
 * The margin's lines are taken a baseline at a time (a "row": a footer's left and right parts, or a table row's
 * cells), never one line alone, so a table's cell is judged with its row. A row is furniture when
 * - it repeats in the same margin on many pages: the same text, or the same text but for one number that tracks the
 *   page number ("Page 3 of 9", "Page 4 of 9"). Other numbers must match: "Chapter 1" … "Chapter 6", or a table
 *   row continued from page to page, are content. A heading-sized row counts only when identical on every page,
 *   since a chapter heading at each page's top looks like a running header that tracks the page otherwise;
 * - or it is a page number: a number alone on its baseline, the outermost row of its margin (after the running
 *   headers and footers), whose value is the page's number, or is the page's number plus an offset that other pages'
 *   numbers in that margin share. A bare number is judged so even when it tracks the page on every page (a count
 *   above the page number is content). A labelled one ("Page 3", "3 of 9") needs only to be alone on its baseline.
 * Before, any line that was only a number in either margin went (the cell `736` of a table row at the foot of a
 * page), and digits were ignored when comparing headers, so six `# Chapter N` headings at the top of their pages
 * were dropped as one running header.
 */
// A row at least HEADING_RATIO times the body text is heading-sized, as the layout's headings are.
import { bodySize, HEADING_RATIO } from "./blocks.ts";
import type { PageText, TextLine } from "./model.ts";

/** Share of the page height, from the top and from the bottom, where furniture lives. */
const MARGIN_SHARE = 0.1;
/** A row repeated on at least this share of the pages (and on two pages at least) is furniture. */
const REPEAT_SHARE = 0.5;
/**
 * Numbers of a row tried as its page number (the first ones): bounds the keys a row of many numbers makes. A
 * footer's date and time use five before the page number (`Printed 24.11.2026 10:45 … Page 3 of 9`); 4 kept it.
 */
const MAX_TRACKED_NUMBERS = 12;
/** Digits of a number tried as a page number. */
const MAX_PAGE_NUMBER_DIGITS = 6;
const PAGE_NUMBER = /^(page|p\.|seite|pagina|página)?\s*[-–]?\s*(\d{1,5})\s*[-–]?\s*((of|\/|von|de)\s*\d{1,5})?$/i;

type Band = "top" | "bottom";

/** The lines of one margin sharing a baseline. */
interface Row {
  band: Band;
  lines: TextLine[];
  /** Lower-cased text with collapsed blanks, the lines joined left to right. */
  key: string;
  /** Largest font size of its lines, in points. */
  sizePt: number;
  /** When the row is one line reading as a page number: its value, and whether it is bare (no "Page", no "of M"). */
  page?: { value: number; bare: boolean };
}

function bandOf(l: TextLine, heightPt: number): Band | undefined {
  if (l.y1 <= heightPt * MARGIN_SHARE) return "top";
  if (l.y0 >= heightPt * (1 - MARGIN_SHARE)) return "bottom";
  return undefined;
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The page's margin rows, top to bottom. A line belongs to a row when its vertical middle lies within half a line
 * height of the row's first line (compared with that first line, not the last one added, so tightly set lines do
 * not chain into one row), and to the same margin. Only the margins' lines are grouped: a cell of a row that crosses
 * the margin's edge is judged without the cells above it, and is kept as a number that is not outermost (its page's
 * number lies below it) or as text that does not repeat.
 */
function marginRows(page: PageText): Row[] {
  const inMargin: { line: TextLine; band: Band }[] = [];
  for (const line of page.lines) {
    const band = bandOf(line, page.height);
    if (band) inMargin.push({ line, band });
  }
  const mid = (l: TextLine) => (l.y0 + l.y1) / 2;
  inMargin.sort((a, b) => mid(a.line) - mid(b.line));
  const groups: { lines: TextLine[]; band: Band }[] = [];
  for (const { line: l, band } of inMargin) {
    const group = groups[groups.length - 1];
    const first = group?.lines[0];
    const tolerancePt = first ? Math.max(1, Math.min(first.y1 - first.y0, l.y1 - l.y0)) / 2 : 0;
    if (group && first && group.band === band && Math.abs(mid(l) - mid(first)) <= tolerancePt) group.lines.push(l);
    else groups.push({ lines: [l], band });
  }
  const rows: Row[] = [];
  for (const { lines, band: b } of groups) {
    lines.sort((x, y) => x.x0 - y.x0);
    let sizePt = 0;
    for (const l of lines) sizePt = Math.max(sizePt, l.size);
    const key = normalize(lines.map((l) => l.text).join(" "));
    const m = lines.length === 1 ? PAGE_NUMBER.exec(key) : null;
    rows.push({ band: b, lines, key, sizePt, page: m ? { value: Number(m[2]), bare: !m[1] && !m[3] } : undefined });
  }
  return rows.filter((r) => r.key !== "");
}

/**
 * The keys a row repeats under: its text, and its text with one of its first numbers replaced by `#` and tagged with
 * that number's offset from the page number (so "page 3 of 9" on page 3 and "page 4 of 9" on page 4 share one).
 */
function trackedKeys(row: Row, pageNumber: number): string[] {
  const keys: string[] = [];
  for (const m of row.key.matchAll(/\d+/g)) {
    if (keys.length >= MAX_TRACKED_NUMBERS) break;
    if (m[0].length > MAX_PAGE_NUMBER_DIGITS) continue;
    keys.push(`${row.band}|${row.key.slice(0, m.index)}#${row.key.slice(m.index + m[0].length)}|${Number(m[0]) - pageNumber}`);
  }
  return keys;
}

/** Adds one to each key's count of pages (a key seen twice on a page counts once). */
function countPages(counts: Map<string, number>, keys: Iterable<string>): void {
  for (const k of new Set(keys)) counts.set(k, (counts.get(k) ?? 0) + 1);
}

/** Returns the pages without their running headers, footers and page numbers. */
export function removeFurniture(pages: PageText[]): PageText[] {
  const rowsByPage = pages.map(marginRows);
  const exact = new Map<string, number>();
  const tracked = new Map<string, number>();
  rowsByPage.forEach((rows, i) => {
    countPages(exact, rows.map((r) => `${r.band}|${r.key}`));
    countPages(tracked, rows.flatMap((r) => trackedKeys(r, pages[i]!.number)));
  });
  const threshold = Math.max(2, Math.ceil(pages.length * REPEAT_SHARE));
  const pagesWithText = pages.filter((p) => p.lines.length > 0).length;
  const headingSizePt = bodySize(pages) * HEADING_RATIO;
  const repeated = (row: Row, pageNumber: number): boolean => {
    if (pages.length < 2) return false;
    const count = exact.get(`${row.band}|${row.key}`) ?? 0;
    // A heading-sized row is furniture when it is on every page with text but one (a title page seldom has it).
    if (row.sizePt >= headingSizePt) return count >= Math.max(2, pagesWithText - 1);
    if (count >= threshold) return true;
    // A bare number that tracks the page is a page number only where it is the outermost row (below).
    return !row.page?.bare && trackedKeys(row, pageNumber).some((k) => (tracked.get(k) ?? 0) >= threshold);
  };

  const drop = new Set<TextLine>();
  /** Bare page numbers that are their margin's outermost row, with their band and offset from the page number. */
  const candidates: { row: Row; offsetKey: string; offset: number }[] = [];
  const offsetPages = new Map<string, number>();
  rowsByPage.forEach((rows, i) => {
    const page = pages[i]!;
    const kept = rows.filter((r) => {
      if (!repeated(r, page.number) && !(r.page && !r.page.bare)) return true;
      for (const l of r.lines) drop.add(l);
      return false;
    });
    for (const band of ["top", "bottom"] as const) {
      const inBand = kept.filter((r) => r.band === band);
      // Rows are in top-to-bottom order: the outermost is the first at the top, the last at the bottom.
      const outer = band === "top" ? inBand[0] : inBand[inBand.length - 1];
      if (!outer?.page) continue;
      const offset = outer.page.value - page.number;
      const offsetKey = `${band}|${offset}`;
      candidates.push({ row: outer, offsetKey, offset });
      countPages(offsetPages, [offsetKey]);
    }
  });
  for (const c of candidates) {
    if (c.offset === 0 || (offsetPages.get(c.offsetKey) ?? 0) >= 2) for (const l of c.row.lines) drop.add(l);
  }
  return pages.map((page) => ({ ...page, lines: page.lines.filter((l) => !drop.has(l)) }));
}
