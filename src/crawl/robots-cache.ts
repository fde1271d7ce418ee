/**
 * @module crawl/robots-cache
 * Fetches and caches robots.txt per origin through an {@link Engine} (so through the egress gate), with the
 * RFC 9309 §2.3.1 status rules (reliability.md B5):
 *
 * | answer | meaning | rules |
 * |---|---|---|
 * | 2xx | parsed (first {@link MAX_ROBOTS_PARSE_BYTES}) | the file's |
 * | 3xx | followed by the engine (20 hops ≥ the RFC's 5); too many hops or a loop = "unavailable" | allow all |
 * | 4xx | "unavailable" | allow all |
 * | 5xx, network, DNS, timeout, oversized body | "unreachable" | disallow all |
 *
 * Entries live 24 h (RFC 9309 §2.4). Unreachable answers are kept only {@link DEFAULT_ERROR_TTL_MS}, so a
 * server that was briefly down is asked again instead of blocking a crawl for a day. Concurrent lookups of one
 * origin share one fetch; the cache is an LRU bounded by `maxEntries`. The clock is injected.
 *
 * A shared fetch lasts while someone waits for it: it is aborted (and nothing cached) once every caller that asked
 * for it has given up through its signal, and runs to its end when one asked without a signal. A map answers and
 * aborts its signal; before, the robots.txt files it had asked for in advance (another site's, a start file slower
 * than its `timeout`) went on fetching for up to {@link DEFAULT_ROBOTS_TIMEOUT_MS} after the answer, for nobody.
 */
import type { Engine } from "../engines/types.ts";
import { CrawlboxError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { MAX_ROBOTS_PARSE_BYTES, RobotsTxt, type RobotsOracle } from "./robots.ts";

/** How long a fetched robots.txt is used (RFC 9309 §2.4: at most 24 h). */
export const ROBOTS_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the fetches that discover a site's pages (robots.txt, sitemaps, a map's pages) skip certificate checks: yes,
 * as a scrape does by default (api-v2.md §2.2 `skipTlsVerification`). Verified, an intranet site with its own CA
 * was scraped but not discovered: its robots.txt "unreachable" (every link disallowed), a map of it one URL long.
 */
export const DISCOVERY_SKIPS_TLS_VERIFICATION = true;
/** How long an "unreachable" answer (complete disallow) is kept before asking again. */
export const DEFAULT_ERROR_TTL_MS = 5 * 60 * 1000;
/** Deadline of one robots.txt fetch. */
export const DEFAULT_ROBOTS_TIMEOUT_MS = 10_000;
/** Largest robots.txt body read; larger counts as unreachable (the engine refuses it, there is no prefix). */
export const MAX_ROBOTS_FETCH_BYTES = 5 * 1024 * 1024;
/** Origins kept. */
export const DEFAULT_ROBOTS_CACHE_ENTRIES = 1000;

/** How the fetch went: RFC 9309's three cases. */
export type RobotsStatus = "ok" | "unavailable" | "unreachable";

/** The robots.txt of one origin, as fetched at `fetchedAt`. */
export interface RobotsEntry extends RobotsOracle {
  /** `scheme://host[:port]`. */
  origin: string;
  robotsUrl: string;
  status: RobotsStatus;
  /** HTTP status of the final answer, when there was one. */
  statusCode?: number;
  /** Error code when the fetch failed (e.g. `SCRAPE_TIMEOUT`, `SCRAPE_DNS_RESOLUTION_ERROR`). */
  errorCode?: string;
  rules: RobotsTxt;
  fetchedAt: number;
  expiresAt: number;
  /** `Crawl-delay` for `agents`, seconds. */
  crawlDelaySeconds(agents: readonly string[]): number | undefined;
  /** Absolute sitemap URLs listed in the file. */
  sitemaps: readonly string[];
}

/** Options of {@link RobotsCache}. */
export interface RobotsCacheOptions {
  engine: Pick<Engine, "fetch">;
  /** @default Date.now */
  now?: () => number;
  /** @default ROBOTS_TTL_MS (24 h) */
  ttlMs?: number;
  /** @default DEFAULT_ERROR_TTL_MS (5 min) */
  errorTtlMs?: number;
  /** @default DEFAULT_ROBOTS_TIMEOUT_MS */
  timeoutMs?: number;
  /** @default DEFAULT_ROBOTS_CACHE_ENTRIES */
  maxEntries?: number;
  /** Extra request headers (e.g. a custom User-Agent). */
  headers?: Record<string, string>;
}

