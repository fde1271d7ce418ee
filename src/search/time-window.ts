/**
 * @module search/time-window
 * `tbs` time filters (Google's `qdr:<unit>[<n>]`: `n` minutes, `h` hours, `d` days, `w` weeks, `m` months, `y` years;
 * `qdr:h6` is the last six hours) as what SearXNG can do and what crawlbox does after it. SearXNG's finest
 * `time_range` is a day, so a shorter window asks for the last day and then drops the results whose
 * `publishedDate` is older than the window. Results without a date are kept: nothing says they are old.
 */
import type { BackendHit, BackendQuery } from "./searxng.ts";

/** A month is an average one (30.44 days), so twelve of them fit the year, as `qdr:m12` means. */
const UNIT_MS = { n: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30.4375 * 86_400_000, y: 366 * 86_400_000 } as const;

/** A time filter: SearXNG's range (undefined: none fits, search everything) and the oldest date a result may have. */
export interface TimeWindow {
  timeRange: BackendQuery["timeRange"];
  /** Epoch ms: a result published before it is dropped. */
  notBeforeMs: number;
}

/** The window `tbs` asks for at `nowMs`; undefined when it asks for none (other `tbs` values are ignored). */
export function timeWindow(tbs: string | undefined, nowMs: number): TimeWindow | undefined {
  const m = /(?:^|,)qdr:([nhdwmy])(\d{0,4})(?:,|$)/.exec(tbs ?? "");
  if (!m) return undefined;
  const count = m[2] ? Math.max(1, Number(m[2])) : 1;
  const windowMs = count * UNIT_MS[m[1] as keyof typeof UNIT_MS];
  // The narrowest range that holds the whole window; beyond a year SearXNG is not asked to filter at all.
  const timeRange = windowMs <= UNIT_MS.d ? "day" : windowMs <= UNIT_MS.w ? "week" : windowMs <= UNIT_MS.m ? "month" : windowMs <= UNIT_MS.y ? "year" : undefined;
  return { timeRange, notBeforeMs: nowMs - windowMs };
}

/** Whether `hit` may be in the window: published within it, or of unknown date. */
export function withinWindow(hit: BackendHit, window: TimeWindow | undefined): boolean {
  if (!window || !hit.publishedDate) return true;
  const published = Date.parse(hit.publishedDate);
  return Number.isNaN(published) || published >= window.notBeforeMs;
}
