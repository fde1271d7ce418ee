/**
 * @module engines/browser/renderer-memory
 * A memory limit per Chromium renderer process (`CRAWLBOX_BROWSER_PAGE_MEMORY_MB`). Chromium sets none of its own
 * that matters here: a page crawlbox scraped held 6 GB of ArrayBuffers and was answered as a success, and one growing
 * its JavaScript heap reached 4.8 GB before its scrape timed out; a few such pages at once take the machine's memory.
 * V8's heap limit counts neither ArrayBuffers, WebAssembly memory nor the DOM, and a page's inspector does not answer
 * while its script runs, so the guard looks from outside: while any page is leased it asks each browser for its
 * renderer processes (`SystemInfo.getProcessInfo`, which the browser process answers even when a renderer is busy)
 * every {@link CHECK_INTERVAL_MS}, reads each one's private resident memory from `/proc`, and kills a renderer over
 * the limit. Its pages crash at once, and their leases say why (page-crash.ts). With site isolation a page's
 * renderer holds that page (and same-site frames) only, so the limit is in effect per page.
 */
import { readFileSync } from "node:fs";
import type { Browser, CDPSession } from "puppeteer-core";
import type { Logger } from "../../log.ts";

/** How often renderers are measured while a page is leased. */
export const CHECK_INTERVAL_MS = 250;
/**
 * A crash this soon after a kill may be explained by it: the crash event follows the kill within milliseconds, but a
 * busy event loop can take that long to hear of it.
 */
export const KILL_EXPLAINS_MS = 3_000;
/** Longest wait for a browser's process list (a browser that does not answer is the health probe's business). */
const PROCESS_INFO_TIMEOUT_MS = 2_000;

/** A renderer the guard killed. */
export interface MemoryKill {
  pid: number;
  /** Its private resident memory when measured. */
  bytes: number;
  /** `performance.now()` of the kill. */
  at: number;
}

/**
 * Private resident memory of a process (`RssAnon` in `/proc/<pid>/status`: the heap, ArrayBuffers and WebAssembly
 * memory, not the shared libraries every renderer maps), or undefined when it is gone or unreadable.
 */
export function privateResidentBytes(pid: number): number | undefined {
  try {
    const m = /^RssAnon:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** What the guard needs from the pool, and what tests replace. */
export interface RendererMemoryGuardOptions {
  /** Bytes a renderer may hold; 0 turns the guard off. */
  limitBytes: number;
  /** The browsers running now. */
  browsers: () => Browser[];
  /** Whether any page is leased (the guard sleeps, with no timer, when none is). */
  busy: () => boolean;
  log: Logger;
  /** @default privateResidentBytes */
  readBytes?: (pid: number) => number | undefined;
  /** @default SIGKILL */
  kill?: (pid: number) => void;
  /** @default CHECK_INTERVAL_MS */
  intervalMs?: number;
}

/** Measures renderers while pages are leased and kills the ones over the limit. */
export class RendererMemoryGuard {
  private timer?: ReturnType<typeof setInterval>;
  private checking = false;
  private readonly kills: MemoryKill[] = [];
  private readonly sessions = new WeakMap<Browser, Promise<CDPSession>>();

  constructor(private readonly o: RendererMemoryGuardOptions) {}

  /** The limit in bytes (0: none). */
  get limitBytes(): number {
    return this.o.limitBytes;
  }

  /** Starts measuring, if it is not already (called whenever a page is leased). */
  wake(): void {
    if (this.o.limitBytes <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.check(), this.o.intervalMs ?? CHECK_INTERVAL_MS);
    this.timer.unref?.();
  }

  /** Stops measuring (the pool closes). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The kill that explains a page crash now: the one kill within {@link KILL_EXPLAINS_MS} that no crash has claimed
   * yet. Chromium does not say which renderer serves which page, so with two unclaimed kills in the window (or a kill
   * of a renderer that served only a page's cross-site iframe, which crashes no page) the crash cannot be told
   * apart: it is then a plain crash, and none of those kills is credited. Each kill explains one crash at most.
   */
  takeRecentKill(now = performance.now()): MemoryKill | undefined {
    while (this.kills.length > 0 && now - this.kills[0]!.at > KILL_EXPLAINS_MS) this.kills.shift();
    return this.kills.length === 1 ? this.kills.shift() : undefined;
  }

  /** One measurement of every renderer of every browser (public so that tests can run one when they choose). */
  async check(): Promise<void> {
    if (!this.o.busy()) return this.stop();
    if (this.checking) return;
    this.checking = true;
    try {
      for (const browser of this.o.browsers()) {
        for (const pid of await this.rendererPids(browser)) {
          const bytes = (this.o.readBytes ?? privateResidentBytes)(pid);
          if (bytes !== undefined && bytes > this.o.limitBytes) this.killRenderer(pid, bytes);
        }
      }
    } finally {
      this.checking = false;
    }
  }

  private killRenderer(pid: number, bytes: number): void {
    try {
      (this.o.kill ?? ((p) => process.kill(p, "SIGKILL")))(pid);
    } catch (err) {
      this.o.log.warn("browser: could not stop a renderer over the memory limit", { pid, error: (err as Error).message });
      return;
    }
    const now = performance.now();
    this.kills.push({ pid, bytes, at: now });
    while (this.kills.length > 0 && now - this.kills[0]!.at > KILL_EXPLAINS_MS) this.kills.shift();
    this.o.log.warn("browser: stopped a page's renderer over the memory limit", {
      pid,
      usedMb: Math.round(bytes / 2 ** 20),
      limitMb: Math.round(this.o.limitBytes / 2 ** 20),
    });
  }

  /** The browser's renderer processes; none when it does not answer in time or has gone. */
  private async rendererPids(browser: Browser): Promise<number[]> {
    if (!browser.connected) return [];
    let session = this.sessions.get(browser);
    if (!session) {
      session = browser.target().createCDPSession();
      this.sessions.set(browser, session);
      session.catch(() => this.sessions.delete(browser));
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const info = await Promise.race([
        session.then((s) => s.send("SystemInfo.getProcessInfo")),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), PROCESS_INFO_TIMEOUT_MS);
        }),
      ]);
      return (info?.processInfo ?? []).filter((p) => p.type === "renderer").map((p) => p.id);
    } catch {
      this.sessions.delete(browser);
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}
