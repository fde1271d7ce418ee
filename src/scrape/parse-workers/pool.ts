/**
 * @module scrape/parse-workers/pool
 * Parse workers: Bun Workers that compute the parsed views of HTML pages (scrape/render-context.ts) on other
 * cores, and read a map's large pages (crawl/map-page-offload.ts). Parsing, main-content scoring and markdown take ~4–5 ms of CPU for an article page (far more for large
 * pages), and on the main thread they run one page at a time: a single process could use one core for pages
 * however many it had. With workers, concurrent scrapes and crawl pages parse in parallel while the main thread
 * keeps serving requests.
 *
 * When: a page goes to a worker only when another scrape is running at the same time (a lone request gains
 * nothing from the hand-over, which costs two thread wake-ups), and only to a worker with room
 * ({@link MAX_JOBS_PER_WORKER}; never queued behind a very large page) or one that can be started; otherwise the main
 * thread parses the page itself and is one more parser. A large page, and one matched against the caller's CSS
 * selectors ({@link matchesCallerSelectors}: `includeTags`, `excludeTags`, the `attributes` format), always goes,
 * queued if need be: on the main thread it could block the event loop past any deadline. Workers start on first
 * use and stay.
 *
 * Failures: a worker that fails a page, crashes or exits rejects its jobs with {@link ParseWorkerError}; the scrape
 * service then parses those pages on the main thread, which reproduces a page's own error if it has one. A dead
 * worker is replaced on demand and reported through `onWorkerError`; after {@link MAX_CRASHES_IN_A_ROW} crashes
 * without a success in between the pool turns itself off (a worker script that cannot load would otherwise cost
 * a thread start and a warning per page). A page still parsing at its scrape's deadline has its worker
 * terminated ({@link ParseTimeoutError}): unlike the main thread, a worker can be stopped. So is one whose caller's
 * signal aborts while it parses the caller's page (a map that answered). A worker is referenced only while it has
 * jobs (worker-threads.ts).
 */
import { requestedAttributeSelectors } from "../../pipeline/attributes.ts";
import type { MapPage } from "../../crawl/map-page.ts";
import type { PrefilledViews } from "../render-context.ts";
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";
import { unpackMapPage, type MapPageRequest, type ParseAnswer, type ParseRequest, type ParseResponse, type ViewOptions, type WorkerRequest } from "./protocol.ts";

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
const MAX_JOBS_PER_WORKER = 2;

/**
 * A small page waits behind another on a worker only if that one is shorter than this (characters): ~40 ms of
 * parsing at most. Behind a longer page (up to `CRAWLBOX_MAX_PAGE_BYTES`, seconds of work) the main thread is quicker
 * for it. A large page ({@link LARGE_PAGE_CHARS}) waits behind anything.
 */
const QUEUE_BEHIND_MAX_CHARS = 1024 * 1024;

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

/** Worker crashes in a row (no page computed in between) after which the pool stops using workers. */
export const MAX_CRASHES_IN_A_ROW = 3;

/** Options of {@link createParsePool}. */
export interface ParsePoolOptions {
  /** Maximum workers; 0 = parse everything on the main thread. */
  size: number;
  /** See {@link LARGE_PAGE_CHARS}. Tests set 0 to send every page to a worker. */
  largePageChars?: number;
  /** See {@link QUEUE_BEHIND_MAX_CHARS}. */
  queueBehindMaxChars?: number;
  /** Path of the worker script (tests inject failing ones). @default the compiled-in worker */
  workerPath?: string;
  /** Called when a worker dies or fails a page, and when the pool turns itself off. */
  onWorkerError?: (message: string) => void;
}

/** Counters for `/health` and tests. */
export interface ParsePoolStats {
  size: number;
  live: number;
  /** Pages whose views a worker computed. */
  offloaded: number;
  /** Pages a worker failed (crash, exit or error), parsed on the main thread instead. */
  failed: number;
  /** Pages whose worker was stopped at the scrape's deadline. */
  timedOut: number;
  /** True once {@link MAX_CRASHES_IN_A_ROW} crashes turned the pool off. */
  disabled: boolean;
}

