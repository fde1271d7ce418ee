/**
 * @module engines/browser/lease
 * The contract between the browser pool and a scrape: what `BrowserPool.acquire` is asked for
 * ({@link AcquireOptions}), what it hands out ({@link Lease}), and the errors a scrape gets when it cannot have a
 * page. Kept apart from pool.ts so that the engine depends on the lease, not on how the pool keeps its browsers.
 */
import type { BrowserContext, CDPSession, Page } from "puppeteer-core";
import { CrawlboxError } from "../../errors.ts";

/** 503: the browser could not be started or is shutting down. */
export class BrowserUnavailableError extends CrawlboxError {
  constructor(message: string, cause?: unknown) {
    super("SCRAPE_BROWSER_UNAVAILABLE", 503, message, { retryable: true, cause });
  }
}

/** 408: no browser slot became free, or the browser did not open a page, before the scrape's deadline. */
export class BrowserQueueTimeoutError extends CrawlboxError {
  constructor(message = "Scrape timed out waiting for a free browser slot.") {
    super("SCRAPE_TIMEOUT", 408, message, { retryable: true });
  }
}

/** Options of one lease. */
export interface AcquireOptions {
  signal?: AbortSignal;
  /** `performance.now()` time after which waiting is pointless. */
  deadline: number;
  /**
   * A proxy for this context only: an egress gate listener that chains to an upstream proxy
   * (`gate.proxyUrlFor(upstream)`), never the upstream itself. Such contexts are never pre-warmed.
   */
  proxyServer?: string;
  /**
   * Who the page may be reused for (the API key's id). An idle page last used by the same tenant is taken first;
   * pages are never shared between tenants. Undefined: a never-used page (profiles, upstream proxies).
   */
  tenant?: string;
}

/** A page of a fresh incognito context, held by one scrape. */
export interface Lease {
  readonly context: BrowserContext;
  readonly page: Page;
  /** A CDP session of the page, opened ahead of time (setting up a session costs a round trip). */
  readonly session: CDPSession;
  /** What `prepare` returned for this page. */
  readonly prepared: unknown;
  /** The browser's launch number (tests observe relaunches). */
  readonly generation: number;
  /** Scrapes this context served before this one (0: a fresh context). */
  readonly reuses: number;
  /**
   * Aborts, with a `PageCrashedError` saying why, the moment the page's renderer dies (page-crash.ts): whoever
   * waits on the page must stop then, as the page will never answer.
   */
  readonly crashed: AbortSignal;
  /**
   * Measures the browser's renderers now (renderer-memory.ts) and, when one was over the memory limit, throws this
   * page's crash if it was this page's: called before answering with the page, so that one that grew past the
   * limit between two of the guard's ticks is not answered as a success.
   */
  checkMemory(): Promise<void>;
  /**
   * Gives the slot back and disposes of the context. `suspect`: the scrape timed out or the browser misbehaved,
   * so the pool probes the browser and replaces it when it does not answer. `reuse`: the scrape finished normally
   * and the context may serve the same tenant again once wiped (ignored without a tenant).
   */
  release(options?: { suspect?: boolean; reuse?: boolean }): void;
}
