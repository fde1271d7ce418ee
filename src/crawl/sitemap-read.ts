/**
 * @module crawl/sitemap-read
 * Reads sitemap candidates and every sitemap they point to (crawl/sitemap.ts), within bounds:
 *
 * - breadth-first, up to {@link SITEMAP_CONCURRENCY} files at a time: an index of 19 children answering in 1 s each
 *   took 19 s one at a time. More than one only while the files read so far say the URL bound is still far off
 *   ({@link roomForAnother}), or one more for each {@link SLOW_SITEMAP_MS} the oldest has been in flight (it may
 *   hang): an index of 8 files of 45 MB whose first reaches the bound had 5 of them fetched and decoded (1.9 GB for
 *   4 maps at once). Each file may take what is left of the read (a 30 s cap of its own lost a slow 10 MB sitemap,
 *   and a crawl with `sitemap: "only"` its pages). Results are taken in the order the files
 *   were asked for, so the URLs come out in the order a one-at-a-time read gives;
 * - at most `maxSitemaps` files (20, upstream's bound), at most `maxUrls` URLs kept (with `keep`, only the URLs it
 *   keeps count: a crawl of `/blog` must not stop reading because of the site's other sections), at most
 *   `maxUrlsScanned` looked at, one overall deadline (120 s upstream);
 * - failures are collected in `errors`, never thrown, except when the caller's signal aborts. A file over the
 *   size cap whose first part could be read gives that part's URLs and an error `SITEMAP_TOO_LARGE` too; a file
 *   still being read when the time ran out, `SITEMAP_NOT_FINISHED`.
 */
import type { Engine } from "../engines/types.ts";
import { createYielder } from "./filter-yielding.ts";
import { OrderedPool } from "./ordered-pool.ts";
import type { SitemapCandidate } from "./sitemap.ts";
import { fetchSitemapFile, SITEMAP_NOT_FINISHED, SITEMAP_TOO_LARGE, type SitemapFile } from "./sitemap-fetch.ts";
import { parseSitemapPieces } from "./sitemap-parse.ts";

/** Sitemaps fetched per read (upstream's bound). */
export const MAX_SITEMAPS = 20;
/** URLs kept per read unless the caller says otherwise. */
export const DEFAULT_MAX_SITEMAP_URLS = 100_000;
/**
 * URLs looked at per read, kept or not, unless the caller says otherwise: with a `keep` that refuses most of a huge
 * sitemap, `maxUrls` alone would never stop the read.
 */
export const DEFAULT_MAX_SITEMAP_URLS_SCANNED = 100_000;
/** Overall deadline of a read (upstream: 120 s). */
export const DEFAULT_SITEMAP_TIMEOUT_MS = 120_000;
/** Files fetched at once. Small: an index's children are usually on one host, which we must not flood. */
export const SITEMAP_CONCURRENCY = 4;
/**
 * For each this long the oldest file has been in flight, one more file may be fetched beside it whatever the URL
 * bound (it may hang: one file holding the read until its deadline lost every other file's URLs; but a large file
 * on a slow link is not hanging, and four at once fetched three files of 45 MB for nothing).
 */
export const SLOW_SITEMAP_MS = 2_000;
/** Text of files read but not yet taken (behind one still being read) past which no file is begun. */
const MAX_HELD_CHARS = 64 * 1024 * 1024;

/** Options of {@link readSitemaps}. */
export interface ReadSitemapsOptions {
  engine: Pick<Engine, "fetch">;
  /** @default MAX_SITEMAPS */
  maxSitemaps?: number;
  /** URLs kept (those `keep` accepts). @default DEFAULT_MAX_SITEMAP_URLS */
  maxUrls?: number;
  /** URLs looked at, kept or not: the hard bound on a read's work. @default max(DEFAULT_MAX_SITEMAP_URLS_SCANNED, maxUrls) */
  maxUrlsScanned?: number;
  /**
   * Which URLs the caller wants (a crawl's scope: start path, `includePaths`, …). Refused URLs are neither returned
   * nor counted towards `maxUrls`, so in-scope URLs listed after many others are still found. @default keep all
   */
  keep?: (url: string) => boolean;
  /** @default DEFAULT_SITEMAP_TIMEOUT_MS */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** The URL `headers` belong to: sitemaps on other origins get only the cross-origin-safe ones. */
  headersOrigin?: string;
  signal?: AbortSignal;
  /** Called with each file's new URLs as they arrive (a crawl can enqueue, a map list, before the read ends). */
  onUrls?: (urls: string[], sitemapUrl: string) => void | Promise<void>;
}

