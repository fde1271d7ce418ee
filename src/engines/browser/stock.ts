/**
 * @module engines/browser/stock
 * The pages one Chromium has ready for leases, so that a scrape starts at `goto`:
 *
 * - warm: never-used incognito contexts with a page, a CDP session and the common-case setup, prepared ahead of
 *   time (at most 2: contexts cost memory);
 * - idle: contexts that served a tenant (API key) and are being, or have been, wiped for its next scrape
 *   (reuse.ts); at most one per pool slot, the oldest closed first. A tenant only ever gets its own.
 */
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { guardPage } from "./page-guards.ts";
import { type Reusable, SlotTracker, wipeForReuse } from "./reuse.ts";

/** A context with its page, ready for (or held by) a lease. */
export interface StockPage extends Reusable {
  /** What the pool's `prepare` hook returned for this page. */
  prepared: unknown;
  /** Leases this context has served. */
  uses: number;
}

interface Idle {
  tenant: string;
  /** Resolves once wiped; undefined when the wipe failed (the context is then closed). */
  ready: Promise<StockPage | undefined>;
}

/** Options of {@link PageStock}. */
export interface PageStockOptions {
  browser: Browser;
  /** Pool slots: the number of idle contexts kept. */
  concurrency: number;
  prepare?: (page: Page, session: CDPSession) => Promise<unknown>;
  /** False once the browser is dead, retiring or the pool closed: nothing more is prepared or kept. */
  usable: () => boolean;
  /** Called for every context created (the pool's counters). */
  onCreated?: () => void;
}

/** Warm and idle pages of one browser. */
export class PageStock {
  private warm: Promise<StockPage | undefined>[] = [];
  private idle: Idle[] = [];

  constructor(private readonly o: PageStockOptions) {}

  /**
   * `page` unless its renderer died while it waited (killed from outside, or a crash; its tracker saw it): handed
   * out, it would never answer, so its context is closed instead.
   */
  private alive(page: StockPage | undefined): StockPage | undefined {
    if (!page?.tracker.crashed) return page;
    void page.context.close().catch(() => {});
    return undefined;
  }

  /** Prepares warm pages up to the target (min(concurrency, 2)). */
  topUp(): void {
    const target = Math.min(this.o.concurrency, 2);
    while (this.warm.length < target && this.o.usable()) this.warm.push(this.open().catch(() => undefined));
  }

  /**
   * A page for a lease: the oldest idle one of `tenant` (once wiped), else a warm one, else a new one. Without a
   * tenant, never a used one.
   */
  async take(tenant: string | undefined): Promise<StockPage | undefined> {
    if (tenant !== undefined) {
      for (let i = this.idle.findIndex((x) => x.tenant === tenant); i >= 0; i = this.idle.findIndex((x) => x.tenant === tenant)) {
        const [entry] = this.idle.splice(i, 1);
        const page = this.alive(await entry!.ready);
        if (page) return page;
      }
    }
    const next = this.warm.shift();
    return this.alive(next ? await next : undefined) ?? (await this.open());
  }

  /** A new context and page; with `proxyServer` the context uses that proxy (never kept warm). */
  async open(proxyServer?: string): Promise<StockPage> {
    const context = await this.o.browser.createBrowserContext(proxyServer ? { proxyServer, proxyBypassList: ["<-loopback>"] } : undefined);
    try {
      const page = await context.newPage();
      guardPage(context, page);
      const session = await page.createCDPSession();
      const tracker = new SlotTracker(context, page);
      const prepared = await this.o.prepare?.(page, session);
      this.o.onCreated?.();
      return { context, page, session, prepared, tracker, uses: 0 };
    } catch (err) {
      await context.close().catch(() => {});
      throw err;
    }
  }

  /** Wipes `page` off the request path and keeps it for `tenant`'s next lease; closes it if the wipe fails. */
  keep(page: StockPage, tenant: string): void {
    const ready = wipeForReuse(page).then((ok) => {
      if (ok && this.o.usable()) return page;
      void page.context.close().catch(() => {});
      return undefined;
    });
    this.idle.push({ tenant, ready });
    while (this.idle.length > this.o.concurrency) closeIdle(this.idle.shift()!);
  }

  /** Closes every warm and idle context (retirement). */
  closeAll(): void {
    for (const w of this.warm.splice(0)) void w.then((x) => x?.context.close().catch(() => {}));
    for (const x of this.idle.splice(0)) closeIdle(x);
  }

  /** Forgets everything (the browser is gone, and its contexts with it). */
  forget(): void {
    this.warm = [];
    this.idle = [];
  }
}

function closeIdle(x: Idle): void {
  void x.ready.then((w) => w?.context.close().catch(() => {}));
}
