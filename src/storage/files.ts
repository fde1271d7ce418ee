/**
 * @module storage/files
 * Files crawlbox hands out by URL (screenshots, action PDFs, audio): bytes under `<dataDir>/files/`, a row per
 * file with its owner, type and expiry. The id is 128 random bits, so the URL itself is the capability (as
 * upstream's storage URLs are); files expire (default 24 h) and `prune` deletes them, driven by the scheduler.
 * A file made for a crawl or batch page belongs to its job too and lives as long as the job's results: while the
 * job runs, and until the job expires (reading a finished job's results extends it), whichever is later.
 */
import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Default lifetime of a stored file. */
export const FILE_TTL_MS = 24 * 60 * 60 * 1000;
/** URL path prefix under which files are served. */
export const FILES_ROUTE_PREFIX = "/v2/files/";

/** A stored file's facts. */
export interface StoredFile {
  id: string;
  contentType: string;
  size: number;
  expiresAt: number;
  /** Absolute path of the bytes on disk. */
  path: string;
}

const ID_PATTERN = /^[0-9a-f]{32}(\.[a-z0-9]{1,5})?$/;

/** File storage with expiry. */
export class FileStore {
  private readonly dir: string;

  constructor(
    private readonly db: Database,
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(dataDir, "files");
    mkdirSync(this.dir, { recursive: true });
  }

  /**
   * Stores `bytes`; returns the new file. `extension` (e.g. "png") makes the URL self-describing; `jobId` binds
   * the file's life to a crawl's or batch's results as well (see the module note).
   */
  async put(bytes: Uint8Array, contentType: string, keyId: string, extension = "", ttlMs = FILE_TTL_MS, jobId?: string): Promise<StoredFile> {
    const id = randomBytes(16).toString("hex") + (extension ? `.${extension}` : "");
    const path = join(this.dir, id);
    await Bun.write(path, bytes);
    const created = this.now();
    const file: StoredFile = { id, contentType, size: bytes.byteLength, expiresAt: created + ttlMs, path };
    this.db
      .query("INSERT INTO files (id, key_id, content_type, size, created_at, expires_at, job_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(id, keyId, contentType, file.size, created, file.expiresAt, jobId ?? null);
    return file;
  }

  /** The file with `id` unless unknown or expired (its own expiry and its job's both passed). */
  get(id: string): StoredFile | undefined {
    if (!ID_PATTERN.test(id)) return undefined;
    const row = this.db
      .query<{ content_type: string; size: number; expires_at: number; job_status: string | null; job_expires: number | null }, [string]>(
        `SELECT f.content_type, f.size, f.expires_at, j.status AS job_status, j.expires_at AS job_expires
         FROM files f LEFT JOIN jobs j ON j.id = f.job_id WHERE f.id = ?`,
      )
      .get(id);
    if (!row) return undefined;
    const now = this.now();
    // A running job's files are alive whatever their own expiry; its results then live JOB_TTL after it ends.
    const expiresAt = row.job_status === "scraping" ? Math.max(row.expires_at, now + FILE_TTL_MS) : Math.max(row.expires_at, row.job_expires ?? 0);
    if (expiresAt <= now) return undefined;
    return { id, contentType: row.content_type, size: row.size, expiresAt, path: join(this.dir, id) };
  }

  /** Deletes a file now (row and bytes), whatever its expiry. */
  remove(id: string): void {
    if (!ID_PATTERN.test(id)) return;
    rmSync(join(this.dir, id), { force: true });
    this.db.query("DELETE FROM files WHERE id = ?").run(id);
  }

  /** Deletes expired files (rows and bytes: their own expiry passed, and their job's if they have one); returns how many. */
  prune(): number {
    const now = this.now();
    const expired = this.db
      .query<{ id: string }, [number, number]>(
        `SELECT f.id FROM files f LEFT JOIN jobs j ON j.id = f.job_id
         WHERE f.expires_at <= ? AND (j.id IS NULL OR (j.status != 'scraping' AND j.expires_at <= ?))`,
      )
      .all(now, now);
    for (const { id } of expired) {
      rmSync(join(this.dir, id), { force: true });
      this.db.query("DELETE FROM files WHERE id = ?").run(id);
    }
    return expired.length;
  }
}

/** The public URL of a file, given the server's base URL (CRAWLBOX_PUBLIC_URL or the request's origin). */
export function fileUrl(baseUrl: string, file: Pick<StoredFile, "id">): string {
  return `${baseUrl.replace(/\/+$/, "")}${FILES_ROUTE_PREFIX}${file.id}`;
}