/** A file that failed, or was read in part only. */
export interface SitemapFailure {
  url: string;
  code: string;
  message: string;
}

/** The outcome of {@link readSitemaps}. */
export interface SitemapResult {
  /** Unique page URLs in discovery order (those `keep` accepts). */
  urls: string[];
  /** URLs looked at, kept or not (duplicates and other hosts' URLs of a parent-domain sitemap included). */
  scanned: number;
  /** Sitemap URLs fetched (or begun), in order. */
  fetched: string[];
  errors: SitemapFailure[];
  /** A bound (sitemaps, URLs or time) stopped the read early. */
  truncated: boolean;
  /** Which bound: `maxSitemaps`, `maxUrls`, `maxUrlsScanned` or the deadline (`time`). */
  stoppedBy?: "sitemaps" | "urls" | "scanned" | "time";
  timedOut: boolean;
}

/** A file asked for, and what it gave (an abort is an outcome too: the pool's tasks never reject). */
interface Outcome {
  candidate: SitemapCandidate;
  got: { file: SitemapFile } | { aborted: unknown };
}

/** Reads `candidates` and every sitemap they point to, within the bounds. */
export async function readSitemaps(candidates: readonly SitemapCandidate[], options: ReadSitemapsOptions): Promise<SitemapResult> {
  const maxSitemaps = options.maxSitemaps ?? MAX_SITEMAPS;
  const maxUrls = options.maxUrls ?? DEFAULT_MAX_SITEMAP_URLS;
  const maxUrlsScanned = options.maxUrlsScanned ?? Math.max(DEFAULT_MAX_SITEMAP_URLS_SCANNED, maxUrls);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SITEMAP_TIMEOUT_MS;
  const startedAt = performance.now();
  const deadline = AbortSignal.timeout(timeoutMs);
  // Aborted when a bound is reached: the files still in flight are no longer wanted.
  const done = new AbortController();
  const fileSignal = AbortSignal.any([deadline, done.signal, ...(options.signal ? [options.signal] : [])]);
  const result: SitemapResult = { urls: [], scanned: 0, fetched: [], errors: [], truncated: false, timedOut: false };
  const stopAt = (bound: NonNullable<SitemapResult["stoppedBy"]>) => {
    result.truncated = true;
    result.stoppedBy ??= bound;
    if (bound === "time") result.timedOut = true;
  };
  // The fetch's own deadline is the time left, so it can fire a moment before `deadline` does.
  const outOfTime = () => deadline.aborted || performance.now() - startedAt >= timeoutMs - 2;
  const atUrlBound = () => (result.urls.length >= maxUrls ? "urls" : result.scanned >= maxUrlsScanned ? "scanned" : undefined);
  const seenUrls = new Set<string>();
  const seenSitemaps = new Set<string>();
  const queue: SitemapCandidate[] = [];
  const enqueue = (c: SitemapCandidate) => {
    if (!seenSitemaps.has(c.url)) {
      seenSitemaps.add(c.url);
      queue.push(c);
    }
  };
  candidates.filter((c) => !c.lastResort).forEach(enqueue);
  const lastResorts = candidates.filter((c) => c.lastResort);
  /** The most URLs a file with URLs gave so far (kept, and looked at), for {@link roomForAnother}. */
  let largest: FileYield | undefined;
  const pool = new OrderedPool<Outcome>({
    concurrency: SITEMAP_CONCURRENCY,
    weigh: ({ got }) => ("file" in got && got.file.ok ? (got.file.text?.length ?? 0) : 0),
    maxHeldWeight: MAX_HELD_CHARS,
  });

  /** When each file still being fetched was begun. */
  const flying = new Set<{ at: number }>();
  const slowest = () => {
    let oldest = Infinity;
    for (const f of flying) oldest = Math.min(oldest, f.at);
    return flying.size === 0 ? 0 : performance.now() - oldest;
  };
  const begin = (candidate: SitemapCandidate): Promise<Outcome> => {
    result.fetched.push(candidate.url);
    const flight = { at: performance.now() };
    flying.add(flight);
    const fileMs = Math.max(1, Math.round(timeoutMs - (performance.now() - startedAt)));
    const context = { engine: options.engine, headers: options.headers, headersOrigin: options.headersOrigin, timeoutMs: fileMs, signal: fileSignal };
    // Parsed when its turn comes, a piece at a time: the reader may stop at a bound long before the end.
    return fetchSitemapFile(candidate.url, context)
      .then(
        (file) => ({ candidate, got: { file } }),
        (aborted: unknown) => ({ candidate, got: { aborted } }),
      )
      .finally(() => flying.delete(flight));
  };

  try {
    for (;;) {
      while (pool.hasRoom() && queue.length > 0 && result.fetched.length < maxSitemaps && !outOfTime() && (pool.size <= Math.floor(slowest() / SLOW_SITEMAP_MS) || roomForAnother(pool.size, largest, result, maxUrls, maxUrlsScanned))) {
        const next = queue.shift()!;
        pool.add(() => begin(next));
      }
      if (pool.size === 0) {
        if (queue.length === 0 && result.urls.length === 0 && lastResorts.length > 0 && !outOfTime()) {
          enqueue(lastResorts.shift()!);
          continue;
        }
        if (queue.length > 0) stopAt(outOfTime() ? "time" : "sitemaps");
        break;
      }
      if (!pool.headReady()) {
        // The first file is still being read: the others go on meanwhile, and their places are given to new ones.
        // Woken too at each SLOW_SITEMAP_MS the oldest file has been in flight, when one more may begin beside it.
        let wake: ReturnType<typeof setTimeout> | undefined;
        const slow = slowest();
        const slowAt = SLOW_SITEMAP_MS * (Math.floor(slow / SLOW_SITEMAP_MS) + 1) - slow;
        const waking = queue.length > 0 && pool.hasRoom() && result.fetched.length < maxSitemaps;
        await Promise.race([pool.progress(), ...(waking ? [new Promise<void>((r) => (wake = setTimeout(r, slowAt + 1)))] : [])]);
        clearTimeout(wake);
        if (options.signal?.aborted) throw options.signal.reason;
        continue;
      }
      const { candidate, got } = pool.take();
      if (options.signal?.aborted) throw options.signal.reason;
      if ("aborted" in got || (!got.file.ok && outOfTime())) {
        // Cut by the read's deadline: the files that finished meanwhile are still taken, nothing new is begun.
        result.errors.push({ url: candidate.url, code: SITEMAP_NOT_FINISHED, message: `not finished within the ${timeoutMs} ms the sitemaps had` });
        stopAt("time");
        continue;
      }
      const { file } = got;
      if (!file.ok) {
        const message = file.code === "SCRAPE_TIMEOUT" ? `not read within the ${timeoutMs} ms the sitemaps had` : file.message;
        result.errors.push({ url: candidate.url, code: file.code, message });
        continue;
      }
      if (file.text === undefined) continue; // an HTML page (a soft 404) is not a sitemap, and no failure
      const before = { kept: result.urls.length, scanned: result.scanned };
      const { kept, whole } = await takeFile(file.text, candidate, { result, seen: seenUrls, keep: options.keep, atBound: atUrlBound, enqueue, onUrls: options.onUrls });
      if (result.scanned > before.scanned) {
        const kept = result.urls.length - before.kept;
        const scanned = result.scanned - before.scanned;
        largest = { kept: Math.max(kept, largest?.kept ?? 0), scanned: Math.max(scanned, largest?.scanned ?? 0) };
      }
      if (file.cutAtBytes !== undefined) {
        result.errors.push({ url: candidate.url, code: SITEMAP_TOO_LARGE, message: `larger than the cap: its first ${file.cutAtBytes} bytes were read, ${kept} URLs kept from them` });
      }
      const bound = atUrlBound();
      if (bound && (queue.length > 0 || pool.size > 0 || !whole)) stopAt(bound);
      if (bound) break;
    }
  } finally {
    done.abort(); // the files still in flight when a bound, the caller or a failure ended the read
  }
  return result;
}

