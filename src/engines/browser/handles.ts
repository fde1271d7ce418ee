/**
 * @module engines/browser/handles
 * The Chromium instances behind the pool, one {@link Handle} each: launched lazily, forgotten when they disconnect,
 * retired, health-probed when suspected of hanging, and ended exactly once. Kept apart from pool.ts, which hands
 * out slots and leases: this file knows the browsers, not the scrapes waiting for them.
 */
import type { Browser } from "puppeteer-core";
import { closeChromium, killProcess, launchChromium, NO_SANDBOX_ARG, type LaunchOptions } from "./chromium.ts";
import { BrowserUnavailableError } from "./lease.ts";
import type { BrowserPoolOptions } from "./pool.ts";
import { PageStock } from "./stock.ts";

/** How long a suspect browser has to answer `version()` and open and close a context. */
export const HEALTH_TIMEOUT_MS = 3_000;

/** One launched Chromium and its bookkeeping. */
export interface Handle {
  browser: Browser;
  generation: number;
  served: number;
  active: number;
  retiring: boolean;
  dead: boolean;
  stock: PageStock;
  /** The health probe running now, if any. */
  probing?: Promise<void>;
  /** Set by dispose(): the browser's ending, under way or done. */
  disposing?: Promise<void>;
}

/** The pool's browsers: the current one, the one launching, and retired ones still closing. */
export class BrowserHandles {
  /** The browser new leases go to (undefined: none yet, or it died or was retired). */
  current?: Handle;
  launching?: Promise<Handle>;
  /** Every browser not yet ended (the current one and retired ones still serving leases). */
  readonly handles = new Set<Handle>();
  /** Browsers launched so far. */
  generation = 0;
  /** Contexts created so far. */
  created = 0;
  private readonly launch: (options: LaunchOptions) => Promise<Browser>;

  constructor(
    private readonly options: BrowserPoolOptions,
    /** Whether the pool is shut down. */
    private readonly isClosed: () => boolean,
  ) {
    this.launch = options.launch ?? launchChromium;
  }

  private get closed(): boolean {
    return this.isClosed();
  }

  /** The current browser, launched when there is none or it died (one launch at a time, shared by its callers). */
  async ensureBrowser(): Promise<Handle> {
    const cur = this.current;
    if (cur && !cur.dead && cur.browser.connected) return cur;
    if (!this.launching) {
      this.launching = this.start().finally(() => {
        this.launching = undefined;
      });
    }
    return this.launching;
  }

  private async start(): Promise<Handle> {
    if (this.closed) throw new BrowserUnavailableError("The browser pool is shut down.");
    let browser: Browser;
    try {
      browser = await this.launch({
        executablePath: this.options.executablePath,
        proxyUrl: this.options.proxyUrl,
        sandbox: this.options.sandbox ?? "auto",
        onNoSandbox: (reason) => this.options.log.warn("browser: Chromium cannot use its own sandbox here (user namespaces?); its renderers run without it. Set CRAWLBOX_CHROMIUM_SANDBOX=off to say so, or fix the system and restart", { reason }),
      });
    } catch (err) {
      this.options.log.error("browser: Chromium failed to start", { error: (err as Error).message });
      throw new BrowserUnavailableError(`Chromium failed to start: ${(err as Error).message}`, err);
    }
    const handle: Handle = {
      browser,
      generation: ++this.generation,
      served: 0,
      active: 0,
      retiring: false,
      dead: false,
      stock: new PageStock({
        browser,
        concurrency: this.options.concurrency,
        prepare: this.options.prepare,
        usable: () => !handle.dead && !handle.retiring && !this.closed,
        onCreated: () => this.created++,
      }),
    };
    this.handles.add(handle);
    browser.once("disconnected", () => {
      // A handle already dead is being disposed (closed, retired or killed on purpose): dispose() ends its process,
      // gracefully first. Killing it here too would SIGKILL every browser in the middle of a clean close.
      if (handle.dead) return;
      this.options.log.warn("browser: Chromium disconnected", { generation: handle.generation });
      handle.dead = true;
      handle.stock.forget();
      this.handles.delete(handle);
      if (this.current === handle) this.current = undefined;
      const proc = browser.process();
      if (proc) void killProcess(proc);
    });
    if (this.closed) {
      await this.dispose(handle);
      throw new BrowserUnavailableError("The browser pool is shut down.");
    }
    this.current = handle;
    // The sandbox it really has: `auto` may have fallen back to none when the system could not give it.
    const sandboxed = !(browser.process()?.spawnargs ?? []).includes(NO_SANDBOX_ARG);
    this.options.log.info("browser: Chromium started", { generation: handle.generation, pid: browser.process()?.pid, sandbox: sandboxed ? "chromium's own" : "none" });
    handle.stock.topUp();
    return handle;
  }

  retire(handle: Handle): void {
    handle.retiring = true;
    if (this.current === handle) this.current = undefined;
    handle.stock.closeAll();
    this.options.log.info("browser: retiring Chromium", { generation: handle.generation, served: handle.served });
  }

  /**
   * Whether the browser still does its job: it must open and close a context within {@link HEALTH_TIMEOUT_MS}
   * (a browser flooded by a page's IPC can still answer `version()` while every new context times out). One probe
   * at a time per browser: the callers of a second one share the first.
   */
  probe(handle: Handle): Promise<void> {
    if (handle.dead) return Promise.resolve();
    handle.probing ??= this.runProbe(handle).finally(() => {
      handle.probing = undefined;
    });
    return handle.probing;
  }

  private async runProbe(handle: Handle): Promise<void> {
    const healthy = async () => {
      await handle.browser.version();
      const context = await handle.browser.createBrowserContext();
      await context.close();
      return true;
    };
    const ok = await Promise.race([healthy().catch(() => false), Bun.sleep(HEALTH_TIMEOUT_MS).then(() => false)]);
    if (ok) {
      if (handle.retiring && handle.active === 0) await this.dispose(handle);
      else handle.stock.topUp();
      return;
    }
    if (handle.dead) return; // closed meanwhile (retired and disposed): nothing to replace
    this.options.log.warn("browser: Chromium does not answer; killing and replacing it", { generation: handle.generation });
    await this.dispose(handle, true);
  }

  /**
   * Ends a browser: closed gracefully (killed when it does not close in time), or killed at once with `kill`. Once
   * per browser: a second call (close() while a retired browser is still closing) waits for the first, instead of
   * finding the browser half-closed and killing it.
   */
  dispose(handle: Handle, kill = false): Promise<void> {
    handle.disposing ??= this.end(handle, kill);
    return handle.disposing;
  }

  private async end(handle: Handle, kill: boolean): Promise<void> {
    handle.dead = true;
    if (this.current === handle) this.current = undefined;
    handle.stock.forget();
    const proc = handle.browser.process();
    if (kill && proc) await killProcess(proc);
    else await closeChromium(handle.browser);
    this.handles.delete(handle);
  }
}
