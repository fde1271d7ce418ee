/**
 * @module engines/browser/renderer-memory
 * A memory limit per Chromium renderer process (`CRAWLBOX_BROWSER_PAGE_MEMORY_MB`). Chromium sets none of its own
 * that matters here: a page crawlbox scraped held 6 GB of ArrayBuffers and was answered as a success, and one growing
 * its JavaScript heap reached 4.8 GB before its scrape timed out; a few such pages at once take the machine's memory.
 * V8's heap limit counts neither ArrayBuffers, WebAssembly memory nor the DOM, and a page's inspector does not answer
 * while its script runs, so the guard looks from outside: while any page is leased it reads every
 * {@link CHECK_INTERVAL_MS} the private resident memory of each renderer process from `/proc`, and kills a renderer
 * over the limit. Which processes are renderers the browser says (`SystemInfo.getProcessInfo`, which its browser
 * process answers even when a renderer is busy), asked at most every {@link PROCESS_LIST_TTL_MS}. Its pages crash at
 * once, and their leases say why (page-crash.ts). With site isolation a page's renderer holds that page (and
 * same-site frames) only, so the limit is in effect per page.
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
/**
 * How long a browser's list of renderer processes is reused before it is asked again. Reading `/proc` is ~20 µs a
 * process; asking Chromium is a round trip through its browser process, which at every check cost the browser
 * bench ~10 % of its pages/s at concurrency 4. A renderer started since (a new page, or one navigating to another
 * site) is measured from the next list on: at most this long unwatched.
 */
export const PROCESS_LIST_TTL_MS = 2_000;
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
  /** Each browser's renderer pids and when they were asked for (`performance.now()`). */
  private readonly lists = new WeakMap<Browser, { pids: number[]; at: number }>();

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

  /** The browser's renderer processes, as listed at most {@link PROCESS_LIST_TTL_MS} ago. */
  private async rendererPids(browser: Browser): Promise<number[]> {
    const known = this.lists.get(browser);
    const now = performance.now();
    if (known && now - known.at < PROCESS_LIST_TTL_MS) return known.pids;
    const pids = await this.askRendererPids(browser);
    this.lists.set(browser, { pids, at: now });
    return pids;
  }

  /** The browser's renderer processes, asked of it; none when it does not answer in time or has gone. */
  private async askRendererPids(browser: Browser): Promise<number[]> {
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