/**
 * Whether a file may be begun beside the `inFlight` ones: always when none is; else only once a file has given URLs
 * and the files in flight, each giving as many as the largest so far, would still leave the read under its bounds
 * (a file is fetched and decoded whole before its URLs are taken: one not needed costs up to 50 MiB).
 */
function roomForAnother(inFlight: number, largest: FileYield | undefined, result: SitemapResult, maxUrls: number, maxUrlsScanned: number): boolean {
  if (inFlight === 0) return true;
  if (!largest) return false;
  const ahead = inFlight + 1;
  return result.urls.length + ahead * largest.kept < maxUrls && result.scanned + ahead * largest.scanned < maxUrlsScanned;
}

/** The most URLs one file with URLs has given so far: kept, and looked at (each counted on its own). */
interface FileYield {
  kept: number;
  scanned: number;
}

/** What taking a file's URLs needs from the read. */
interface ReadState {
  result: SitemapResult;
  /** URLs looked at, kept or not. */
  seen: Set<string>;
  keep: ((url: string) => boolean) | undefined;
  atBound: () => string | undefined;
  enqueue: (c: SitemapCandidate) => void;
  onUrls: ReadSitemapsOptions["onUrls"];
}

/**
 * A file's text taken into the result a piece at a time, its nested sitemaps queued, until a URL bound: returns the
 * URLs kept, and whether every URL of the file was looked at.
 */
