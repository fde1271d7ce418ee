/**
 * @module storage/scrape-results
 * Documents of `POST /v2/scrape`, kept 24 h for `GET /v2/scrape/{id}`.
 *
 * Writes are behind the response: `put` queues the document and the queue is written in one transaction on the
 * next turn of the event loop, so serialising the document (tens of KB of markdown) and the SQLite write are off
 * the request's latency (≈ 0.1–0.5 ms of a ~8 ms scrape). `get` sees queued documents, so a client that asks for
 * its result right after the response still finds it. The cost: a crash in the millisecond between the
 * response and the write loses the stored copy (never the response itself); a graceful stop writes the queue.
 */
import type { Database } from "bun:sqlite";
import { immediate } from "./database.ts";

/** How long a scrape result stays retrievable. */
export const SCRAPE_RESULT_TTL_MS = 24 * 60 * 60 * 1000;

interface Pending {
  keyId: string;
  url: string;
  createdAt: number;
  document: unknown;
  replay?: unknown;
}

/** Scrape documents by id. */
export class ScrapeResults {
  private readonly putStmt;
  private readonly getStmt;
  private readonly replayStmt;
  private readonly pruneStmt;
  private readonly pending = new Map<string, Pending>();
  private flushScheduled = false;

  constructor(private readonly db: Database) {
    this.putStmt = db.query(
      "INSERT OR REPLACE INTO scrapes (id, key_id, url, created_at, expires_at, document, replay) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.getStmt = db.query<{ key_id: string; expires_at: number; document: string }, [string]>("SELECT key_id, expires_at, document FROM scrapes WHERE id = ?");
    this.replayStmt = db.query<{ key_id: string; expires_at: number; replay: string | null }, [string]>("SELECT key_id, expires_at, replay FROM scrapes WHERE id = ?");
    this.pruneStmt = db.query("DELETE FROM scrapes WHERE expires_at < ?");
  }

  /**
   * Stores a document under its scrape id (written on the next event-loop turn, see the module note). The
   * document must not be changed afterwards: it is serialised when written. `replay` is what a later interact
   * session needs to bring the page back to the state the scrape saw (its actions, starting URL, device and place).
   */
  put(id: string, keyId: string, url: string, document: unknown, now: number, replay?: unknown): void {
    this.pending.set(id, { keyId, url, createdAt: now, document, ...(replay === undefined ? {} : { replay }) });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes every queued document now, in one transaction. */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0) return;
    const rows = [...this.pending];
    this.pending.clear();
    // Serialised first, each on its own: a document JSON cannot write (nested too deep for the engine's stack) is
    // left out, not the whole batch with it.
    const ready: [string, Pending, string, string | null][] = [];
    for (const [id, p] of rows) {
      try {
        ready.push([id, p, JSON.stringify(p.document), p.replay === undefined ? null : JSON.stringify(p.replay)]);
      } catch {
        // unstorable: GET /v2/scrape/{id} will answer 404 for it
      }
    }
    immediate(this.db, () => {
      for (const [id, p, document, replay] of ready) {
        this.putStmt.run(id, p.keyId, p.url, p.createdAt, p.createdAt + SCRAPE_RESULT_TTL_MS, document, replay);
      }
    });
  }

  /** The document with `id` made by `keyId`, unless expired. */
  get(id: string, keyId: string, now: number): unknown | undefined {
    return this.read(id, keyId, now, "document");
  }

  /** What `put` kept to replay the scrape (interact), for `keyId` and unless expired; undefined when nothing. */
  replay(id: string, keyId: string, now: number): unknown | undefined {
    return this.read(id, keyId, now, "replay");
  }

  /** One field of a result of `keyId`, from the write queue or the table (only that column read), unless expired. */
  private read(id: string, keyId: string, now: number, field: "document" | "replay"): unknown | undefined {
    const queued = this.pending.get(id);
    if (queued) {
      // A copy, as from the database: the caller may change what it gets.
      return queued.keyId === keyId && queued.createdAt + SCRAPE_RESULT_TTL_MS >= now ? structuredClone(queued[field]) : undefined;
    }
    const row = field === "document" ? this.getStmt.get(id) : this.replayStmt.get(id);
    if (!row || row.key_id !== keyId || row.expires_at < now) return undefined;
    const text = "document" in row ? row.document : row.replay;
    return text === null ? undefined : JSON.parse(text);
  }

  /** Deletes the oldest results beyond the newest `max` (the write queue first goes to disk); returns how many. */
  trim(max: number): number {
    this.flush();
    const count = (this.db.query("SELECT COUNT(*) AS n FROM scrapes").get() as { n: number }).n;
    if (count <= max) return 0;
    // expires_at is created_at + the fixed TTL: its index orders the rows by age.
    return this.db.query("DELETE FROM scrapes WHERE id IN (SELECT id FROM scrapes ORDER BY expires_at LIMIT ?)").run(count - max).changes;
  }

  /** Deletes expired rows; returns how many. */
  prune(now: number): number {
    this.flush();
    return this.pruneStmt.run(now).changes;
  }
}
