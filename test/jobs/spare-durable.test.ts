/**
 * A crawl's spare pages (jobs/spare-tasks.ts: links found while it was at its `limit`, which take the places its
 * failed pages give back) live in the job store's database: a store closed and opened again on the same file (a
 * restart) still has them and the crawl still reaches its limit; a refill whose transaction rolls back keeps the page
 * it took.
 */
import type { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import type { Job, NewTask, Task } from "../../src/jobs/types.ts";
import { openDatabase } from "../../src/storage/database.ts";
import { free, setup } from "./store-setup.ts";

const page = (path: string, depth = 1): NewTask => ({ kind: "page", url: `http://site.test${path}`, dedupKey: `site.test${path}`, depth });
const failure = { code: "SCRAPE_SITE_ERROR", status: 502, message: "the page failed" };

/** A crawl of `limit` pages from `/`; its start page claimed and completed with `links`, over the limit. */
function crawlAtItsLimit(store: SqliteJobStore, now: () => number, limit: number, links: NewTask[]): Job {
  const job = store.createJob(
    { id: crypto.randomUUID(), kind: "crawl", keyId: "k", status: "scraping", url: "http://site.test/", options: { scrapeOptions: {}, crawlerOptions: { limit } }, publicBaseUrl: "http://x", createdAt: now(), expiresAt: now() + 3_600_000 },
    [page("/", 0)],
  );
  const start = store.claim("w", 60_000, free)!;
  expect(store.complete(start.id, "w", { document: { metadata: {} }, credits: 1, discovered: links, limit })).toBe(true);
  return job;
}

/** Claims what is queued now. */
function claimAll(store: SqliteJobStore): Task[] {
  const out: Task[] = [];
  for (let t = store.claim("w", 60_000, free); t; t = store.claim("w", 60_000, free)) out.push(t);
  return out;
}

const donePaths = (db: Database, jobId: string) =>
  db.query<{ url: string }, [string]>("SELECT url FROM tasks WHERE job_id = ? AND status = 'done' AND kind = 'page' ORDER BY url").all(jobId).map((r) => new URL(r.url).pathname);

describe("spare pages in the job store's database", () => {
  test("a store closed and opened again on the same file keeps a crawl's spare pages: its failed page's place is still refilled and the crawl ends at its limit", () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-spares-"));
    let clock = 1_000_000;
    const now = () => clock;
    try {
      const first = openDatabase(dir);
      const before = new SqliteJobStore(first, () => {}, now);
      // A limit of 3: the start page and /a, /b fill it; /c, /d, /e are spares.
      const job = crawlAtItsLimit(before, now, 3, ["/a", "/b", "/c", "/d", "/e"].map((p) => page(p)));
      expect(before.get(job.id)!.total).toBe(3);
      first.close();

      const second = openDatabase(dir);
      try {
        const after = new SqliteJobStore(second, () => {}, now);
        clock += 1000;
        const [a, b] = claimAll(after);
        // /a fails for good: its place goes to the first spare, /c, found before the restart.
        expect(after.fail(a!.id, "w", failure)).toBe(true);
        expect(after.complete(b!.id, "w", { document: { metadata: {} }, credits: 1, limit: 3 })).toBe(true);
        const refilled = claimAll(after);
        expect(refilled.map((t) => new URL(t.url).pathname)).toEqual(["/c"]);
        expect(after.complete(refilled[0]!.id, "w", { document: { metadata: {} }, credits: 1, limit: 3 })).toBe(true);
        expect(after.get(job.id)).toMatchObject({ status: "completed", total: 4, completed: 4 });
        expect(donePaths(second, job.id)).toEqual(["/", "/b", "/c"]);
      } finally {
        second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a refill whose transaction throws keeps the spare page it took: the next freed place gets it", () => {
    const s = setup();
    // A limit of 2: the start page and /a; /b, /c are spares.
    const job = crawlAtItsLimit(s.store, s.now, 2, ["/a", "/b", "/c"].map((p) => page(p)));
    const [a] = claimAll(s.store);
    // The refill's insert fails (a full disk, say): the whole failure rolls back, /a stays leased.
    s.db.exec("CREATE TEMP TRIGGER refuse_tasks BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END");
    expect(() => s.store.fail(a!.id, "w", failure)).toThrow("disk is full");
    s.db.exec("DROP TRIGGER refuse_tasks");
    expect(s.store.get(job.id)!.total).toBe(2);
    // Tried again, the failure commits and /b, the first spare, takes the place: it was not lost with the rollback.
    expect(s.store.fail(a!.id, "w", failure)).toBe(true);
    expect(claimAll(s.store).map((t) => new URL(t.url).pathname)).toEqual(["/b"]);
    expect(s.store.get(job.id)!.total).toBe(3);
  });
});