/** Computes parsed views off the main thread. */
export interface ParsePool {
  /**
   * Whether a page of `chars` characters should go to a worker now, with `othersInFlight` other scrapes running;
   * true only when a worker has room for it. A large page, or one matched against the caller's selectors
   * (`selectors`, see {@link matchesCallerSelectors}), always goes.
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
  stats(): ParsePoolStats;
  /** Terminates the workers and fails their jobs. */
  close(): Promise<void>;
}

/** The worker script, from source or embedded in the binary. */
const DEFAULT_WORKER_PATH = workerScriptPath("scrape/parse-workers/worker.ts");

interface Job {
  chars: number;
  /** Its views match the caller's selectors: it may take until its deadline. */
  selectors: boolean;
  resolve(answer: ParseAnswer): void;
  reject(err: Error): void;
  timer?: ReturnType<typeof setTimeout>;
  /** Stops listening to the caller's signal. */
  detach?: () => void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  dead: boolean;
}

/** A worker could not compute a page: parse it on the main thread. */
export class ParseWorkerError extends Error {}

/** A page was still parsing at its scrape's deadline; its worker was stopped. */
export class ParseTimeoutError extends Error {}

/** The views of a worker's answer; an answer of another kind is the worker's failure. */
function viewsOf(answer: ParseAnswer): PrefilledViews {
  if ("views" in answer) return answer.views;
  throw new ParseWorkerError("parse worker answered a views request without views");
}

/** The map page of a worker's answer; an answer of another kind is the worker's failure. */
function mapPageOf(answer: ParseAnswer): MapPage {
  if ("mapPage" in answer) return unpackMapPage(answer.mapPage);
  throw new ParseWorkerError("parse worker answered a map page request without a map page");
}

