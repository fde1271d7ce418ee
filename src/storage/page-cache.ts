/**
 * @module storage/page-cache
 * The `maxAge` cache. It stores the fetched page (bytes and transport facts), not a rendered document, so a
 * later request for other formats of the same page is still a hit; rendering from bytes costs milliseconds.
 * Keys are hashes of the URL plus every option that changes what is fetched (see scrape/cache-key.ts).
 *
 * Bodies are appended to segment files under `<dataDir>/cache/` (body-segments.ts) and only the facts — which
 * segment, where, how long — live in SQLite. History of this choice, all measured on a crawl:
 * - bodies in SQLite: written to the WAL, then again at each checkpoint; the costliest part of a crawled page
 *   after parsing;
 * - one file per body: creating a file costs ≈ 0.25 ms of kernel time on ext4 whatever its size (0.02 ms to
 *   append the same 85 KB to an open file), ≈ 10 % of a crawled page's CPU;
 * - append-only segments (now): one positioned write per body.
 *
 * A row is written after its body, so a row always points at written bytes; bytes without a row (a crash between
 * the two, or a key stored again) are dead space until their segment's rows are all pruned, then the segment file
 * is deleted. A row whose bytes cannot be read back whole (a truncated segment) is a miss. Pages fetched again and
 * again (`maxAge: 0`, monitoring) would leave every old copy in place for the whole retention, so {@link
 * PageCache.compact} copies the live bodies of mostly dead segments forward and deletes those segments.
 */
import type { Database } from "bun:sqlite";
import type { Page } from "../engines/types.ts";
import { BodySegments } from "./body-segments.ts";

/** A cached page and when it was fetched. */
export interface CachedPage {
  page: Page;
  cachedAt: number;
}

type PageMeta = Omit<Page, "body" | "text" | "artifacts">;
/**
 * What is stored as JSON beside the bytes. A page with a screenshot (the only artifact that is cached: see
 * {@link isCacheableArtifacts}) stores the image right after its body in the same blob, so both live and go in one
 * segment; `bodyBytes` says where the body ends.
 */
type StoredMeta = PageMeta & { bodyBytes?: number; screenshotType?: string; screenshotClippedAtPx?: number };

/**
 * Whether a page's engine artifacts may be cached with it: none, or a screenshot only. The cache key holds the
 * screenshot's options (scrape/cache-key.ts), and a shared fetch (no headers, actions or profile) of a public page
 * is as shareable as its HTML; actions' results and branding are per request.
 */
export function isCacheableArtifacts(artifacts: Page["artifacts"]): boolean {
  if (!artifacts) return true;
  return Object.entries(artifacts).every(([k, v]) => v === undefined || k === "screenshot");
}

const KEY = /^[0-9a-f]{64}$/;

/**
 * A sealed segment whose live bodies fill less than this share of it is compacted. At 0.5 the folder holds at most
 * about twice the live bytes (plus the segment being written), and a body is copied at most about once per
 * segment's worth of new writes.
 */
export const COMPACT_BELOW_LIVE_SHARE = 0.5;

/** Longest stretch of compaction (synchronous reads and writes) before other requests get the thread back. */
const COMPACT_YIELD_EVERY_MS = 10;

/** What {@link PageCache.compact} did. */
export interface CompactionReport {
  segments: number;
  movedBodies: number;
  movedBytes: number;
  /** Bytes of segment files deleted. */
  freedBytes: number;
}

/** Read and write access to the page cache. */
export class PageCache {
  private readonly segments: BodySegments;
  private readonly getStmt;
  private readonly putStmt;
  private readonly pruneStmt;
  private readonly liveSegmentsStmt;
  private readonly liveBytesStmt;
  private readonly rowsInStmt;
  private readonly moveStmt;
  private closed = false;

