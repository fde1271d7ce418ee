/**
 * @module scrape/parse-workers/pool-contract
 * What the callers of the parse pool (pool.ts) see: its interface, its counters, the two errors it rejects with, and
 * how a worker's answer is read as the kind of answer asked for. Kept apart from the pool's bookkeeping of workers
 * and jobs, which no caller needs to read to use it.
 */
import type { MapPage } from "../../crawl/map-page.ts";
import type { PrefilledViews } from "../render-context.ts";
import { unpackMapPage, type MapPageRequest, type ParseAnswer, type ParseRequest } from "./protocol.ts";

/** Counters for `/health` and tests. */
export interface ParsePoolStats {
  size: number;
  live: number;
  /** Pages a worker computed: a scrape's views, or a map's reading of a page (crawl/map-page-offload.ts). */
  offloaded: number;
  /** Pages (a scrape's or a map's) a worker failed (crash, exit or error), read on the main thread instead. */
  failed: number;
  /**
   * Pages (a scrape's or a map's) still parsing, or waiting for a worker, at their deadline; a worker parsing one was
   * stopped. A map's page given up at the map's abort is not counted.
   */
  timedOut: number;
  /** True once `MAX_CRASHES_IN_A_ROW` (pool.ts) crashes turned the pool off. */
  disabled: boolean;
}

/** Computes parsed views off the main thread. */
export interface ParsePool {
  /**
   * Whether a page of `chars` characters should go to a worker now, with `othersInFlight` other scrapes running;
   * true only when a worker has room for it. A large page, or one matched against the caller's selectors
   * (`selectors`, see placement.ts `matchesCallerSelectors`), always goes.
   */
  shouldOffload(chars: number, othersInFlight: number, selectors?: boolean): boolean;
  /**
   * The views of one page. Rejects with {@link ParseTimeoutError} when the page is still parsing at `deadline`
   * (epoch ms), and with {@link ParseWorkerError} when the worker fails (parse on the main thread then).
   */
  compute(request: Omit<ParseRequest, "id">, deadline?: number): Promise<PrefilledViews>;
  /**
   * A map's reading of one page (crawl/map-page.ts `readMapPage`), rejecting as {@link compute} does, and with
   * `signal`'s reason when it aborts first (the worker is then stopped if it was parsing the page). Optional: a pool
   * without it (a test's stand-in) leaves map pages on the main thread.
   */
  readMapPage?(request: Omit<MapPageRequest, "id" | "kind">, deadline?: number, signal?: AbortSignal): Promise<MapPage>;
  /** Whether a page sent now would be parsed at once (a worker is free or can be started). Optional as `readMapPage`. */
  hasIdleWorker?(): boolean;
  stats(): ParsePoolStats;
  /** Terminates the workers and fails their jobs. */
  close(): Promise<void>;
}

/** A worker could not compute a page: parse it on the main thread. */
export class ParseWorkerError extends Error {}

/** A page was still parsing at its scrape's deadline; its worker was stopped. */
export class ParseTimeoutError extends Error {}

/** The views of a worker's answer; an answer of another kind is the worker's failure. */
export function viewsOf(answer: ParseAnswer): PrefilledViews {
  if ("views" in answer) return answer.views;
  throw new ParseWorkerError("parse worker answered a views request without views");
}

/** The map page of a worker's answer; an answer of another kind is the worker's failure. */
export function mapPageOf(answer: ParseAnswer): MapPage {
  if ("mapPage" in answer) return unpackMapPage(answer.mapPage);
  throw new ParseWorkerError("parse worker answered a map page request without a map page");
}

