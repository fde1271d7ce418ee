/**
 * @module documents/layout/furniture
 * Drops page furniture: running headers and footers that repeat on many pages (digits ignored, so "Page 3" and
 * "Page 4" match), and bare page numbers in the top or bottom margin.
 */
import type { PageText } from "./model.ts";

/** Share of the page height, from the top and from the bottom, where furniture lives. */
const MARGIN_SHARE = 0.1;
/** A line repeated on at least this share of the pages (and on two pages at least) is furniture. */
const REPEAT_SHARE = 0.5;
const PAGE_NUMBER = /^(page|p\.|seite|pagina|página)?\s*[-–]?\s*\d{1,5}\s*[-–]?\s*((of|\/|von|de)\s*\d{1,5})?$/i;

function inMargin(y0: number, y1: number, height: number): boolean {
  return y1 <= height * MARGIN_SHARE || y0 >= height * (1 - MARGIN_SHARE);
}

function key(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

/** Returns the pages without their running headers, footers and page numbers. */
export function removeFurniture(pages: PageText[]): PageText[] {
  const counts = new Map<string, number>();
  for (const page of pages) {
    const seen = new Set<string>();
    for (const l of page.lines) if (inMargin(l.y0, l.y1, page.height)) seen.add(key(l.text));
    for (const k of seen) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const threshold = Math.max(2, Math.ceil(pages.length * REPEAT_SHARE));
  return pages.map((page) => ({
    ...page,
    lines: page.lines.filter((l) => {
      if (!inMargin(l.y0, l.y1, page.height)) return true;
      const text = l.text.trim();
      if (PAGE_NUMBER.test(text)) return false;
      return pages.length < 2 || (counts.get(key(text)) ?? 0) < threshold;
    }),
  }));
}
