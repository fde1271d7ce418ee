/**
 * @module parse/upload-refs
 * The upload flow of `POST /v2/parse` ([LATEST] upstream; the Firecrawl MCP server's `firecrawl_parse` uses it when
 * it cannot send the file itself, docs/parse.md): `POST /v2/parse/upload-url` reserves an upload and answers an
 * upload URL and an `uploadRef`; the file is `PUT` to the URL by whoever holds the file, with no API key (the URL
 * is the credential, as a presigned storage URL is); `POST /v2/parse {uploadRef, …options}` then parses it for the
 * key that reserved it.
 *
 * The URL's id is 256 random bits and only its SHA-256 is stored, so the database does not hold a working upload
 * URL. An upload URL takes one file (a second PUT is a 409) within {@link UPLOAD_URL_TTL_MS}; the file is kept in
 * the file store for {@link UPLOADED_FILE_TTL_MS} after it arrives (it may be parsed more than once, with other
 * options), or removed right after a parse with `zeroDataRetention`. `prune` drops expired reservations.
 *
 * A reservation costs nothing, yet each holds up to `CRAWLBOX_MAX_UPLOAD_BYTES` of disk for a day: 20 of them and
 * their PUTs put 1 GB in the file store without spending a credit. So a key holds at most
 * {@link MAX_OPEN_UPLOADS_PER_KEY} not parsed yet (reserved, or uploaded and waiting; 429 beyond), and the route
 * refuses a key that cannot spend a credit (402). A parsed upload (state `parsed`, besides the schema's `pending`,
 * `receiving` and `received`) no longer counts: its parse was paid for.
 */
