/**
 * @module documents/office/doc-fkp
 * The formatted disk pages (FKPs, [MS-DOC] 2.9.62/2.9.63) a DOC's bin table names: 512-byte pages of the WordDocument
 * stream holding character (CHPX) or paragraph (PAPX) runs. The character and paragraph readers walk them the same
 * way, with the same guards against a crafted table, and look their runs up the same way.
 */
import type { Fib } from "./doc-text.ts";

/** One FKP: its bytes, a view of them, its run count and where it starts in the stream. */
export interface FkpPage {
  page: Uint8Array;
  view: DataView;
  crun: number;
  streamOffset: number;
}

/**
 * The FKPs the bin table at FIB pair `pair` names, each once and in table order (a crafted table naming one page
 * 400,000 times made 29 runs each time, 2.3 GB), whole 512-byte pages only, whose `crun` run entries of
 * `entryBytes` bytes (1 for CHPX, 13 for PAPX) fit the page.
 */
export function* fkpPages(word: Uint8Array, fib: Fib, pair: number, entryBytes: number): Generator<FkpPage> {
  const { fc, lcb } = fib.pair(pair);
  const t = fib.table;
  if (lcb < 12 || fc + lcb > t.length) return;
  const v = new DataView(t.buffer, t.byteOffset + fc, lcb);
  const n = Math.floor((lcb - 4) / 8);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const pn = v.getUint32((n + 1) * 4 + i * 4, true) & 0x3fffff;
    if (seen.has(pn)) continue;
    seen.add(pn);
    const page = word.subarray(pn * 512, pn * 512 + 512);
    if (page.length < 512) continue;
    const crun = page[511]!;
    if (4 * (crun + 1) + entryBytes * crun > 511) continue;
    yield { page, view: new DataView(page.buffer, page.byteOffset, 512), crun, streamOffset: pn * 512 };
  }
}

/**
 * The index of the run (sorted by `start`, not overlapping) holding stream offset `fc`, or -1: how the character and
 * paragraph readers look up the properties of a character or a paragraph mark.
 */
export function runIndexAt(runs: readonly { start: number; end: number }[], fc: number): number {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = runs[mid]!;
    if (fc < r.start) hi = mid - 1;
    else if (fc >= r.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}
