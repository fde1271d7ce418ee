/**
 * @module scrape/parse-workers/placement
 * Which parse worker a page goes to, if any (scrape/parse-workers/pool.ts runs the workers): the thresholds that
 * send a page to a worker, how many pages a worker may hold, and the choice of worker. Apart from the pool so that
 * the placement rules can be read (and changed) without the workers' life cycle around them; every function here is
 * pure over the pool's slots.
 */
import { requestedAttributeSelectors } from "../../pipeline/attributes.ts";
import type { ParseAnswer, ViewOptions, WorkerRequest } from "./protocol.ts";

/**
 * Pages at least this many characters long always go to a worker, without concurrency too and queued behind other
 * pages when every worker is busy: ~40+ ms of parsing (seconds for pages of several MB), which on the main thread
 * would hold up every other request (four 20 MB pages held `/health` 4–10 s when some of them were parsed here). Below it a lone page is parsed here: on a worker it was slower (measured on
 * 256–450 Ki-character article pages: +20 %, ~2.5 ms a page, mostly the worker taking in the large string, and
 * +0.2–0.4 ms at the p50 of the small requests that followed; docs/benchmarks.md).
 */
export const LARGE_PAGE_CHARS = 1024 * 1024;

/**
 * Jobs a worker may hold: the one it parses and one waiting, so that it never idles between two pages while the
 * main thread is busy. Beyond that the main thread parses the page itself. Measured at concurrency 4 on 2 cores
 * (docs/benchmarks.md): 1 (free workers only) gained ~20 % pages/s over no workers, 2 gained ~35–40 %.
 */
export const MAX_JOBS_PER_WORKER = 2;

/**
 * A small page waits behind another on a worker only if that one is shorter than this (characters): ~40 ms of
 * parsing at most. Behind a longer page (up to `CRAWLBOX_MAX_PAGE_BYTES`, seconds of work) the main thread is quicker
 * for it. A large page ({@link LARGE_PAGE_CHARS}) waits behind anything.
 */
export const QUEUE_BEHIND_MAX_CHARS = 1024 * 1024;

/**
 * Whether a page's views match the caller's CSS selectors (`includeTags`/`excludeTags`, the `attributes` format's
 * selectors). Such a page always goes to a worker, as a large one does: the caller chooses the selectors and the
 * page, and some selectors cost seconds on a small page (the descendant chains and sibling tests that did are
 * linear since css-select and linkedom were patched, scripts/patches; `:has()` and the like are not:
 * `div:has(~ div:has(~ span))` took 7.8 s on an 11 kB page of 1,000 sibling <div>, holding `/health` as long),
 * while only a worker can be stopped at the scrape's deadline. Like a large page it is queued if need be, and no
 * small page waits behind it.
 */
export function matchesCallerSelectors(options: Partial<Pick<ViewOptions, "includeTags" | "excludeTags" | "formats">>): boolean {
  return (options.includeTags?.length ?? 0) > 0 || (options.excludeTags?.length ?? 0) > 0 || requestedAttributeSelectors(options.formats).length > 0;
}

/** A page sent to a worker. */
export interface Job {
  id: number;
  chars: number;
  /** Its views match the caller's selectors: it may take until its deadline. */
  selectors: boolean;
  /** The worker holding it now (another one once its first worker was stopped for another page). */
  slot: Slot;
  /** What was posted, kept to post it again to a fresh worker; cleared once the job is dropped. */
  message?: WorkerRequest;
  /**
   * Its caller gave up while it waited (deadline or abort) and was told so; the worker will still parse it, so it
   * stays on the worker's books, and counts for placement, until its answer comes back (then ignored).
   */
  dropped?: boolean;
  /** Epoch ms at which its caller stops waiting for it, if any. */
  deadline?: number;
  resolve(answer: ParseAnswer): void;
  reject(err: Error): void;
  timer?: ReturnType<typeof setTimeout>;
  /** Stops listening to the caller's signal. */
  detach?: () => void;
}

/** A worker and the jobs it holds, in the order it parses them: the first is the one it is on. */
export interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  dead: boolean;
}

/** The thresholds of one pool (tests lower them). */
export interface PlacementLimits {
  /** Workers the pool may run. */
  size: number;
  largePageChars: number;
  queueBehindMaxChars: number;
}

/**
 * Whether a worker takes another page: while it holds fewer than the maximum and none of its pages is very large
 * or matched against the caller's selectors.
 */
export const hasRoom = (s: Slot, limits: PlacementLimits): boolean =>
  s.jobs.size === 0 || (s.jobs.size < MAX_JOBS_PER_WORKER && [...s.jobs.values()].every((j) => j.chars < limits.queueBehindMaxChars && !j.selectors));

/** A page that always goes to a worker, queued if need be: a large one, or one matched against the caller's selectors. */
export const mustOffload = (chars: number, selectors: boolean, limits: PlacementLimits): boolean => chars >= limits.largePageChars || selectors;

/**
 * The worker for the next page: a free one, else a new one (`"spawn"`) while the pool may grow, else one with room;
 * for a large page, else the one with the fewest pages. Undefined: none can take it.
 */
export function pick(slots: readonly Slot[], large: boolean, limits: PlacementLimits): Slot | "spawn" | undefined {
  const free = slots.find((s) => s.jobs.size === 0);
  if (free) return free;
  if (slots.length < limits.size) return "spawn";
  const roomy = slots.find((s) => hasRoom(s, limits));
  if (roomy || !large) return roomy;
  return slots.reduce<Slot | undefined>((best, s) => (!best || s.jobs.size < best.jobs.size ? s : best), undefined);
}

/** Whether a page sent now would be parsed at once: a worker holds nothing, or one can be started. */
export const hasIdleWorker = (slots: readonly Slot[], limits: PlacementLimits): boolean => slots.length < limits.size || slots.some((s) => s.jobs.size === 0);