/** Creates a parse pool. Throws on invalid options. */
export function createParsePool(options: ParsePoolOptions): ParsePool {
  if (!Number.isInteger(options.size) || options.size < 0) throw new TypeError("createParsePool: size must be an integer >= 0");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const largePageChars = options.largePageChars ?? LARGE_PAGE_CHARS;
  const queueBehindMaxChars = options.queueBehindMaxChars ?? QUEUE_BEHIND_MAX_CHARS;
  const slots: Slot[] = [];
  let nextId = 1;
  let offloaded = 0;
  let failed = 0;
  let timedOut = 0;
  let crashesInARow = 0;
  let disabled = false;
  let closed = false;

  function settle(slot: Slot, id: number): Job | undefined {
    const job = slot.jobs.get(id);
    if (!job) return undefined;
    slot.jobs.delete(id);
    clearTimeout(job.timer);
    job.detach?.();
    if (slot.jobs.size === 0 && !slot.dead) setWorkerBusy(slot.worker, false);
    return job;
  }

  /** Ends a worker and fails its jobs; `crash` counts towards turning the pool off. */
  function retire(slot: Slot, reason: string, crash: boolean) {
    if (slot.dead) return;
    slot.dead = true;
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.terminate();
    for (const id of [...slot.jobs.keys()]) {
      failed++;
      settle(slot, id)!.reject(new ParseWorkerError(reason));
    }
    options.onWorkerError?.(reason);
    if (crash && ++crashesInARow >= MAX_CRASHES_IN_A_ROW && !disabled) {
      disabled = true;
      options.onWorkerError?.(`parse workers turned off after ${crashesInARow} crashes in a row: pages are parsed on the main thread`);
    }
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker, jobs: new Map(), dead: false };
    worker.addEventListener("message", (event: MessageEvent<ParseResponse>) => {
      const job = settle(slot, event.data.id);
      if (!job) return;
      crashesInARow = 0;
      if (event.data.ok) {
        offloaded++;
        job.resolve(event.data);
      } else {
        failed++;
        options.onWorkerError?.(`parse worker failed a page: ${event.data.error}`);
        job.reject(new ParseWorkerError(event.data.error));
      }
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      retire(slot, `parse worker crashed: ${event.message || "unknown error"}`, true);
    });
    worker.addEventListener("messageerror", () => retire(slot, "parse worker sent an unreadable message", true));
    // A worker that ends without an error (process.exit, self.close) would otherwise leave its jobs waiting forever.
    worker.addEventListener("close", () => retire(slot, "parse worker exited", true));
    setWorkerBusy(worker, false);
    slots.push(slot);
    return slot;
  }

  /**
   * A worker takes another page while it holds fewer than the maximum and none of its pages is very large or
   * matched against the caller's selectors.
   */
  const hasRoom = (s: Slot) =>
    s.jobs.size === 0 || (s.jobs.size < MAX_JOBS_PER_WORKER && [...s.jobs.values()].every((j) => j.chars < queueBehindMaxChars && !j.selectors));

  /** A page that always goes to a worker, queued if need be: a large one, or one matched against the caller's selectors. */
  const mustOffload = (chars: number, selectors: boolean) => chars >= largePageChars || selectors;

  /**
   * The worker for the next page: a free one, else a new one while the pool may grow, else one with room; for a
   * large page, else the one with the fewest pages.
   */
  function pick(large: boolean): Slot | undefined {
    const free = slots.find((s) => s.jobs.size === 0);
    if (free) return free;
    if (slots.length < options.size) return spawn();
    const roomy = slots.find(hasRoom);
    if (roomy || !large) return roomy;
    return slots.reduce<Slot | undefined>((best, s) => (!best || s.jobs.size < best.jobs.size ? s : best), undefined);
  }

  /**
   * Sends one page to a worker; `selectors`: matched against the caller's selectors. Rejects with
   * {@link ParseTimeoutError} at `deadline` (epoch ms) and with `signal`'s reason when it aborts first: a page still
   * waiting is dropped (its answer, if the worker gets to it, is ignored); only the one being parsed stops the worker
   * (it parses its pages in order: the first it holds is the one it is on).
   */
  function submit(request: Omit<ParseRequest, "id"> | Omit<MapPageRequest, "id">, selectors: boolean, deadline?: number, signal?: AbortSignal): Promise<ParseAnswer> {
    if (closed || disabled) return Promise.reject(new ParseWorkerError("the parse pool is shut down"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const slot = pick(mustOffload(request.html.length, selectors));
    if (!slot) return Promise.reject(new ParseWorkerError("no parse worker has room"));
    const id = nextId++;
    return new Promise<ParseAnswer>((resolve, reject) => {
      const job: Job = { chars: request.html.length, selectors, resolve, reject };
      /** Ends the job with `err` (told whether the page was being parsed); false when it had ended already. */
      const giveUp = (err: (parsing: boolean) => Error, stopped: string): boolean => {
        const parsing = slot.jobs.keys().next().value === id;
        if (!settle(slot, id)) return false;
        reject(err(parsing));
        if (parsing) retire(slot, stopped, false);
        return true;
      };
      if (deadline !== undefined) {
        job.timer = setTimeout(() => {
          const ended = giveUp(
            (parsing) => new ParseTimeoutError(parsing ? "the page was still being parsed at its deadline" : "the page was still waiting for a parse worker at its deadline"),
            "parse worker stopped: a page was still being parsed at its deadline",
          );
          if (ended) timedOut++;
        }, Math.max(0, deadline - Date.now()));
      }
      if (signal) {
        const onAbort = () => giveUp(() => signal.reason, "parse worker stopped: its page's caller gave up on it");
        signal.addEventListener("abort", onAbort, { once: true });
        job.detach = () => signal.removeEventListener("abort", onAbort);
      }
      slot.jobs.set(id, job);
      setWorkerBusy(slot.worker, true);
      slot.worker.postMessage({ ...request, id } satisfies WorkerRequest);
    });
  }

  return {
    shouldOffload(chars, othersInFlight, selectors = false) {
      if (closed || disabled || options.size === 0) return false;
      if (mustOffload(chars, selectors)) return true;
      return othersInFlight > 0 && (slots.length < options.size || slots.some(hasRoom));
    },
    compute(request, deadline) {
      return submit(request, matchesCallerSelectors(request.options), deadline).then(viewsOf);
    },
    readMapPage(request, deadline, signal) {
      return submit({ ...request, kind: "mapPage" }, false, deadline, signal).then(mapPageOf);
    },
    stats() {
      return { size: options.size, live: slots.length, offloaded, failed, timedOut, disabled };
    },
    async close() {
      closed = true;
      for (const slot of slots.splice(0)) {
        slot.dead = true;
        for (const id of [...slot.jobs.keys()]) settle(slot, id)!.reject(new ParseWorkerError("the parse pool is shut down"));
        slot.worker.terminate();
      }
    },
  };
}
