/**
 * @module engines/browser/renderer-memory
 * A memory limit per Chromium renderer process (`CRAWLBOX_BROWSER_PAGE_MEMORY_MB`). Chromium sets none of its own
 * that matters here: a page crawlbox scraped held 6 GB of ArrayBuffers and was answered as a success, and one growing
 * its JavaScript heap reached 4.8 GB before its scrape timed out; a few such pages at once take the machine's memory.
 * V8's heap limit counts neither ArrayBuffers, WebAssembly memory nor the DOM, and a page's inspector does not answer
 * while its script runs, so the guard looks from outside: while any page is leased it reads every
 * {@link CHECK_INTERVAL_MS} the private resident memory of each renderer process from `/proc`, and kills a renderer
 * over the limit. Which processes are renderers `/proc` says at every check (renderer-pids.ts), so a renderer is
 * watched from the first check after it starts; where `/proc` cannot tell (a browser without a local process, a
 * process tree it does not know: see renderersOf), the browser says (`SystemInfo.getProcessInfo`, which its browser
 * process answers even when a renderer is busy), asked at most every {@link PROCESS_LIST_TTL_MS}. Its pages crash at
 * once, and their leases say why (page-crash.ts). With site isolation a page's renderer holds that page (and
 * same-site frames) only, so the limit is in effect per page.
 */
import { readFileSync } from "node:fs";
import type { Browser, CDPSession } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import { RendererPidFinder } from "./renderer-pids.ts";

/** How often renderers are measured while a page is leased. */
export const CHECK_INTERVAL_MS = 250;
/**
 * A crash this soon after a kill may be explained by it: the crash event follows the kill within milliseconds, but a
 * busy event loop can take that long to hear of it.
 */
export const KILL_EXPLAINS_MS = 3_000;
/** A kill this recent, not yet claimed by a crash, may be of a page whose crash is still to be reported. */
export const KILL_NOTICE_MS = 1_000;
/**
 * How long a browser's list of renderer processes, when Chromium is asked for it, is reused before it is asked
 * again. Asking is a round trip through its browser process, which at every check cost the browser bench ~10 % of
 * its pages/s at concurrency 4. A renderer started since is measured from the next list on: at most this long
 * unwatched (which is why `/proc` is read instead wherever it can be).
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
  /** The measurement under way: timer ticks during it share it. */
  private inflight?: Promise<number>;
  private readonly kills: MemoryKill[] = [];
  /**
   * When each renderer was killed (`performance.now()`), kept {@link KILL_EXPLAINS_MS}: a killed process shows its
   * memory in `/proc` until it has torn it down (up to milliseconds), and a measurement meanwhile must not kill it
   * again (two kills of one renderer would leave its crash unexplained).
   */
  private readonly killedAt = new Map<number, number>();
  private readonly sessions = new WeakMap<Browser, Promise<CDPSession>>();
  /** Each browser's renderer pids and when they were asked for (`performance.now()`). */
  private readonly lists = new WeakMap<Browser, { pids: number[]; at: number }>();
  private readonly finder = new RendererPidFinder();
  /** Where each browser's renderers are learnt (see renderersOf). */
  private readonly sources = new WeakMap<Browser, "proc" | "chromium">();

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

  /**
   * One measurement of every renderer of every browser, or the one under way; resolves to the renderers it killed
   * (public so that tests can run one when they choose).
   */
  check(): Promise<number> {
    if (this.o.limitBytes <= 0) return Promise.resolve(0);
    if (!this.o.busy()) {
      this.stop();
      return Promise.resolve(0);
    }
    this.inflight ??= this.measure().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  /**
   * A measurement started now (after the one under way, which may have read a page before it grew), for a caller
   * about to answer with a page: a page over the limit is then stopped before its answer, however fast it grew
   * (between two timer ticks a page allocated 800 MB and was loaded). Resolves to whether a renderer was killed,
   * by it or within {@link KILL_NOTICE_MS} before it, that no crash has claimed yet: its page may be the caller's,
   * whose crash Chromium reports 60–120 ms after the kill.
   */
  async checkNow(): Promise<boolean> {
    await this.inflight;
    await this.check();
    const now = performance.now();
    return this.kills.some((k) => now - k.at <= KILL_NOTICE_MS);
  }

  private async measure(): Promise<number> {
    let killed = 0;
    const now = performance.now();
    for (const [pid, at] of this.killedAt) if (now - at > KILL_EXPLAINS_MS) this.killedAt.delete(pid);
    const browsers = this.o.browsers();
    const local = browsers.map((b) => b.process?.()?.pid).filter((pid): pid is number => pid !== undefined);
    const fromProc = local.length > 0 ? this.finder.find(local) : undefined;
    for (const browser of browsers) {
      const browserPid = browser.process?.()?.pid;
      const pids = await this.renderersOf(browser, browserPid === undefined ? undefined : fromProc?.get(browserPid));
      for (const pid of pids) {
        if (this.killedAt.has(pid)) continue;
        const bytes = (this.o.readBytes ?? privateResidentBytes)(pid);
        if (bytes !== undefined && bytes > this.o.limitBytes && this.killRenderer(pid, bytes)) killed++;
      }
    }
    return killed;
  }

  /** Kills a renderer over the limit; false when it could not be. */
  private killRenderer(pid: number, bytes: number): boolean {
    try {
      (this.o.kill ?? ((p) => process.kill(p, "SIGKILL")))(pid);
    } catch (err) {
      this.o.log.warn("browser: could not stop a renderer over the memory limit", { pid, error: (err as Error).message });
      return false;
    }
    const now = performance.now();
    this.killedAt.set(pid, now);
    this.kills.push({ pid, bytes, at: now });
    while (this.kills.length > 0 && now - this.kills[0]!.at > KILL_EXPLAINS_MS) this.kills.shift();
    this.o.log.warn("browser: stopped a page's renderer over the memory limit", {
      pid,
      usedMb: Math.round(bytes / 2 ** 20),
      limitMb: Math.round(this.o.limitBytes / 2 ** 20),
    });
    return true;
  }

  /**
   * Which renderers of `browser` to measure, given those `/proc` found under it (`seen`, undefined when `/proc` does
   * not show it: not a local process, or `/proc` unreadable, and Chromium is asked). Once `/proc` has found one of
   * its renderers, `/proc` is trusted for that browser, even when it finds none; until then Chromium is asked too
   * (within the list's time), and a browser whose renderers `/proc` misses (a process tree it does not know) is
   * asked from then on: the guard is never silently off.
   */
  private async renderersOf(browser: Browser, seen: number[] | undefined): Promise<number[]> {
    const source = this.sources.get(browser);
    if (seen === undefined || source === "chromium") return this.rendererPids(browser);
    if (seen.length > 0 || source === "proc") {
      this.sources.set(browser, "proc");
      return seen;
    }
    const listed = await this.rendererPids(browser);
    if (listed.length > 0) this.sources.set(browser, "chromium");
    return listed;
  }

  /** The browser's renderer processes, as listed at most {@link PROCESS_LIST_TTL_MS} ago. */
  private async rendererPids(browser: Browser): Promise<number[]> {
    const known = this.lists.get(browser);
    if (known && performance.now() - known.at < PROCESS_LIST_TTL_MS) return known.pids;
    const pids = await this.askRendererPids(browser);
    // Timed from the answer (or the failure, which is kept as well): a slow or silent browser is asked again only
    // after the full interval, not at every check (which each waited its whole timeout).
    this.lists.set(browser, { pids, at: performance.now() });
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
