/**
 * @module server/request-drain
 * The end of a stopping server's grace, as the requests still running see it. `crawlbox serve` (cli/serve.ts) stops
 * listening on SIGTERM and gives the requests in flight `CRAWLBOX_SHUTDOWN_GRACE_MS`; at its end it calls
 * {@link RequestDrain.end}. Each long synchronous route (a scrape, a parse, a map, a search, a crawl prompt) runs its
 * work through {@link RequestDrain.run}: the work's signal aborts then, and the route itself gives up on the work at
 * once, so the request is answered `503 SERVER_STOPPING` by the one `onError` instead of having its connection
 * closed without an answer (an empty reply). Giving up matters as much as the signal: a scrape waiting for a slot in
 * the scrape queue (scrape/limiter.ts) does not look at its signal until a slot frees up.
 *
 * Crawl and batch pages and webhook deliveries are not requests, but they use the same grace: `serve` stops claiming
 * pages and starting deliveries at the signal and lets those in flight finish (WorkerPool.quiesce,
 * WebhookDispatcher.quiesce); what still runs at the grace's end is aborted when the services close, handed back to
 * the queue or recorded interrupted, and runs again at the next start. Extract and agent jobs are stopped when the
 * services close, and resumed at the next start (docs/architecture.md "Durability").
 */
import { ServerStoppingError } from "../errors.ts";

/** The stop every long request in flight observes; ended once, at the shutdown grace's end. */
export class RequestDrain {
  private readonly controller = new AbortController();
  /** The rejections of the runs in flight (a Set, not a listener per run on {@link signal}: cheaper, and never leaks). */
  private readonly giveUps = new Set<(reason: unknown) => void>();

  /** Aborts, with a {@link ServerStoppingError} as its reason, when the grace ends. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the grace has ended: what fails from now on fails because the server stops. */
  get ended(): boolean {
    return this.controller.signal.aborted;
  }

  /** Runs in flight right now (those that will be answered 503 when the grace ends). */
  get running(): number {
    return this.giveUps.size;
  }

  /**
   * Ends the grace: every run in flight rejects with {@link ServerStoppingError} now and its work's signal aborts; a
   * run started later rejects at once. Idempotent.
   */
  end(): void {
    if (this.ended) return;
    const reason = new ServerStoppingError();
    this.controller.abort(reason);
    for (const giveUp of this.giveUps) giveUp(reason);
    this.giveUps.clear();
  }

  /**
   * Runs `work` for `request`: its signal aborts when the client goes away (the request's own signal) or the grace
   * ends; in the second case the returned promise rejects with {@link ServerStoppingError} at once, whatever the work
   * is doing (its late result or failure is dropped).
   */
  run<T>(request: Request, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.ended) return Promise.reject(this.controller.signal.reason);
    const signal = AbortSignal.any([request.signal, this.controller.signal]);
    let giveUp!: (reason: unknown) => void;
    const stopped = new Promise<never>((_, reject) => (giveUp = reject));
    this.giveUps.add(giveUp);
    let working: Promise<T>;
    try {
      working = work(signal);
    } catch (err) {
      working = Promise.reject(err);
    }
    return Promise.race([working, stopped]).finally(() => this.giveUps.delete(giveUp));
  }
}
