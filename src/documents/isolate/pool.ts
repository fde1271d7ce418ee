/**
 * @module documents/isolate/pool
 * Document workers: the threads on which office files are converted and PDFs are read and laid out (documents/
 * isolate/document-worker.ts). Why: both are synchronous and their cost is not bounded by the file's size (a 100 KB
 * DOCX inflating to 32 MiB of XML parsed for 2.5 s; one PDF page of two million glyphs held mupdf for 1.1 s, ten
 * times that for a 2.5 MB file; the layout of 500 pages sharing one content stream, 87 KB, 2.4 s). On the main
 * thread that stalls every request of the server and cannot be stopped at the request's deadline; on a worker it
 * can. A call that fails rejects with the typed error the worker threw, or, for an error no reader typed (a
 * RangeError), with the 422 of the document it was reading (protocol.ts, fromWireError).
 *
 * A document takes a {@link DocumentLease}: one worker to itself for its whole parse (a PDF stays open there
 * between pages; a release resets the worker). Two bounds: `size` calls compute at once (each conversion may take
 * a gigabyte: `CRAWLBOX_DOCUMENT_WORKERS`), while up to `maxLeases` documents hold a worker, so that PDFs waiting
 * for their pages' OCR keep no other document from being parsed. Leases and calls beyond them wait, until their
 * deadline. When the lease's signal (its request's deadline, or the client leaving) aborts while its worker is
 * computing, the worker is terminated and the call rejects with the signal's reason; a worker that crashes rejects
 * with {@link DocumentWorkerCrashedError}. Either way the next lease gets a fresh worker. Workers start on demand
 * and end after {@link IDLE_MS} without a lease, which also returns the memory a large document made them grow
 * (WebAssembly memory never shrinks). Bun enforces no memory limit on a worker: a conversion that exhausts the
 * process's memory still takes the process down, which is why `size` is small by default.
 */
import { CrawlboxError } from "../../errors.ts";
import { setWorkerBusy, workerScriptPath } from "../../worker-threads.ts";
import { Permits } from "./permits.ts";
import { type DocumentRequest, type DocumentResponse, type DocumentResults, type FailedRequest, fromWireError, READY_ID } from "./protocol.ts";

/** How long a worker may stay without a lease before it is ended. */
export const IDLE_MS = 30_000;

/** 422: the worker parsing the document died (a crash in the parser on this file). */
export class DocumentWorkerCrashedError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_DOCUMENT_PARSER_CRASHED", 422, `The document could not be parsed: the parser stopped (${reason}).`, { details: { reason } });
  }
}

/**
 * 503: a document worker could not start (its script failed to load): the server's fault, not the document's.
 * Retryable; logged as an error.
 */