import type { Database } from "bun:sqlite";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { CrawlboxError, NotFoundError, TooManyRequestsError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { FILE_TTL_MS, type FileStore } from "../storage/files.ts";

/** How long an upload URL accepts its file. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
/** How long an uploaded file can be parsed by its `uploadRef`. */
export const UPLOADED_FILE_TTL_MS = FILE_TTL_MS;
/**
 * Reservations a key may hold that were not parsed yet (reserved, or uploaded and waiting for their parse): enough
 * for a client uploading several files before parsing them, few enough that their files (each up to
 * `CRAWLBOX_MAX_UPLOAD_BYTES`) stay a bounded amount of disk per key.
 */
export const MAX_OPEN_UPLOADS_PER_KEY = 10;
/** The path of upload URLs; the id follows. */
export const UPLOAD_ROUTE_PREFIX = "/v2/parse/upload/";

/** A claim older than this is taken to be a PUT that died with its server: the URL takes a new PUT. */
const STALE_CLAIM_MS = 10 * 60 * 1000;
const UPLOAD_ID = /^[0-9a-f]{64}$/;
const UNKNOWN_UPLOAD = "Upload not found: the upload URL is unknown or has expired.";
const UNKNOWN_REF = "Upload not found: the uploadRef is unknown, has expired, or belongs to another API key.";

/** 409: the upload URL already took its file, or is taking it now. */
export class UploadAlreadyReceivedError extends CrawlboxError {
  constructor() {
    super("UPLOAD_ALREADY_RECEIVED", 409, "This upload URL has already received its file; ask for a new one with POST /v2/parse/upload-url.");
  }
}

/** 409: `POST /v2/parse {uploadRef}` before the file was PUT to the upload URL. */
export class UploadNotReceivedError extends CrawlboxError {
  constructor() {
    super("UPLOAD_NOT_RECEIVED", 409, "The file for this uploadRef has not been uploaded yet: PUT it to the upload URL first.");
  }
}

/** A reserved upload, as `POST /v2/parse/upload-url` answers it (the id goes into the URL; nothing stores it). */
export interface Reservation {
  uploadId: string;
  uploadRef: string;
  expiresAt: number;
  maxBytes: number;
}

/** An upload URL's reservation, while its file is read. */
export interface PendingUpload {
  ref: string;
  maxBytes: number;
}

/** An uploaded file, ready to parse. */
export interface ReceivedUpload {
  ref: string;
  filename: string;
  /** As declared when the URL was asked for, else as the PUT sent it ("" when neither said). */
  contentType: string;
  bytes: Uint8Array;
}

interface Row {
  ref: string;
  key_id: string;
  filename: string;
  content_type: string;
  max_bytes: number;
  expires_at: number;
  state: "pending" | "receiving" | "received" | "parsed";
  file_id: string | null;
  received_at: number | null;
}

const hashOf = (uploadId: string) => createHash("sha256").update(uploadId).digest("hex");

/** Reservations and received files of the parse upload flow, over SQLite and the file store. */
export class UploadRefStore {
  constructor(
    private readonly db: Database,
    private readonly files: FileStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reserves an upload of at most `maxBytes` for `keyId`; 429 (`TOO_MANY_OPEN_UPLOADS`) while the key holds
   * {@link MAX_OPEN_UPLOADS_PER_KEY} not parsed yet, with `Retry-After` when the first of them expires.
   */
  reserve(keyId: string, filename: string, contentType: string, maxBytes: number): Reservation {
    const uploadId = randomBytes(32).toString("hex");
    const uploadRef = randomUUID();
    const created = this.now();
    const expiresAt = created + UPLOAD_URL_TTL_MS;
    // Counted and inserted in one write transaction: concurrent requests of one key cannot both take the last place.
    immediate(this.db, () => {
      const open = this.openUploads(keyId, created);
      if (open.count >= MAX_OPEN_UPLOADS_PER_KEY) {
        throw new TooManyRequestsError(
          "TOO_MANY_OPEN_UPLOADS",
          `This API key holds ${MAX_OPEN_UPLOADS_PER_KEY} uploads that were not parsed yet (the most it may): parse them with POST /v2/parse {uploadRef}, or wait until one expires (an upload URL an hour after it was given, a file a day after it arrived).`,
          Math.max(1, Math.ceil((open.firstExpiry - created) / 1000)),
        );
      }
      this.db
        .query(
          `INSERT INTO parse_uploads (ref, id_hash, key_id, filename, content_type, max_bytes, created_at, expires_at, state)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
        )
        .run(uploadRef, hashOf(uploadId), keyId, filename, contentType, maxBytes, created, expiresAt);
    });
    return { uploadId, uploadRef, expiresAt, maxBytes };
  }

  /** The key's live uploads not parsed yet, and when the first of them expires (ms). */
  private openUploads(keyId: string, now: number): { count: number; firstExpiry: number } {
    const row = this.db
      .query<{ n: number; first: number | null }, [number, string, number, number]>(
        `SELECT COUNT(*) AS n, MIN(CASE WHEN state = 'received' THEN received_at + ? ELSE expires_at END) AS first FROM parse_uploads
         WHERE key_id = ? AND ((state IN ('pending', 'receiving') AND expires_at > ?) OR (state = 'received' AND received_at > ?))`,
      )
      .get(UPLOADED_FILE_TTL_MS, keyId, now, now - UPLOADED_FILE_TTL_MS);
    return { count: row?.n ?? 0, firstExpiry: row?.first ?? now };
  }

  /** Marks `ref` parsed (a parse of it succeeded and was paid for): it no longer counts against its key's cap. */
  markParsed(ref: string): void {
    this.db.query("UPDATE parse_uploads SET state = 'parsed' WHERE ref = ? AND state = 'received'").run(ref);
  }

  /**
   * Claims the upload URL `uploadId` for one PUT: 404 when unknown or expired, 409 when it already has (or is
   * receiving) its file. The claim is released by {@link release} when the body cannot be read, so the sender may
   * try again.
   */
  claim(uploadId: string): PendingUpload {
    if (!UPLOAD_ID.test(uploadId)) throw new NotFoundError(UNKNOWN_UPLOAD, "UPLOAD_NOT_FOUND");
    const row = this.db
      .query<Pick<Row, "ref" | "max_bytes" | "expires_at" | "state">, [string]>("SELECT ref, max_bytes, expires_at, state FROM parse_uploads WHERE id_hash = ?")
      .get(hashOf(uploadId));
    if (!row || row.expires_at <= this.now()) throw new NotFoundError(UNKNOWN_UPLOAD, "UPLOAD_NOT_FOUND");
    const now = this.now();
    const claimed = this.db
      .query("UPDATE parse_uploads SET state = 'receiving', claimed_at = ? WHERE ref = ? AND (state = 'pending' OR (state = 'receiving' AND claimed_at <= ?))")
      .run(now, row.ref, now - STALE_CLAIM_MS);
    if (claimed.changes === 0) throw new UploadAlreadyReceivedError();
    return { ref: row.ref, maxBytes: row.max_bytes };
  }

  /** Gives a claimed upload URL back (its body could not be read). */
  release(pending: PendingUpload): void {
    this.db.query("UPDATE parse_uploads SET state = 'pending' WHERE ref = ? AND state = 'receiving'").run(pending.ref);
  }

  /** Stores the file of a claimed upload; `sentType` is the PUT's Content-Type, used when none was declared. */
  async receive(pending: PendingUpload, bytes: Uint8Array, sentType: string): Promise<void> {
    const row = this.db.query<Pick<Row, "key_id" | "content_type">, [string]>("SELECT key_id, content_type FROM parse_uploads WHERE ref = ?").get(pending.ref);
    if (!row) throw new NotFoundError(UNKNOWN_UPLOAD, "UPLOAD_NOT_FOUND");
    const contentType = row.content_type || sentType;
    const file = await this.files.put(bytes, contentType || "application/octet-stream", row.key_id, "", UPLOADED_FILE_TTL_MS);
    this.db
      .query("UPDATE parse_uploads SET state = 'received', file_id = ?, content_type = ?, received_at = ? WHERE ref = ?")
      .run(file.id, contentType, this.now(), pending.ref);
  }

  /** The file of `ref` for `keyId`: 404 when unknown, expired or another key's; 409 while it has not arrived. */
  async take(ref: string, keyId: string): Promise<ReceivedUpload> {
    const row = this.db
      .query<Row, [string, string]>("SELECT ref, key_id, filename, content_type, max_bytes, expires_at, state, file_id, received_at FROM parse_uploads WHERE ref = ? AND key_id = ?")
      .get(ref, keyId);
    const now = this.now();
    if (!row) throw new NotFoundError(UNKNOWN_REF, "UPLOAD_NOT_FOUND");
    if (row.state !== "received" && row.state !== "parsed") {
      if (row.expires_at <= now) throw new NotFoundError(UNKNOWN_REF, "UPLOAD_NOT_FOUND");
      throw new UploadNotReceivedError();
    }
    const file = row.file_id ? this.files.get(row.file_id) : undefined;
    if (!file || (row.received_at ?? 0) + UPLOADED_FILE_TTL_MS <= now) throw new NotFoundError(UNKNOWN_REF, "UPLOAD_NOT_FOUND");
    return { ref: row.ref, filename: row.filename, contentType: row.content_type, bytes: new Uint8Array(await Bun.file(file.path).arrayBuffer()) };
  }

  /** Removes an upload and its file now (a parse with `zeroDataRetention`). */
  remove(ref: string): void {
    const row = this.db.query<Pick<Row, "file_id">, [string]>("SELECT file_id FROM parse_uploads WHERE ref = ?").get(ref);
    if (row?.file_id) this.files.remove(row.file_id);
    this.db.query("DELETE FROM parse_uploads WHERE ref = ?").run(ref);
  }

  /** Drops reservations whose URL expired without a file, and uploads whose file expired; returns how many. */
  prune(): number {
    const now = this.now();
    const gone = this.db
      .query<Pick<Row, "ref" | "file_id">, [number, number]>(
        "SELECT ref, file_id FROM parse_uploads WHERE (state IN ('pending', 'receiving') AND expires_at <= ?) OR (state IN ('received', 'parsed') AND received_at <= ?)",
      )
      .all(now, now - UPLOADED_FILE_TTL_MS);
    for (const { ref, file_id } of gone) {
      if (file_id) this.files.remove(file_id);
      this.db.query("DELETE FROM parse_uploads WHERE ref = ?").run(ref);
    }
    return gone.length;
  }
}
