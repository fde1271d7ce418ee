/**
 * @module documents/ocr/pool
 * A pool of OCR workers (tesseract.js in Bun Workers), created lazily on the first job, sized to the cores
 * (`CRAWLBOX_OCR_WORKERS`), and reused. A worker that crashes fails only its own job and is replaced on demand:
 * every worker has an `error` listener, because an unhandled worker error takes the whole server down
 * (stack-notes.md). Jobs queue in FIFO order; an aborted job leaves the queue at once, and a job already running
 * is allowed to finish (its result is dropped) so that the worker stays warm.
 *
 * A worker is referenced (keeps the process alive) only while it has a job. An idle worker must not keep the
 * process alive, but a *busy* unreferenced worker makes Bun's main thread spin at 100 % of a core while it waits
 * for the reply when nothing else (a listening server) holds the event loop, e.g. `crawlbox scrape` or the
 * benchmark: measured, that cost one core in three with two workers on two cores.
 */
import { OcrFailedError } from "../errors.ts";
import type { OcrRequest, OcrResponse } from "./protocol.ts";
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";

/** Options of {@link createOcrPool}. */
export interface OcrPoolOptions {
  /** Maximum concurrent workers. @default 1 */
  size: number;
  /** Folder with extra traineddata files; empty = English only. */
  tessdataDir: string;
  /** Path of the worker script (tests may inject a crashing one). @default the compiled-in ocr-worker */
  workerPath?: string;
  /** Called when a worker dies unexpectedly. */
  onWorkerError?: (message: string) => void;
}

interface Job {
  langs: string;
  image: Uint8Array;
  resolve(tsv: string): void;
  reject(err: Error): void;
  signal?: AbortSignal;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number };
}

/** Recognises images with a bounded set of workers. */
export interface OcrPool {
  /** tesseract TSV of `image`, recognised with `langs` (e.g. `eng`, `eng+deu`). Rejects with {@link OcrFailedError}. */
  recognize(image: Uint8Array, langs: string, signal?: AbortSignal): Promise<string>;
  /** Workers currently alive (for tests and health). */
  readonly liveWorkers: number;
  /** Terminates every worker and fails queued jobs. */
  close(): Promise<void>;
}

/** The worker script, from source or embedded in the binary. */
const DEFAULT_WORKER_PATH = workerScriptPath("documents/ocr/ocr-worker.ts");

const busy = (w: Worker) => setWorkerBusy(w, true);
const idle = (w: Worker) => setWorkerBusy(w, false);

/** Creates an OCR pool. Throws on invalid options. */
export function createOcrPool(options: OcrPoolOptions): OcrPool {
  if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError("createOcrPool: size must be an integer >= 1");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function retire(slot: Slot, reason: string) {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.terminate();
    if (slot.job) {
      slot.job.reject(new OcrFailedError(reason));
      slot.job = undefined;
    }
    options.onWorkerError?.(reason);
    pump();
  }

  /** Stops a worker in the middle of a job nobody waits for any more (recognition cannot be interrupted otherwise). */
  function stop(slot: Slot) {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.job = undefined;
    slot.worker.terminate();
    pump();
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker };
    worker.addEventListener("message", (event: MessageEvent<OcrResponse>) => {
      const job = slot.job;
      if (!job || event.data.id !== job.id) return;
      slot.job = undefined;
      idle(slot.worker);
      if (event.data.ok) job.resolve(event.data.tsv);
      else job.reject(new OcrFailedError(event.data.error));
      pump();
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      retire(slot, `OCR worker crashed: ${event.message || "unknown error"}`);
    });
    worker.addEventListener("messageerror", () => retire(slot, "OCR worker sent an unreadable message"));
    idle(worker);
    slots.push(slot);
    return slot;
  }

  function pump() {
    while (!closed && queue.length > 0) {
      let slot = slots.find((s) => !s.job);
      if (!slot && slots.length < options.size) slot = spawn();
      if (!slot) return;
      const job = queue.shift()!;
      if (job.signal?.aborted) continue;
      const id = nextId++;
      slot.job = { ...job, id };
      busy(slot.worker);
      const msg: OcrRequest = { id, langs: job.langs, image: job.image, tessdataDir: options.tessdataDir };
      slot.worker.postMessage(msg);
    }
  }

  return {
    recognize(image, langs, signal) {
      if (closed) return Promise.reject(new OcrFailedError("the OCR pool is shut down"));
      return new Promise<string>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        // The abort listener goes when the job ends: a document's one signal serves all its pages, and each
        // listener would otherwise keep its page's image alive until the document is done.
        const onAbort = () => {
          const i = queue.indexOf(job);
          if (i >= 0) queue.splice(i, 1);
          // Running: its worker would go on for as long as the image takes (minutes for a large noisy one),
          // holding an OCR slot for nobody. It is stopped; the next job starts a fresh one.
          const running = slots.find((s) => s.job?.resolve === job.resolve);
          if (running) stop(running);
          reject(signal!.reason);
        };
        const settle = <T,>(f: (v: T) => void) => (v: T) => {
          signal?.removeEventListener("abort", onAbort);
          f(v);
        };
        const job: Job = { langs, image, resolve: settle(resolve), reject: settle(reject), signal };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(job);
        pump();
      });
    },
    get liveWorkers() {
      return slots.length;
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new OcrFailedError("the OCR pool is shut down"));
      for (const slot of slots.splice(0)) {
        slot.job?.reject(new OcrFailedError("the OCR pool is shut down"));
        slot.worker.terminate();
      }
    },
  };
}
