/**
 * @module engines/browser/pool
 * One long-lived Chromium shared by all scrapes, incognito contexts that are never shared between API keys, and
 * bounded concurrency.
 *
 * ```
 * acquire ─▶ slot (FIFO, deadline) ─▶ browser (launched lazily, relaunched when dead)
 *         ─▶ an idle page of the same tenant, wiped (reuse.ts) ─or─ a warm, never used {context, page}
 * release ─▶ reuse: wiped off the request path, kept idle for the same tenant
 *         ─▶ otherwise: context closed off the request path, a new warm page prepared for the next scrape
 * ```
 *
 * - Warm pages: contexts and pages are created ahead of time, so a scrape starts at `goto`.
 * - Reuse: a lease released with `reuse` keeps its context for the next lease of the same `tenant` (API key), after
 *   {@link wipeForReuse}; creating and closing a context per scrape was most of the CPU a small page cost.
 * - Retirement: after `retireAfterPages` leases the browser is replaced; the old one closes when its last lease
 *   ends (Chromium's memory grows with use).
 * - Crashes: a `disconnected` browser is forgotten at once; the next acquire launches a new one.
 * - Hangs: a lease released as `suspect` (its scrape timed out), or a page the browser failed to open, triggers a
 *   health probe; a browser that cannot open a context within {@link HEALTH_TIMEOUT_MS} is killed and replaced.
 * - Idle: a browser with no lease for `idleCloseMs` is closed (Chromium holds ~1 GB doing nothing); the next
 *   acquire starts one again, as the first does.
 * - `close()` closes every browser (raced against a timeout, then SIGKILL of the process group).
 *
 * The browsers themselves (launch, retirement, probes, ending) are kept in handles.ts, the slots in slots.ts; this
 * file hands out leases.
 */
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { CrawlboxError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { sleep } from "../../scheduler/abortable.ts";
import type { LaunchOptions } from "./chromium.ts";
import { BrowserHandles, HEALTH_TIMEOUT_MS, type Handle } from "./handles.ts";
import { BrowserQueueTimeoutError, BrowserUnavailableError, type AcquireOptions, type Lease } from "./lease.ts";
import { CRASH_NOTICE_MS, crashError, watchCrash } from "./page-crash.ts";
import { RendererMemoryGuard } from "./renderer-memory.ts";
import { REUSE_MAX_SCRAPES } from "./reuse.ts";
import { SlotQueue } from "./slots.ts";
import type { StockPage } from "./stock.ts";

export { BrowserQueueTimeoutError, BrowserUnavailableError, type AcquireOptions, type Lease } from "./lease.ts";

/** Options of {@link BrowserPool}. */
export interface BrowserPoolOptions {
  executablePath: string;
  /** The egress gate. */
  proxyUrl: string;
  /** Pages open at once. */
  concurrency: number;
  /** Leases after which the browser is replaced. */
  retireAfterPages: number;
  log: Logger;
  /** Chromium's own sandbox (`CRAWLBOX_CHROMIUM_SANDBOX`; {@link LaunchOptions.sandbox}). @default "auto" */
  sandbox?: LaunchOptions["sandbox"];
  /** Launcher (tests count launches). @default launchChromium */
  launch?: (options: LaunchOptions) => Promise<Browser>;
  /**
   * Prepares a new page off the request path (the engine applies its common-case setup here); what it returns
   * is handed to the lease as `prepared`.
   */
  prepare?: (page: Page, session: CDPSession) => Promise<unknown>;
  /** Close the browser after this long without a lease (0: never). @default 0 */
  idleCloseMs?: number;
  /** Memory one renderer may hold (renderer-memory.ts; 0: no limit). @default 0 */
  pageMemoryLimitBytes?: number;
}

/** The browser pool. */
export class BrowserPool {
  /** The browsers: launched, retired, probed and ended (handles.ts). */
  private readonly browsers: BrowserHandles;
  /** Bounded concurrency (slots.ts). */
  private readonly slots: SlotQueue;
  private closed = false;
  private reused = 0;
  /** When a lease was last taken or handed back (`performance.now()`). */
  private lastUsedAt = performance.now();
  private readonly idleTimer?: ReturnType<typeof setInterval>;
  /** Kills renderers over the memory limit while pages are leased. */
  readonly memory: RendererMemoryGuard;

  constructor(private readonly options: BrowserPoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new TypeError("BrowserPool: concurrency must be >= 1");
    if (!Number.isInteger(options.retireAfterPages) || options.retireAfterPages < 1) {
      throw new TypeError("BrowserPool: retireAfterPages must be >= 1");
    }
    this.browsers = new BrowserHandles(options, () => this.closed);
    this.slots = new SlotQueue(options, () => this.closed);
    this.memory = new RendererMemoryGuard({
      limitBytes: options.pageMemoryLimitBytes ?? 0,
      browsers: () => [...this.browsers.handles].filter((h) => !h.dead).map((h) => h.browser),
      busy: () => this.slots.active > 0,
      log: options.log,
    });
    const idleMs = options.idleCloseMs ?? 0;
    if (idleMs > 0) {
      this.idleTimer = setInterval(() => this.closeIfIdle(idleMs), Math.max(10, Math.min(idleMs / 2, 30_000)));
      this.idleTimer.unref?.();
    }
  }

  /** Closes the current browser when no lease was taken or held for `idleMs`. */
  private closeIfIdle(idleMs: number): void {
    const handle = this.browsers.current;
    if (!handle || this.closed || this.browsers.launching || this.slots.active > 0 || handle.active > 0) return;
    if (performance.now() - this.lastUsedAt < idleMs) return;
    this.options.log.info("browser: closing idle Chromium", { generation: handle.generation, idleMs });
    this.browsers.retire(handle);
    void this.browsers.dispose(handle);
  }

  /** Leases running now. */
  get running(): number {
    return this.slots.active;
  }

  /** Browser launches so far. */
  get launches(): number {
    return this.browsers.generation;
  }

  /** Contexts created and leases served by a reused context (tests and the bench). */
  get stats(): { contextsCreated: number; reused: number } {
    return { contextsCreated: this.browsers.created, reused: this.reused };
  }

  /** Pids of the running Chromium main processes (tests assert none is left). */
  pids(): number[] {
    return [...this.browsers.handles].map((h) => h.browser.process()?.pid).filter((p): p is number => p !== undefined);
  }

  /** The current browser, launching it when needed (tests use it to simulate a crash). */
  async browser(): Promise<Browser> {
    return (await this.browsers.ensureBrowser()).browser;
  }

  /** Starts Chromium and warms pages now instead of on the first scrape. */
  async warmUp(): Promise<void> {
    await this.browsers.ensureBrowser();
  }

  /**
   * Waits for a slot and returns a fresh page. Throws on deadline, abort, or when Chromium cannot start. The
   * deadline bounds the whole wait, opening the page included: a browser slow to create contexts must not hold a
   * scrape past its timeout. A page that arrives late is handed back; when opening it took
   * {@link HEALTH_TIMEOUT_MS} or more, the browser is probed at the deadline (it may be hung, and then every slot
   * with it), not when the page arrives, which may be never.
   */
  async acquire(options: AcquireOptions): Promise<Lease> {
    if (this.closed) throw new BrowserUnavailableError("The browser pool is shut down.");
    this.lastUsedAt = performance.now();
    if (options.signal?.aborted) throw options.signal.reason;
    await this.slots.takeSlot(options);
    if (performance.now() >= options.deadline || options.signal?.aborted) {
      // The slot came too late (or the client left meanwhile): opening a page now would only be thrown away.
      this.slots.giveSlot();
      throw options.signal?.aborted ? options.signal.reason : new BrowserQueueTimeoutError();
    }
    const startedAt = performance.now();
    const progress: { handle?: Handle } = {};
    const opening = this.openLease(options, progress);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const late = new Promise<never>((_, reject) => {
      const message = "Scrape timed out waiting for the browser to open a page.";
      timer = setTimeout(() => reject(new BrowserQueueTimeoutError(message)), Math.max(0, options.deadline - performance.now()));
      onAbort = () => reject(options.signal?.reason ?? new BrowserQueueTimeoutError());
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([opening, late]);
    } catch (err) {
      // Slow to open a page, whoever gave up on it (the deadline, or a client that left): the browser may be hung.
      const slow = performance.now() - startedAt >= HEALTH_TIMEOUT_MS;
      if (slow && progress.handle && !progress.handle.dead) void this.browsers.probe(progress.handle);
      void opening.then((lease) => lease.release()).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * A page on the current browser for a caller holding a slot (the slot is given back on failure). The browser is
   * counted active while its page is being opened, so that a retirement meanwhile does not close it underneath;
   * if it was retired or died during that time, the next browser is tried once (a scrape must not fail, or a
   * fallback come back without its rendering, because another scrape happened to retire the browser).
   */
  private async openLease(options: AcquireOptions, progress: { handle?: Handle }): Promise<Lease> {
    const tenant = options.proxyServer ? undefined : options.tenant;
    try {
      for (let attempt = 0; ; attempt++) {
        const handle = await this.browsers.ensureBrowser();
        progress.handle = handle;
        handle.active++;
        let warm: StockPage | undefined;
        let failure: unknown;
        try {
          warm = options.proxyServer ? await handle.stock.open(options.proxyServer) : await handle.stock.take(tenant);
        } catch (err) {
          failure = err;
        }
        if (warm && !handle.dead) {
          if (warm.uses > 0) this.reused++;
          handle.served++;
          if (handle.served >= this.options.retireAfterPages && !handle.retiring) this.browsers.retire(handle);
          return this.lease(handle, warm, tenant);
        }
        handle.active--;
        if (warm) void warm.context.close().catch(() => {});
        const replaced = handle.retiring || handle.dead;
        if (handle.retiring && handle.active === 0 && !handle.dead) void this.browsers.dispose(handle);
        if (replaced && attempt === 0 && !this.closed) continue;
        // A browser that cannot open a page may be hung: probe it (and replace it if it does not answer).
        if (!handle.dead && !handle.retiring) void this.browsers.probe(handle);
        throw failure ?? new BrowserUnavailableError("The browser could not open a page.");
      }
    } catch (err) {
      this.slots.giveSlot();
      throw err instanceof CrawlboxError ? err : new BrowserUnavailableError(`The browser could not open a page: ${(err as Error).message}`, err);
    }
  }

  /** Closes every browser; waits for none of the running scrapes. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleTimer);
    this.memory.stop();
    this.slots.wakeAll();
    const launching = this.browsers.launching;
    if (launching) await launching.catch(() => undefined);
    await Promise.all([...this.browsers.handles].map((h) => this.browsers.dispose(h)));
  }

  private lease(handle: Handle, warm: StockPage, tenant: string | undefined): Lease {
    let released = false;
    const reuses = warm.uses++;
    const crash = watchCrash(warm.page, () => crashError(this.memory.takeRecentKill(), this.memory.limitBytes));
    this.memory.wake();
    return {
      context: warm.context,
      page: warm.page,
      session: warm.session,
      prepared: warm.prepared,
      generation: handle.generation,
      reuses,
      crashed: crash.signal,
      checkMemory: async () => {
        // A recent kill may be this page's: its crash (the signal's reason) is waited for, briefly.
        if (await this.memory.checkNow()) await sleep(CRASH_NOTICE_MS, crash.signal);
        if (crash.signal.aborted) throw crash.signal.reason;
      },
      release: ({ suspect = false, reuse = false } = {}) => {
        if (released) return;
        released = true;
        crash.dispose();
        handle.active--;
        this.lastUsedAt = performance.now();
        this.slots.giveSlot();
        const keep = reuse && !suspect && tenant !== undefined && warm.uses < REUSE_MAX_SCRAPES && !handle.dead && !handle.retiring && !this.closed;
        if (keep) handle.stock.keep(warm, tenant);
        else void warm.context.close().catch(() => {});
        if (suspect && !handle.dead) void this.browsers.probe(handle);
        else if (handle.retiring && handle.active === 0) void this.browsers.dispose(handle);
        else if (!handle.retiring && !handle.dead) handle.stock.topUp();
      },
    };
  }

}
