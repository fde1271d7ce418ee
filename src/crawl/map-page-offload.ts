/**
 * @module crawl/map-page-offload
 * Where a map reads a fetched page (crawl/map-discovery.ts): a large one on a parse worker
 * (scrape/parse-workers/pool.ts), a small one here.
 *
 * Parsing is one synchronous step: an 8 MB page of 300,000 links held the event loop 0.45–0.65 s on the main thread,
 * and `/health` and every other request with it. So a page of at least `LARGE_PAGE_CHARS` (the scrape's threshold,
 * 1 Mi characters, ~40 ms of parsing) goes to a worker, which runs the same {@link readMapPage}, so the title,
 * description and links are the same, in the same order. A smaller page stays here: handing it over would cost more
 * than it saves. Unlike the main thread, a worker can be stopped: a page still parsing when the map's time for it
 * ends (or when the map answers) has its worker terminated, and the page counts as not read in time. A worker that
 * fails the page (a crash, a pool turned off) is not the page's failure: the page is then read here, which gives the
 * page's own error if it has one. A page whose time has ended already is not sent (nor read). The start page waits for
 * no worker: when none is free it is read here, as every page was before workers read them, rather than queued
 * behind other pages and perhaps not read in time.
 */
import { ParseTimeoutError, type ParsePool } from "../scrape/parse-workers/pool.ts";
import { readMapPage, type MapPage } from "./map-page.ts";

/** How a map page may be read. */
export interface MapPageReading {
  /** The parse workers; without them (or without `readMapPage`) every page is read on the main thread. */
  pool?: Pick<ParsePool, "shouldOffload" | "readMapPage" | "hasIdleWorker">;
  /** `performance.now()` time by which a page read on a worker must be read; Infinity: no limit. */
  endAt: number;
  /** The map's signal: a page being read when it aborts has its worker stopped, and the abort is thrown. */
  signal: AbortSignal;
  /** Whether the page may wait for a busy worker; false: read here unless a worker is free now. @default true */
  mayWait?: boolean;
}

/**
 * The title, description and links of the HTML page served from `pageUrl` (its final URL), as {@link readMapPage}
 * gives them; undefined when a worker was still reading it at `endAt`, or `endAt` had passed before it was sent.
 */
export async function readMapPageInTime(html: string, pageUrl: string, reading: MapPageReading): Promise<MapPage | undefined> {
  const { pool, endAt, signal, mayWait = true } = reading;
  // No other page competes with it (othersInFlight 0): only a large page goes, as a lone scrape's does.
  if (!pool?.readMapPage || !pool.shouldOffload(html.length, 0)) return readMapPage(html, pageUrl);
  if (!mayWait && pool.hasIdleWorker?.() === false) return readMapPage(html, pageUrl);
  const leftMs = endAt - performance.now();
  if (leftMs <= 0) return undefined; // starting a worker only to stop it at once
  const deadline = Number.isFinite(endAt) ? Date.now() + leftMs : undefined;
  try {
    return await pool.readMapPage({ html, pageUrl }, deadline, signal);
  } catch (err) {
    signal.throwIfAborted();
    if (err instanceof ParseTimeoutError) return undefined;
    return readMapPage(html, pageUrl);
  }
}
