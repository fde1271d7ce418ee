/**
 * @module storage/page-cache
 * The `maxAge` cache. It stores the fetched page (bytes and transport facts), not a rendered document, so a
 * later request for other formats of the same page is still a hit; rendering from bytes costs milliseconds.
 * Keys are hashes of the URL plus every option that changes what is fetched (see scrape/cache-key.ts).
 *
 * Bodies live in files under `<dataDir>/cache/`, one per key, and only the facts in SQLite: page bodies are
 * large, and writing them through SQLite's WAL (then again at each checkpoint) was the costliest part of a
 * crawled page after parsing. A row is written after its file, so a row always has its body; a file without a
 * row (a crash between the two) is overwritten by the next put or removed by `prune`.
 */
import type { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "../engines/types.ts";

/** A cached page and when it was fetched. */
export interface CachedPage {
  page: Page;
  cachedAt: number;
}

type PageMeta = Omit<Page, "body" | "text">;

const KEY = /^[0-9a-f]{64}$/;

/** Read and write access to the page cache. */
export class PageCache {
  private readonly dir: string;
  private readonly getStmt;
  private readonly putStmt;
  private readonly expiredStmt;
  private readonly deleteStmt;

  constructor(
    private readonly db: Database,
    dataDir: string,
  ) {
    this.dir = join(dataDir, "cache");
    mkdirSync(this.dir, { recursive: true });
    this.getStmt = db.query<{ cached_at: number; meta: string }, [string]>("SELECT cached_at, meta FROM page_cache WHERE cache_key = ?");
    this.putStmt = db.query("INSERT OR REPLACE INTO page_cache (cache_key, url, cached_at, meta, size) VALUES (?, ?, ?, ?, ?)");
    this.expiredStmt = db.query<{ cache_key: string }, [number]>("SELECT cache_key FROM page_cache WHERE cached_at < ?");
    this.deleteStmt = db.query("DELETE FROM page_cache WHERE cache_key = ?");
  }

  /** The cached page for `key` if it was fetched at or after `notBefore` (epoch ms). */
  get(key: string, notBefore: number): CachedPage | undefined {
    if (!KEY.test(key)) return undefined;
    const row = this.getStmt.get(key);
    if (!row || row.cached_at < notBefore) return undefined;
    let body: Uint8Array;
    try {
      body = readFileSync(join(this.dir, key));
    } catch {
      return undefined; // the file was removed under us: a miss
    }
    const meta = JSON.parse(row.meta) as PageMeta;
    const page: Page = { ...meta, body, engine: meta.engine };
    if (meta.charset) page.text = new TextDecoder(meta.charset).decode(body);
    return { page, cachedAt: row.cached_at };
  }

  /**
   * Stores `page` under `key` (a hex SHA-256), replacing an older copy. The body is written with
   * `fs.promises.writeFile`, which runs on the thread pool: `Bun.write` wrote on the JavaScript thread and, with
   * the disk busy during a crawl, cost ~5 % of a crawl's CPU.
   */
  async put(key: string, page: Page, cachedAt: number): Promise<void> {
    if (!KEY.test(key)) throw new TypeError("page cache keys are hex SHA-256 digests");
    const { body, text: _text, ...meta } = page;
    await writeFile(join(this.dir, key), body);
    this.putStmt.run(key, page.requestedUrl, cachedAt, JSON.stringify(meta), body.byteLength);
  }

  /** Deletes entries fetched before `olderThan` (epoch ms), and body files without a row; returns how many entries. */
  prune(olderThan: number): number {
    const expired = this.expiredStmt.all(olderThan);
    for (const { cache_key } of expired) {
      this.deleteStmt.run(cache_key);
      rmSync(join(this.dir, cache_key), { force: true });
    }
    const known = new Set(this.db.query<{ cache_key: string }, []>("SELECT cache_key FROM page_cache").all().map((r) => r.cache_key));
    for (const name of readdirSync(this.dir)) if (!known.has(name)) rmSync(join(this.dir, name), { force: true });
    return expired.length;
  }
}
