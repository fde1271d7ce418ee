/**
 * @module documents/isolate/pool
 * Document workers: the threads on which office files are converted and PDFs are read (documents/isolate/
 * document-worker.ts). Why: both are synchronous and their cost is not bounded by the file's size (a 100 KB DOCX
 * inflating to 32 MiB of XML parsed for 2.5 s; one PDF page of two million glyphs held mupdf for 1.1 s, ten times
 * that for a 2.5 MB file). On the main thread that stalls every request of the server and cannot be stopped at the
 * request's deadline; on a worker it can.
 *
 * A document takes a {@link DocumentLease}: one worker to itself for its whole parse (a PDF stays open there
 * between pages). Leases beyond the pool's size wait for a worker, until their deadline. When the deadline (the
 * lease's signal) passes while the worker is computing, the worker is terminated and the call rejects with the
 * signal's reason; a worker that crashes rejects with {@link DocumentWorkerCrashedError}. Either way the next
 * lease gets a fresh worker. Workers start on demand and end after {@link IDLE_MS} without a lease, which also
 * returns the memory a large document made them grow (WebAssembly memory never shrinks).
 */
import { CrawlboxError } from "../../errors.ts";
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";
import { type DocumentRequest, type DocumentResponse, type DocumentResults, fromWireError } from "./protocol.ts";

/** How long a worker may stay without a lease before it is ended. */
export const IDLE_MS = 30_000;

/** 422: the worker parsing the document died (out of memory, or a crash in the parser on this file). */
export class DocumentWorkerCrashedError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_DOCUMENT_PARSER_CRASHED", 422, `The document could not be parsed: the parser stopped (${reason}).`, { details: { reason } });
  }
}

/** A request without its id (the lease numbers it). */
export type DocumentCall = DocumentRequest extends infer R ? (R extends DocumentRequest ? Omit<R, "id"> : never) : never;

/** One worker, held by one document until {@link DocumentLease.release}. */
export interface DocumentLease {
  /** Runs one request on the lease's worker. */
  call<C extends DocumentCall>(request: C): Promise<DocumentResults[C["op"]]>;
  /** Gives the worker back. Idempotent. */
  release(): void;
}

/** Options of {@link createDocumentWorkers}. */
export interface DocumentWorkersOptions {
  /** Workers at most (documents parsed at once). */
  size: number;
  /** @default {@link IDLE_MS} */
  idleMs?: number;
  /** @default the compiled-in worker */
  workerPath?: string;
  /** Told when a worker crashes or is stopped at a deadline. */
  onWorkerError?: (message: string) => void;
}

/** Counters for `/health` and tests. */
export interface DocumentWorkersStats {
  size: number;
  live: number;
  leased: number;
  waiting: number;
  /** Workers terminated because their document's deadline passed mid-call. */
  stoppedAtDeadline: number;
  crashed: number;
}

/** The pool. */
export interface DocumentWorkers {
  /** A worker for one document; rejects with `signal`'s reason if it aborts first. */
  lease(signal: AbortSignal): Promise<DocumentLease>;
  stats(): DocumentWorkersStats;
  /** Terminates every worker; pending calls and waiting leases reject. */
  close(): Promise<void>;
}

const DEFAULT_WORKER_PATH = workerScriptPath("documents/isolate/document-worker.ts");

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  leased: boolean;
  dead: boolean;
  pending: Map<number, Pending>;
  idleTimer?: ReturnType<typeof setTimeout>;
}

interface Waiter {
  signal: AbortSignal;
  resolve(slot: Slot): void;
  reject(err: unknown): void;
  onAbort(): void;
}