  /** `segmentBytes`: size at which a new body segment starts (tests make it tiny). */
  constructor(db: Database, dataDir: string, segmentBytes?: number) {
    this.segments = new BodySegments(dataDir, segmentBytes);
    this.getStmt = db.query<{ cached_at: number; meta: string; segment: string; offset: number; size: number }, [string]>(
      "SELECT cached_at, meta, segment, offset, size FROM page_cache WHERE cache_key = ?",
    );
    this.putStmt = db.query(
      "INSERT OR REPLACE INTO page_cache (cache_key, url, cached_at, meta, segment, offset, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.pruneStmt = db.query("DELETE FROM page_cache WHERE cached_at < ?");
    this.liveSegmentsStmt = db.query<{ segment: string }, []>("SELECT DISTINCT segment FROM page_cache");
    this.liveBytesStmt = db.query<{ segment: string; live: number }, []>("SELECT segment, SUM(size) AS live FROM page_cache GROUP BY segment");
    this.rowsInStmt = db.query<{ cache_key: string; offset: number; size: number }, [string]>(
      "SELECT cache_key, offset, size FROM page_cache WHERE segment = ?",
    );
    // Only if the row still points where it was read: a page stored again meanwhile keeps its new copy.
    this.moveStmt = db.query<unknown, [string, number, string, string, number]>(
      "UPDATE page_cache SET segment = ?, offset = ? WHERE cache_key = ? AND segment = ? AND offset = ?",
    );
  }

  /** The cached page for `key` if it was fetched at or after `notBefore` (epoch ms). */
  get(key: string, notBefore: number): CachedPage | undefined {
    if (!KEY.test(key)) return undefined;
    const row = this.getStmt.get(key);
    if (!row || row.cached_at < notBefore) return undefined;
    const blob = this.segments.read(row.segment, row.offset, row.size);
    if (!blob) return undefined; // the segment is gone or short: a miss
    const { bodyBytes, screenshotType, screenshotClippedAtPx, ...meta } = JSON.parse(row.meta) as StoredMeta;
    const body = bodyBytes === undefined ? blob : blob.subarray(0, bodyBytes);
    const page: Page = { ...meta, body, engine: meta.engine };
    if (bodyBytes !== undefined && screenshotType) {
      const screenshot = { bytes: blob.subarray(bodyBytes), contentType: screenshotType };
      page.artifacts = { screenshot: screenshotClippedAtPx === undefined ? screenshot : { ...screenshot, clippedAtPx: screenshotClippedAtPx } };
    }
    if (meta.charset) page.text = new TextDecoder(meta.charset).decode(body);
    return { page, cachedAt: row.cached_at };
  }

  /** Stores `page` under `key` (a hex SHA-256), replacing an older copy. Async so that a failed write is a rejection. */
  async put(key: string, page: Page, cachedAt: number): Promise<void> {
    if (!KEY.test(key)) throw new TypeError("page cache keys are hex SHA-256 digests");
    if (!isCacheableArtifacts(page.artifacts)) throw new TypeError("only pages without artifacts, or with a screenshot only, are cached");
    const { body, text: _text, artifacts, degraded: _degraded, ...meta } = page;
    const shot = artifacts?.screenshot;
    let blob = body;
    let stored: StoredMeta = meta;
    if (shot) {
      blob = new Uint8Array(body.byteLength + shot.bytes.byteLength);
      blob.set(body, 0);
      blob.set(shot.bytes, body.byteLength);
      stored = { ...meta, bodyBytes: body.byteLength, screenshotType: shot.contentType };
      if (shot.clippedAtPx !== undefined) stored.screenshotClippedAtPx = shot.clippedAtPx;
    }
    const at = this.segments.append(blob);
    this.putStmt.run(key, page.requestedUrl, cachedAt, JSON.stringify(stored), at.segment, at.offset, blob.byteLength);
  }

  /** Deletes entries fetched before `olderThan` (epoch ms) and segment files no entry points into; returns how many entries. */
  prune(olderThan: number): number {
    const removed = this.pruneStmt.run(olderThan).changes;
    this.segments.removeAllBut(new Set(this.liveSegmentsStmt.all().map((r) => r.segment)));
    return removed;
  }

  /**
   * Copies the live bodies of sealed segments that are mostly dead space ({@link COMPACT_BELOW_LIVE_SHARE}) to the
   * segment being written, then deletes those segments. Gives the thread back every few milliseconds; stops when
   * the cache is closed. A read racing a move finds the old copy, or a miss once its segment is gone.
   */
  async compact(): Promise<CompactionReport> {
    const report: CompactionReport = { segments: 0, movedBodies: 0, movedBytes: 0, freedBytes: 0 };
    const live = new Map(this.liveBytesStmt.all().map((r) => [r.segment, r.live]));
    const sparse = this.segments.sealed().filter((s) => (live.get(s.segment) ?? 0) < s.bytes * COMPACT_BELOW_LIVE_SHARE);
    let yieldedAt = performance.now();
    for (const { segment, bytes } of sparse) {
      for (const row of this.rowsInStmt.all(segment)) {
        if (performance.now() - yieldedAt > COMPACT_YIELD_EVERY_MS) {
          await Bun.sleep(0);
          yieldedAt = performance.now();
        }
        if (this.closed) return report;
        const blob = this.segments.read(segment, row.offset, row.size);
        if (!blob) continue; // unreadable: a miss either way, and the row goes with its segment below
        const at = this.segments.append(blob);
        if (this.moveStmt.run(at.segment, at.offset, row.cache_key, segment, row.offset).changes > 0) {
          report.movedBodies++;
          report.movedBytes += blob.byteLength;
        }
      }
      if (this.closed) return report;
      report.segments++;
      report.freedBytes += bytes;
    }
    if (sparse.length > 0) {
      // Rows left in a compacted segment could not be read: they are misses, and go with it.
      const compacted = new Set(sparse.map((s) => s.segment));
      this.segments.removeAllBut(new Set(this.liveSegmentsStmt.all().map((r) => r.segment).filter((s) => !compacted.has(s))));
    }
    return report;
  }

  /** Closes the segment files (the database is closed by its owner). */
  close(): void {
    this.closed = true;
    this.segments.close();
  }
}
