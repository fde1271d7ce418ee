/**
 * @module storage/page-cache
 * The `maxAge` cache. It stores the fetched page (bytes and transport facts), not a rendered document, so a
 * later request for other formats of the same page is still a hit; rendering from bytes costs milliseconds.
 * Keys are hashes of the URL plus every option that changes what is fetched (see scrape/cache-key.ts).
 */
import type { Database } from "bun:sqlite";
import type { Page } from "../engines/types.ts";

/** A cached page and when it was fetched. */
export interface CachedPage {
  page: Page;
  cachedAt: number;
}

type PageMeta = Omit<Page, "body" | "text">;

/** Read and write access to the page cache table. */
export class PageCache {
  private readonly getStmt;
  private readonly putStmt;
  private readonly pruneStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.query<{ cached_at: number; meta: string; body: Uint8Array }, [string]>(
      "SELECT cached_at, meta, body FROM page_cache WHERE cache_key = ?",
    );
    this.putStmt = db.query(
      "INSERT OR REPLACE INTO page_cache (cache_key, url, cached_at, meta, body) VALUES (?, ?, ?, ?, ?)",
    );
    this.pruneStmt = db.query("DELETE FROM page_cache WHERE cached_at < ?");
  }

  /** The cached page for `key` if it was fetched at or after `notBefore` (epoch ms). */
  get(key: string, notBefore: number): CachedPage | undefined {
    const row = this.getStmt.get(key);
    if (!row || row.cached_at < notBefore) return undefined;
    const meta = JSON.parse(row.meta) as PageMeta;
    const body = new Uint8Array(row.body);
    const page: Page = { ...meta, body, engine: meta.engine };
    if (meta.charset) page.text = new TextDecoder(meta.charset).decode(body);
    return { page, cachedAt: row.cached_at };
  }

  /** Stores `page` under `key`, replacing an older copy. */
  put(key: string, page: Page, cachedAt: number): void {
    const { body, text: _text, ...meta } = page;
    this.putStmt.run(key, page.requestedUrl, cachedAt, JSON.stringify(meta), body);
  }

  /** Deletes entries fetched before `olderThan` (epoch ms); returns how many. */
  prune(olderThan: number): number {
    return this.pruneStmt.run(olderThan).changes;
  }
}
