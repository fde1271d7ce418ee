/**
 * @module scrape/parse-workers/pool
 * Parse workers: Bun Workers that compute the parsed views of HTML pages (scrape/render-context.ts) on other
 * cores, and read a map's large pages (crawl/map-page-offload.ts). Parsing, main-content scoring and markdown take ~4–5 ms of CPU for an article page (far more for large
 * pages), and on the main thread they run one page at a time: a single process could use one core for pages
 * however many it had. With workers, concurrent scrapes and crawl pages parse in parallel while the main thread
 * keeps serving requests.
 *
 * When: a page goes to a worker only when another scrape is running at the same time (a lone request gains
 * nothing from the hand-over), unless it is large or matched against the caller's CSS selectors, which always go,
 * queued if need be; which worker takes it is placement.ts's rule. Workers start on first use and stay.
 *
 * Failures: a worker that fails a page, crashes or exits rejects its jobs with {@link ParseWorkerError}; the scrape
 * service then parses those pages on the main thread, which reproduces a page's own error if it has one. A dead
 * worker is replaced on demand and reported through `onWorkerError`; after {@link MAX_CRASHES_IN_A_ROW} crashes
 * without a success in between the pool turns itself off (a worker script that cannot load would otherwise cost
 * a thread start and a warning per page). A page still parsing at its scrape's deadline has its worker
 * terminated ({@link ParseTimeoutError}): unlike the main thread, a worker can be stopped. So is one whose caller's
 * signal aborts while it parses the caller's page (a map that answered). The other pages of a worker stopped so go
 * to a fresh worker, not to the main thread (they are the large and selector pages that must not run there). A
 * page given up while it waits stays on its worker's books until the worker has parsed it; a large or selector one
 * stops its worker instead when the worker would start on it (see `stopForNobody`). A worker is referenced
 * only while it has jobs (worker-threads.ts).
 */
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";
import { hasIdleWorker, hasRoom, LARGE_PAGE_CHARS, matchesCallerSelectors, mustOffload, pick, QUEUE_BEHIND_MAX_CHARS, type Job, type PlacementLimits, type Slot } from "./placement.ts";
import { mapPageOf, ParseTimeoutError, ParseWorkerError, viewsOf, type ParsePool } from "./pool-contract.ts";
import type { MapPageRequest, ParseAnswer, ParseRequest, ParseResponse, WorkerRequest } from "./protocol.ts";

export { LARGE_PAGE_CHARS, matchesCallerSelectors } from "./placement.ts";
export { ParseTimeoutError, ParseWorkerError, type ParsePool, type ParsePoolStats } from "./pool-contract.ts";

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

/** The worker script, from source or embedded in the binary. */
const DEFAULT_WORKER_PATH = workerScriptPath("scrape/parse-workers/worker.ts");

/** A page moved to a fresh worker with less time left than this is timed out instead (a worker starts in tens of ms). */
const MOVE_MIN_LEFT_MS = 10;