async function takeFile(text: string, from: SitemapCandidate, state: ReadState): Promise<{ kept: number; whole: boolean }> {
  let kept = 0;
  const pieces = parseSitemapPieces(text);
  for (let piece = pieces.next(); !piece.done; ) {
    for (const s of piece.value.sitemaps) state.enqueue({ url: s, hostSuffix: from.hostSuffix });
    const taken = await takeUrls(piece.value.urls, from, state);
    kept += taken.kept.length;
    if (taken.kept.length > 0) await state.onUrls?.(taken.kept, from.url);
    piece = pieces.next();
    if (state.atBound()) return { kept, whole: taken.whole && piece.done === true };
  }
  return { kept, whole: true };
}

/**
 * One file's URLs added to `result` (deduplicated, host-filtered, kept by `keep`) until a URL bound is reached;
 * returns the new ones, and whether every URL was looked at. `keep` runs the caller's patterns: 50,000 URLs must not
 * hold every other request.
 */
async function takeUrls(urls: string[], from: SitemapCandidate, { result, seen, keep, atBound }: ReadState): Promise<{ kept: string[]; whole: boolean }> {
  const fresh: string[] = [];
  const pause = createYielder();
  for (const u of urls) {
    await pause();
    if (atBound()) return { kept: fresh, whole: false };
    result.scanned++;
    if (from.hostSuffix && !hostEndsWith(u, from.hostSuffix)) continue;
    if (seen.has(u)) continue;
    // Remembered whether kept or not: a URL listed twice is judged once.
    seen.add(u);
    if (keep && !keep(u)) continue;
    result.urls.push(u);
    fresh.push(u);
  }
  return { kept: fresh, whole: true };
}

function hostEndsWith(url: string, suffix: string): boolean {
  const host = new URL(url).hostname;
  return host === suffix || host.endsWith(`.${suffix}`);
}
