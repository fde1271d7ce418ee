/**
 * @module scrape/parse-workers/pool
 * Parse workers: Bun Workers that compute the parsed views of HTML pages (scrape/render-context.ts) on other
 * cores. Parsing, main-content scoring and markdown take ~4–5 ms of CPU for an article page (far more for large
 * pages), and on the main thread they run one page at a time: a single process could use one core for pages
 * however many it had. With workers, concurrent scrapes and crawl pages parse in parallel while the main thread
 * keeps serving requests.
 *
 * When: a page goes to a worker only when another scrape is running at the same time (a lone request gains
 * nothing from the hand-over, which costs two thread wake-ups) or when it is large (it would block the event
 * loop), and only to a worker with room ({@link MAX_JOBS_PER_WORKER}) or one that can be started; when every
 * worker is full the page is parsed on the main thread, which is then one more parser. Workers start on first
 * use and stay.
 *
 * Failures: a worker that crashes, or fails a page, rejects that page's job; the scrape service then parses the
 * page on the main thread, which reproduces the page's own error if it has one. A crashed worker is replaced on
 * demand and reported through `onWorkerError`. A worker is referenced only while it has jobs (worker-threads.ts).
 */
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";
import type { PrefilledViews } from "../render-context.ts";
import type { ParseRequest, ParseResponse } from "./protocol.ts";

/** Pages at least this long (characters) go to a worker even without concurrency: ~10+ ms of parsing. */
export const LARGE_PAGE_CHARS = 256 * 1024;

/**
 * Jobs a worker may hold: the one it parses and one waiting, so that it never idles between two pages while the
 * main thread is busy. Beyond that the main thread parses the page itself. Measured at concurrency 4 on 2 cores
 * (docs/benchmarks.md): 1 (free workers only) gained ~20 % pages/s over no workers, 2 gained ~35–40 %.
 */
const MAX_JOBS_PER_WORKER = 2;

/** Options of {@link createParsePool}. */
export interface ParsePoolOptions {
  /** Maximum workers; 0 = parse everything on the main thread. */
  size: number;
  /** See {@link LARGE_PAGE_CHARS}. Tests set 0 to send every page to a worker. */
  largePageChars?: number;
  /** Path of the worker script (tests inject a crashing one). @default the compiled-in worker */
  workerPath?: string;
  /** Called when a worker dies or fails a page. */
  onWorkerError?: (message: string) => void;
}

/** Counters for `/health` and tests. */
export interface ParsePoolStats {
  size: number;
  live: number;
  /** Pages whose views a worker computed. */
  offloaded: number;
  /** Pages a worker failed (crash or error), parsed on the main thread instead. */
  failed: number;
}

/** Computes parsed views off the main thread. */
export interface ParsePool {
  /**
   * Whether a page of `chars` characters should go to a worker now, with `othersInFlight` other scrapes running;
   * true only when a worker has room for it.
   */
  shouldOffload(chars: number, othersInFlight: number): boolean;
  /** The views of one page; rejects when the worker fails (parse on the main thread then). */
  compute(request: Omit<ParseRequest, "id">): Promise<PrefilledViews>;
  stats(): ParsePoolStats;
  /** Terminates the workers and fails their jobs. */
  close(): Promise<void>;
}

/** The worker script, from source or embedded in the binary. */
const DEFAULT_WORKER_PATH = workerScriptPath("scrape/parse-workers/worker.ts");

interface Job {
  resolve(views: PrefilledViews): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
}

/** Thrown to the scrape service when a worker could not compute a page. */
export class ParseWorkerError extends Error {}

/** Creates a parse pool. Throws on invalid options. */
export function createParsePool(options: ParsePoolOptions): ParsePool {
  if (!Number.isInteger(options.size) || options.size < 0) throw new TypeError("createParsePool: size must be an integer >= 0");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const largePageChars = options.largePageChars ?? LARGE_PAGE_CHARS;
  const slots: Slot[] = [];
  let nextId = 1;
  let offloaded = 0;
  let failed = 0;
  let closed = false;

  function retire(slot: Slot, reason: string) {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.terminate();
    failed += slot.jobs.size;
    for (const job of slot.jobs.values()) job.reject(new ParseWorkerError(reason));
    slot.jobs.clear();
    options.onWorkerError?.(reason);
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker, jobs: new Map() };
    worker.addEventListener("message", (event: MessageEvent<ParseResponse>) => {
      const job = slot.jobs.get(event.data.id);
      if (!job) return;
      slot.jobs.delete(event.data.id);
      if (slot.jobs.size === 0) setWorkerBusy(worker, false);
      if (event.data.ok) {
        offloaded++;
        job.resolve(event.data.views);
      } else {
        failed++;
        options.onWorkerError?.(`parse worker failed a page: ${event.data.error}`);
        job.reject(new ParseWorkerError(event.data.error));
      }
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      retire(slot, `parse worker crashed: ${event.message || "unknown error"}`);
    });
    worker.addEventListener("messageerror", () => retire(slot, "parse worker sent an unreadable message"));
    setWorkerBusy(worker, false);
    slots.push(slot);
    return slot;
  }

  /** The worker for the next page: a free one, else a new one while the pool may grow, else the least loaded. */
  function pick(): Slot | undefined {
    const free = slots.find((s) => s.jobs.size === 0);
    if (free) return free;
    if (slots.length < options.size) return spawn();
    return slots.reduce<Slot | undefined>((a, b) => (a === undefined || b.jobs.size < a.jobs.size ? b : a), undefined);
  }

  return {
    shouldOffload(chars, othersInFlight) {
      if (closed || options.size === 0 || (othersInFlight === 0 && chars < largePageChars)) return false;
      return slots.length < options.size || slots.some((s) => s.jobs.size < MAX_JOBS_PER_WORKER);
    },
    compute(request) {
      if (closed) return Promise.reject(new ParseWorkerError("the parse pool is shut down"));
      const slot = pick();
      if (!slot) return Promise.reject(new ParseWorkerError("the parse pool has no workers"));
      const id = nextId++;
      return new Promise<PrefilledViews>((resolve, reject) => {
        slot.jobs.set(id, { resolve, reject });
        setWorkerBusy(slot.worker, true);
        slot.worker.postMessage({ ...request, id } satisfies ParseRequest);
      });
    },
    stats() {
      return { size: options.size, live: slots.length, offloaded, failed };
    },
    async close() {
      closed = true;
      for (const slot of slots.splice(0)) {
        for (const job of slot.jobs.values()) job.reject(new ParseWorkerError("the parse pool is shut down"));
        slot.worker.terminate();
      }
    },
  };
}