/** The parseable prefix: at most `max` bytes, cut back to the last complete line when cut. */
function parsePrefix(body: Uint8Array, max = MAX_ROBOTS_PARSE_BYTES): string {
  if (body.byteLength <= max) return new TextDecoder().decode(body);
  const text = new TextDecoder().decode(body.subarray(0, max));
  const nl = text.lastIndexOf("\n");
  return nl >= 0 ? text.slice(0, nl) : text;
}

/** Too many redirects or a redirect loop: the file is "unavailable" (RFC 9309 §2.3.1.2). */
function isRedirectFailure(err: unknown): boolean {
  const reason = (err as CrawlboxError)?.details as { reason?: string } | undefined;
  return reason?.reason === "too_many_redirects" || reason?.reason === "redirect_loop";
}

/** The origin of an absolute URL; throws a `TypeError` on anything else. */
export function originOf(url: string | URL): string {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`not an http(s) URL: ${u.href}`);
  return u.origin;
}

/** One robots.txt fetch in flight, shared by its callers; aborted when the last of them gives up. */
interface Inflight {
  promise: Promise<RobotsEntry>;
  abort: AbortController;
  /** Callers with a signal that has not aborted. */
  waiting: number;
  /** A caller asked without a signal: the fetch runs to its end. */
  pinned: boolean;
}