export class DocumentWorkersUnavailableError extends CrawlboxError {
  constructor(reason: string) {
    super("DOCUMENT_WORKERS_UNAVAILABLE", 503, `Documents cannot be parsed on this server right now: a document worker failed to start (${reason}).`, {
      details: { reason },
      retryable: true,
    });
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
  /** Calls computing at once (documents being parsed at the same moment). */
  size: number;
  /** Workers at most, i.e. documents holding one (computing or waiting for OCR). @default 4 × size */
  maxLeases?: number;
  /** @default {@link IDLE_MS} */
  idleMs?: number;
  /** @default the compiled-in worker */
  workerPath?: string;
  /** Told when a worker crashes or is stopped because its request ended. */
  onWorkerError?: (message: string) => void;
}

/** Counters for `/health` and tests. */
export interface DocumentWorkersStats {
  size: number;
  live: number;
  leased: number;
  /** Calls computing now (at most `size`). */
  computing: number;
  /** Leases waiting for a worker and calls waiting to compute. */
  waiting: number;
  /** Workers terminated because their request ended (deadline passed, client gone) mid-call. */
  stopped: number;
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
  /** What was asked (an untyped failure becomes the typed error of the document it was reading). */
  request: FailedRequest;
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** Gives back the call's compute permit. */
  done(): void;
}

interface Slot {
  worker: Worker;
  leased: boolean;
  dead: boolean;
  pending: Map<number, Pending>;
  idleTimer?: ReturnType<typeof setTimeout>;
  /** The worker said it loaded ({@link READY_ID}): a crash from then on is the document's doing. */
  ready: boolean;
}

/** Creates the document workers. Throws on invalid options. */
export function createDocumentWorkers(options: DocumentWorkersOptions): DocumentWorkers {
  if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError("createDocumentWorkers: size must be an integer >= 1");
  const workerPath = options.workerPath ?? DEFAULT_WORKER_PATH;
  const idleMs = options.idleMs ?? IDLE_MS;
  const maxLeases = options.maxLeases ?? options.size * 4;
  if (!Number.isInteger(maxLeases) || maxLeases < options.size) throw new TypeError("createDocumentWorkers: maxLeases must be an integer >= size");
  /** Calls computing at once. */
  const permits = new Permits(options.size);
  /** Documents holding a worker: while one is held, a free worker exists or one may be started. */
  const leases = new Permits(maxLeases);
  const slots: Slot[] = [];
  let nextId = 1;
  let stopped = 0;
  let crashed = 0;
  let closed = false;

  /** Ends a worker; its pending calls reject with `reason`. */
  function retire(slot: Slot, reason: Error) {
    if (slot.dead) return;
    slot.dead = true;
    clearTimeout(slot.idleTimer);
    slots.splice(slots.indexOf(slot), 1);
    slot.worker.terminate();
    for (const p of slot.pending.values()) {
      p.done();
      p.reject(reason);
    }
    slot.pending.clear();
  }

  function crash(slot: Slot, reason: string) {
    if (slot.dead) return;
    crashed++;
    options.onWorkerError?.(slot.ready ? `document worker crashed: ${reason}` : `document worker failed to start: ${reason}`);
    retire(slot, slot.ready ? new DocumentWorkerCrashedError(reason) : new DocumentWorkersUnavailableError(reason));
  }

  function spawn(): Slot {
    const worker = new Worker(workerPath);
    const slot: Slot = { worker, leased: false, dead: false, pending: new Map(), ready: false };
    worker.addEventListener("message", (event: MessageEvent<DocumentResponse>) => {
      const msg = event.data;
      if (msg.id === READY_ID) {
        slot.ready = true;
        return;
      }
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      p.done();
      if (!msg.ok) p.reject(fromWireError(msg.error, p.request));
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

  /** A free worker, else a new one (holding a lease permit guarantees room), taken for a lease. */
  function take(): Slot {
    const slot = slots.find((s) => !s.leased) ?? spawn();
    clearTimeout(slot.idleTimer);
    slot.leased = true;
    setWorkerBusy(slot.worker, true);
    return slot;
  }

  function giveBack(slot: Slot) {
    if (slot.dead) return;
    slot.leased = false;
    setWorkerBusy(slot.worker, false);
    slot.idleTimer = setTimeout(() => retire(slot, new Error("idle")), idleMs);
    slot.idleTimer.unref(); // an idle worker must not keep a CLI run alive
  }

  function makeLease(slot: Slot, signal: AbortSignal, releaseLease: () => void): DocumentLease {
    let released = false;
    // The request ending mid-call (its deadline, or the client leaving) is the one thing a synchronous parser cannot
    // notice: stop its thread.
    const onAbort = () => {
      if (slot.pending.size === 0 || slot.dead) return;
      stopped++;
      options.onWorkerError?.("document worker stopped: its request ended (deadline passed or client gone) while a document was being parsed");
      retire(slot, signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    };
    signal.addEventListener("abort", onAbort);
    return {
      async call(request) {
        const done = await permits.acquire(signal);
        if (released || slot.dead || signal.aborted) {
          done();
          if (signal.aborted) throw signal.reason;
          throw released ? new Error("document lease already released") : new DocumentWorkerCrashedError("its worker is gone");
        }
        const id = nextId++;
        return new Promise((resolve, reject) => {
          slot.pending.set(id, { request, resolve: resolve as (v: unknown) => void, reject, done });
          slot.worker.postMessage({ ...request, id } as DocumentRequest);
        });
      },
      release() {
        if (released) return;
        released = true;
        signal.removeEventListener("abort", onAbort);
        // A call still running (the caller gave up on it) would hand the next document a busy worker: end it.
        if (slot.pending.size > 0) retire(slot, new Error("lease released with a call running"));
        else {
          // The next document must not find this one still open (its memory held, its pages readable).
          if (!slot.dead) slot.worker.postMessage({ id: 0, op: "reset" } satisfies DocumentRequest);
          giveBack(slot);
        }
        releaseLease();
      },
    };
  }

  return {
    async lease(signal) {
      if (closed) throw new Error("the document workers are shut down");
      const releaseLease = await leases.acquire(signal);
      if (closed) {
        releaseLease();
        throw new Error("the document workers are shut down");
      }
      return makeLease(take(), signal, releaseLease);
    },
    stats() {
      const leased = slots.filter((s) => s.leased).length;
      return { size: options.size, live: slots.length, leased, computing: permits.active, waiting: leases.waiting + permits.waiting, stopped, crashed };
    },
    async close() {
      closed = true;
      leases.close(new Error("the document workers are shut down"));
      for (const slot of [...slots]) retire(slot, new Error("the document workers are shut down"));
    },
  };
}