/** Creates a parse pool. Throws on invalid options. */
export function createParsePool(options: ParsePoolOptions): ParsePool {
  if (!Number.isInteger(options.size) || options.size < 0) throw new TypeError("createParsePool: size must be an integer >= 0");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const limits: PlacementLimits = {
    size: options.size,
    largePageChars: options.largePageChars ?? LARGE_PAGE_CHARS,
    queueBehindMaxChars: options.queueBehindMaxChars ?? QUEUE_BEHIND_MAX_CHARS,
  };
  const slots: Slot[] = [];
  let nextId = 1;
  let offloaded = 0;
  let failed = 0;
  let timedOut = 0;
  let crashesInARow = 0;
  let disabled = false;
  let closed = false;

  /** Stops a job's deadline timer and its caller's abort listener: whatever ends it next, nothing else will. */
  function unhook(job: Job) {
    clearTimeout(job.timer);
    job.detach?.();
  }

  /** Ends a job that is no longer on any worker's books with `error`. */
  function fail(job: Job, error: Error) {
    unhook(job);
    job.reject(error);
  }

  /** Takes a job off its worker's books; it no longer answers its caller. */
  function settle(slot: Slot, id: number): Job | undefined {
    const job = slot.jobs.get(id);
    if (!job) return undefined;
    slot.jobs.delete(id);
    unhook(job);
    if (slot.jobs.size === 0 && !slot.dead) setWorkerBusy(slot.worker, false);
    return job;
  }

  /** Hands `job` to `slot`'s worker (after the jobs it holds). */
  function post(slot: Slot, job: Job) {
    job.slot = slot;
    slot.jobs.set(job.id, job);
    setWorkerBusy(slot.worker, true);
    slot.worker.postMessage(job.message!);
  }

  /**
   * Ends a worker. A crash (`crash`: counts towards turning the pool off) fails its jobs; a worker stopped on
   * purpose (a page's deadline or its caller's abort) is not their failure: they go, in order, to a fresh worker,
   * with their own deadlines and signals. Jobs already dropped are forgotten.
   */
  function retire(slot: Slot, reason: string, crash: boolean, warn = true) {
    if (slot.dead) return;
    slot.dead = true;
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.terminate();
    const now = Date.now();
    const waiting: Job[] = [];
    for (const job of slot.jobs.values()) {
      if (job.dropped) continue;
      // At its deadline (a timer sharing it is due on this very tick, or a few ms later: timers and Date.now() do not
      // agree to the ms): told so now, not moved to a fresh worker, which takes longer than that to start.
      if (!crash && job.deadline !== undefined && job.deadline <= now + MOVE_MIN_LEFT_MS) {
        timedOut++;
        fail(job, new ParseTimeoutError("the page was still waiting for a parse worker at its deadline"));
      } else waiting.push(job);
    }
    slot.jobs.clear();
    // The stopped worker left the pool: a fresh one always fits (unless the pool is off).
    const next = !crash && waiting.length > 0 && !closed && !disabled ? spawn() : undefined;
    for (const job of waiting) {
      if (next) post(next, job);
      else {
        failed++;
        fail(job, new ParseWorkerError(reason));
      }
    }
    if (warn) options.onWorkerError?.(reason);
    if (crash && ++crashesInARow >= MAX_CRASHES_IN_A_ROW && !disabled) {
      disabled = true;
      options.onWorkerError?.(`parse workers turned off after ${crashesInARow} crashes in a row: pages are parsed on the main thread`);
    }
  }

  /**
   * Stops `slot`'s worker when the page it starts on next was given up while it waited and may be long (large, or
   * matched against the caller's selectors): nothing else would stop it, no deadline applies to it any more, and the
   * pages behind it would wait it out (a `:has()` chain given up after 100 ms held its worker for 10.6 s, and the
   * next pages timed out waiting). Its live pages go to a fresh worker. A small dropped page (~40 ms at most) is
   * left to run: a fresh worker would cost about as much.
   */
  function stopForNobody(slot: Slot) {
    const head: Job | undefined = slot.jobs.values().next().value;
    if (head?.dropped && (head.selectors || head.chars >= limits.largePageChars)) {
      retire(slot, "parse worker stopped: the page it was starting on had been given up", false, false);
    }
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker, jobs: new Map(), dead: false };
    worker.addEventListener("message", (event: MessageEvent<ParseResponse>) => {
      const job = settle(slot, event.data.id);
      if (!job) return;
      crashesInARow = 0;
      stopForNobody(slot);
      if (job.dropped) return; // its caller was told already
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
   * Sends one page to a worker; `selectors`: matched against the caller's selectors. Rejects with
   * {@link ParseTimeoutError} at `deadline` (epoch ms) and with `signal`'s reason when it aborts first. A page still
   * waiting is dropped: its caller is told at once, but the worker will parse it all the same (it was posted), so it
   * stays on the worker's books until its answer comes back, ignored; only the one being parsed stops the worker (it
   * parses its pages in order: the first it holds is the one it is on), whose other pages go to a fresh worker.
   */
  function submit(request: Omit<ParseRequest, "id"> | Omit<MapPageRequest, "id">, selectors: boolean, deadline?: number, signal?: AbortSignal): Promise<ParseAnswer> {
    if (closed || disabled) return Promise.reject(new ParseWorkerError("the parse pool is shut down"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const picked = pick(slots, mustOffload(request.html.length, selectors, limits), limits);
    if (!picked) return Promise.reject(new ParseWorkerError("no parse worker has room"));
    const slot = picked === "spawn" ? spawn() : picked;
    const id = nextId++;
    return new Promise<ParseAnswer>((resolve, reject) => {
      const job: Job = { id, chars: request.html.length, selectors, slot, message: { ...request, id } as WorkerRequest, resolve, reject, ...(deadline !== undefined ? { deadline } : {}) };
      /**
       * Ends the job with `err` (told whether the page was being parsed); false when it had ended already. `warn`:
       * stopping its worker is worth a warning (a deadline), not when its caller gave up.
       */
      const giveUp = (err: (parsing: boolean) => Error, stopped: string, warn: boolean): boolean => {
        const current = job.slot;
        if (job.dropped || current.jobs.get(id) !== job) return false;
        const parsing = current.jobs.keys().next().value === id;
        if (parsing) {
          settle(current, id);
          retire(current, stopped, false, warn);
        } else {
          // Still waiting: the worker will parse it anyway, so it keeps its place until its answer comes back.
          unhook(job);
          job.dropped = true;
          job.message = undefined;
        }
        reject(err(parsing));
        return true;
      };
      if (deadline !== undefined) {
        job.timer = setTimeout(() => {
          const ended = giveUp(
            (parsing) => new ParseTimeoutError(parsing ? "the page was still being parsed at its deadline" : "the page was still waiting for a parse worker at its deadline"),
            "parse worker stopped: a page was still being parsed at its deadline",
            true,
          );
          if (ended) timedOut++;
        }, Math.max(0, deadline - Date.now()));
      }
      if (signal) {
        const onAbort = () => giveUp(() => signal.reason, "parse worker stopped: its page's caller gave up on it", false);
        signal.addEventListener("abort", onAbort, { once: true });
        job.detach = () => signal.removeEventListener("abort", onAbort);
      }
      post(slot, job);
    });
  }

  return {
    shouldOffload(chars, othersInFlight, selectors = false) {
      if (closed || disabled || options.size === 0) return false;
      if (mustOffload(chars, selectors, limits)) return true;
      return othersInFlight > 0 && (slots.length < options.size || slots.some((s) => hasRoom(s, limits)));
    },
    compute(request, deadline) {
      return submit(request, matchesCallerSelectors(request.options), deadline).then(viewsOf);
    },
    readMapPage(request, deadline, signal) {
      return submit({ ...request, kind: "mapPage" }, false, deadline, signal).then(mapPageOf);
    },
    hasIdleWorker() {
      return !closed && !disabled && hasIdleWorker(slots, limits);
    },
    stats() {
      return { size: options.size, live: slots.length, offloaded, failed, timedOut, disabled };
    },
    async close() {
      closed = true;
      for (const slot of slots.splice(0)) {
        slot.dead = true;
        for (const id of [...slot.jobs.keys()]) {
          const job = settle(slot, id)!;
          if (!job.dropped) job.reject(new ParseWorkerError("the parse pool is shut down"));
        }
        slot.worker.terminate();
      }
    },
  };
}