/** A per-origin robots.txt cache; also a {@link RobotsOracle} over what it holds. */
export class RobotsCache implements RobotsOracle {
  private readonly entries = new Map<string, RobotsEntry>();
  private readonly inflight = new Map<string, Inflight>();
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly errorTtlMs: number;
  private readonly timeoutMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: RobotsCacheOptions) {
    if (!options?.engine) throw new TypeError("RobotsCache: engine is required");
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? ROBOTS_TTL_MS;
    this.errorTtlMs = options.errorTtlMs ?? DEFAULT_ERROR_TTL_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ROBOTS_TIMEOUT_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_ROBOTS_CACHE_ENTRIES;
    for (const [k, v] of Object.entries({ ttlMs: this.ttlMs, errorTtlMs: this.errorTtlMs, timeoutMs: this.timeoutMs, maxEntries: this.maxEntries })) {
      if (!Number.isFinite(v) || v <= 0) throw new TypeError(`RobotsCache: ${k} must be > 0`);
    }
  }

  /** Origins held. */
  get size(): number {
    return this.entries.size;
  }

  /** The fresh cached entry for `url`'s origin, without fetching. */
  peek(url: string | URL): RobotsEntry | undefined {
    let origin: string;
    try {
      origin = originOf(url);
    } catch {
      return undefined;
    }
    const e = this.entries.get(origin);
    if (e && e.expiresAt > this.now()) return e;
    return undefined;
  }

  /** {@link RobotsOracle}: the verdict from the cached entry of `url`'s origin; undefined when none is cached. */
  isAllowed(url: string, agents: readonly string[]): boolean | undefined {
    return this.peek(url)?.isAllowed(url, agents);
  }

  /** Fetches in flight (origins being fetched). */
  get fetching(): number {
    return this.inflight.size;
  }

  /**
   * The robots.txt entry for `url`'s origin, fetched when missing or expired. Never throws for site failures
   * (they become "unreachable"); rejects only when `signal` aborts. The fetch is shared and bounded by `timeoutMs`:
   * one caller giving up does not fail the others, and it is aborted, caching nothing, once every caller has given
   * up (a caller without `signal` keeps it to its end), so that no fetch runs on for nobody.
   */
  async get(url: string | URL, signal?: AbortSignal): Promise<RobotsEntry> {
    const origin = originOf(url);
    const cached = this.peek(origin);
    if (cached) {
      this.entries.delete(origin); // LRU: refresh position
      this.entries.set(origin, cached);
      return cached;
    }
    signal?.throwIfAborted();
    const flight = this.inflight.get(origin) ?? this.startFetch(origin);
    if (!signal) {
      flight.pinned = true;
      return flight.promise;
    }
    flight.waiting++;
    const leave = () => {
      flight.waiting--;
      if (flight.waiting > 0 || flight.pinned) return;
      if (this.inflight.get(origin) === flight) this.inflight.delete(origin); // a caller after this starts afresh
      flight.abort.abort();
    };
    signal.addEventListener("abort", leave, { once: true });
    flight.promise.finally(() => signal.removeEventListener("abort", leave)).catch(() => {});
    return raceAbort(flight.promise, signal);
  }

  /** Starts the shared fetch of `origin`'s robots.txt; its entry is cached unless every caller gave up first. */
  private startFetch(origin: string): Inflight {
    const abort = new AbortController();
    const promise = this.fetchEntry(origin, abort.signal).then((entry) => {
      this.entries.delete(origin);
      this.entries.set(origin, entry);
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      return entry;
    });
    const flight: Inflight = { promise, abort, waiting: 0, pinned: false };
    promise
      .finally(() => {
        if (this.inflight.get(origin) === flight) this.inflight.delete(origin);
      })
      .catch(() => {});
    this.inflight.set(origin, flight);
    return flight;
  }

  /**
   * {@link get}, waiting at most `waitMs`: a caller with less time than the fetch's own `timeoutMs` (a map with a
   * short `timeout`) gets, when the file has not come, what a timeout would give: "unreachable" (disallow all),
   * error code `SCRAPE_TIMEOUT`. That answer is not cached; the shared fetch goes on and caches its own, while
   * `signal` (or another caller) still wants it.
   */
  async getWithin(url: string | URL, waitMs: number, signal?: AbortSignal): Promise<RobotsEntry> {
    const cached = this.peek(url);
    if (cached) return cached;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<RobotsEntry>((resolve) => {
      timer = setTimeout(() => {
        const origin = originOf(url);
        const fetchedAt = this.now();
        resolve(makeEntry({ origin, robotsUrl: `${origin}/robots.txt`, status: "unreachable", rules: RobotsTxt.disallowAll(), fetchedAt, expiresAt: fetchedAt, errorCode: "SCRAPE_TIMEOUT" }));
      }, Math.max(0, waitMs));
    });
    try {
      return await Promise.race([this.get(url, signal), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Forgets `url`'s origin. */
  delete(url: string | URL): void {
    this.entries.delete(originOf(url));
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }

  /** The entry of `origin`'s robots.txt; rejects (nothing to cache) only when `signal` aborted the fetch. */
  private async fetchEntry(origin: string, signal: AbortSignal): Promise<RobotsEntry> {
    const robotsUrl = `${origin}/robots.txt`;
    const fetchedAt = this.now();
    const make = (status: RobotsStatus, rules: RobotsTxt, extra: { statusCode?: number; errorCode?: string } = {}): RobotsEntry =>
      makeEntry({ origin, robotsUrl, status, rules, fetchedAt, expiresAt: fetchedAt + (status === "unreachable" ? this.errorTtlMs : this.ttlMs), ...extra });
    try {
      const page = await this.options.engine.fetch(
        { url: robotsUrl, headers: { accept: "text/plain,*/*;q=0.8", ...this.options.headers }, timeoutMs: this.timeoutMs, maxBodyBytes: MAX_ROBOTS_FETCH_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION },
        signal,
      );
      const code = page.statusCode;
      if (code >= 200 && code < 300) return make("ok", RobotsTxt.parse(parsePrefix(page.body), page.finalUrl), { statusCode: code });
      if (code >= 500) return make("unreachable", RobotsTxt.disallowAll(), { statusCode: code });
      return make("unavailable", RobotsTxt.allowAll(), { statusCode: code });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const errorCode = err instanceof CrawlboxError ? err.code : "UNKNOWN_ERROR";
      if (isRedirectFailure(err)) return make("unavailable", RobotsTxt.allowAll(), { errorCode });
      return make("unreachable", RobotsTxt.disallowAll(), { errorCode });
    }
  }
}

/** Builds an entry whose oracle answers only for its own origin (as robots-parser does upstream). */
export function makeEntry(fields: Omit<RobotsEntry, "isAllowed" | "crawlDelaySeconds" | "sitemaps">): RobotsEntry {
  return {
    ...fields,
    sitemaps: fields.rules.sitemaps,
    isAllowed(url: string, agents: readonly string[]) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return undefined;
      }
      if (u.origin !== fields.origin) return undefined;
      return fields.rules.isAllowed(u, agents);
    },
    crawlDelaySeconds(agents: readonly string[]) {
      return fields.rules.crawlDelaySeconds(agents);
    },
  };
}