/** Creates the document workers. Throws on invalid options. */
export function createDocumentWorkers(options: DocumentWorkersOptions): DocumentWorkers {
  if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError("createDocumentWorkers: size must be an integer >= 1");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const idleMs = options.idleMs ?? IDLE_MS;
  const slots: Slot[] = [];
  const waiters: Waiter[] = [];
  let nextId = 1;
  let stoppedAtDeadline = 0;
  let crashed = 0;
  let closed = false;

  /** Ends a worker; its pending calls reject with `reason`. Makes room for a waiting lease. */
  function retire(slot: Slot, reason: Error) {
    if (slot.dead) return;
    slot.dead = true;
    clearTimeout(slot.idleTimer);
    slots.splice(slots.indexOf(slot), 1);
    slot.worker.terminate();
    for (const p of slot.pending.values()) p.reject(reason);
    slot.pending.clear();
    if (!closed) serveWaiter();
  }

  function crash(slot: Slot, reason: string) {
    if (slot.dead) return;
    crashed++;
    options.onWorkerError?.(`document worker crashed: ${reason}`);
    retire(slot, new DocumentWorkerCrashedError(reason));
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker, leased: false, dead: false, pending: new Map() };
    worker.addEventListener("message", (event: MessageEvent<DocumentResponse>) => {
      const msg = event.data;
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      if (!msg.ok) p.reject(fromWireError(msg.error));
      else if ("json" in msg) p.resolve(JSON.parse(msg.json));
      else p.resolve(msg.result);
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      crash(slot, event.message || "unknown error");
    });
    worker.addEventListener("messageerror", () => crash(slot, "it sent an unreadable message"));
    // A worker that ends by itself (process.exit, self.close) would otherwise leave its calls waiting forever.
    worker.addEventListener("close", () => crash(slot, "it exited"));
    slots.push(slot);
    return slot;
  }

  function take(slot: Slot): Slot {
    clearTimeout(slot.idleTimer);
    slot.leased = true;
    setWorkerBusy(slot.worker, true);
    return slot;
  }

  /** A free worker, or a new one while the pool may grow. */
  function available(): Slot | undefined {
    const free = slots.find((s) => !s.leased);
    if (free) return take(free);
    if (slots.length < options.size) return take(spawn());
    return undefined;
  }

  function serveWaiter() {
    while (waiters.length > 0) {
      const slot = available();
      if (!slot) return;
      const w = waiters.shift()!;
      w.signal.removeEventListener("abort", w.onAbort);
      w.resolve(slot);
    }
  }

  function giveBack(slot: Slot) {
    if (slot.dead) return;
    slot.leased = false;
    setWorkerBusy(slot.worker, false);
    serveWaiter();
    if (!slot.leased && !slot.dead) slot.idleTimer = setTimeout(() => retire(slot, new Error("idle")), idleMs);
  }

  function makeLease(slot: Slot, signal: AbortSignal): DocumentLease {
    let released = false;
    // The deadline passing mid-call is the one thing a synchronous parser cannot notice: stop its thread.
    const onAbort = () => {
      if (slot.pending.size === 0 || slot.dead) return;
      stoppedAtDeadline++;
      options.onWorkerError?.("document worker stopped: a document was still being parsed at its request's deadline");
      retire(slot, signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    };
    signal.addEventListener("abort", onAbort);
    return {
      call(request) {
        if (released) return Promise.reject(new Error("document lease already released"));
        if (slot.dead) return Promise.reject(new DocumentWorkerCrashedError("its worker is gone"));
        if (signal.aborted) return Promise.reject(signal.reason);
        const id = nextId++;
        return new Promise((resolve, reject) => {
          slot.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
          slot.worker.postMessage({ ...request, id } as DocumentRequest);
        });
      },
      release() {
        if (released) return;
        released = true;
        signal.removeEventListener("abort", onAbort);
        // A call still running (the caller gave up on it) would hand the next document a busy worker: end it.
        if (slot.pending.size > 0) retire(slot, new Error("lease released with a call running"));
        else giveBack(slot);
      },
    };
  }

  return {
    lease(signal) {
      if (closed) return Promise.reject(new Error("the document workers are shut down"));
      if (signal.aborted) return Promise.reject(signal.reason);
      const slot = available();
      if (slot) return Promise.resolve(makeLease(slot, signal));
      return new Promise<DocumentLease>((resolve, reject) => {
        const w: Waiter = {
          signal,
          resolve: (s) => resolve(makeLease(s, signal)),
          reject,
          onAbort: () => {
            const i = waiters.indexOf(w);
            if (i >= 0) waiters.splice(i, 1);
            reject(signal.reason);
          },
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
        waiters.push(w);
      });
    },
    stats() {
      return { size: options.size, live: slots.length, leased: slots.filter((s) => s.leased).length, waiting: waiters.length, stoppedAtDeadline, crashed };
    },
    async close() {
      closed = true;
      for (const w of waiters.splice(0)) {
        w.signal.removeEventListener("abort", w.onAbort);
        w.reject(new Error("the document workers are shut down"));
      }
      for (const slot of [...slots]) retire(slot, new Error("the document workers are shut down"));
    },
  };
}
