import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../../src/storage/database.ts";
import { FILE_TTL_MS, FileStore, fileUrl } from "../../src/storage/files.ts";
import { createHarness } from "../helpers/harness.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("file store", () => {
  test("files get unguessable ids, are served until they expire, then pruned from disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-files-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let clock = 1_000_000;
    const store = new FileStore(db, dir, () => clock);
    const a = await store.put(new Uint8Array([1, 2, 3]), "image/png", "key_a", "png");
    const b = await store.put(new Uint8Array([4]), "application/pdf", "key_a", "pdf");
    expect(a.id).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(a.id).not.toBe(b.id);
    expect(store.get(a.id)?.size).toBe(3);
    expect(await Bun.file(store.get(a.id)!.path).bytes()).toEqual(new Uint8Array([1, 2, 3]));
    expect(store.get("../../etc/passwd")).toBeUndefined();
    expect(fileUrl("http://h:1/", a)).toBe(`http://h:1/v2/files/${a.id}`);

    clock += FILE_TTL_MS - 1;
    expect(store.get(a.id)).toBeDefined();
    expect(store.prune()).toBe(0);
    clock += 1;
    expect(store.get(a.id)).toBeUndefined();
    const path = join(dir, "files", a.id);
    expect(existsSync(path)).toBe(true);
    expect(store.prune()).toBe(2);
    expect(existsSync(path)).toBe(false);
  });

  test("a crawl or batch page's file lives as long as its job's results: while it runs, and until the job expires", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-files-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let clock = 1_000_000;
    const store = new FileStore(db, dir, () => clock);
    db.query("INSERT INTO jobs (id, kind, key_id, status, options, public_base_url, created_at, updated_at, expires_at) VALUES ('job1', 'crawl', 'k', 'scraping', '{}', 'http://h', ?, ?, ?)").run(clock, clock, clock);
    const early = await store.put(new Uint8Array([1]), "image/png", "k", "png", FILE_TTL_MS, "job1");
    const loose = await store.put(new Uint8Array([2]), "image/png", "k", "png");
    // A long crawl: a day and more later, the job still runs, and its first page's screenshot is still served.
    clock += FILE_TTL_MS + 5 * 3_600_000;
    expect(store.get(early.id)).toBeDefined();
    expect(store.get(loose.id)).toBeUndefined();
    expect(store.prune()).toBe(1);
    // The job ends, its results kept 24 h (and longer each time they are read): so is the file.
    db.query("UPDATE jobs SET status = 'completed', expires_at = ? WHERE id = 'job1'").run(clock + FILE_TTL_MS);
    clock += FILE_TTL_MS - 1;
    expect(store.get(early.id)?.expiresAt).toBe(clock + 1);
    expect(store.prune()).toBe(0);
    clock += 1;
    expect(store.get(early.id)).toBeUndefined();
    expect(store.prune()).toBe(1);
    expect(existsSync(join(dir, "files", early.id))).toBe(false);
  });

  test("GET /v2/files/{id} serves a stored file without a key; unknown ids are 404", async () => {
    const h = await createHarness();
    try {
      const f = await h.services.files.put(new TextEncoder().encode("%PDF-1.4 test"), "application/pdf", "k", "pdf");
      const res = await h.request(`/v2/files/${f.id}`, { auth: null });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(await res.text()).toBe("%PDF-1.4 test");
      const missing = await h.request(`/v2/files/${"0".repeat(32)}.png`, { auth: null });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as any).success).toBe(false);
    } finally {
      await h.close();
    }
  });
});

describe("page cache", () => {
  const page = (text: string) => ({
    requestedUrl: "http://x/",
    finalUrl: "http://x/",
    statusCode: 200,
    headers: {},
    contentType: "text/html",
    body: new TextEncoder().encode(text),
    text,
    charset: "utf-8",
    engine: "http" as const,
    elapsedMs: 1,
  });
  const key = (c: string) => c.repeat(64);
  const segmentFiles = (dir: string) => readdirSync(join(dir, "cache")).filter((n) => n.endsWith(".seg"));

  async function open(segmentBytes?: number) {
    const { PageCache } = await import("../../src/storage/page-cache.ts");
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-cache-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    return { dir, db, cache: new PageCache(db, dir, segmentBytes), PageCache };
  }

  test("bodies are appended to one segment file, rows say where; concurrent puts never overlap", async () => {
    const { dir, cache } = await open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => cache.put(key((i % 16).toString(16)), page(`<p>héllo ${i}</p>`.repeat(i + 1)), 1000 + i)));
    expect(segmentFiles(dir)).toHaveLength(1);
    // Keys 0..3 were written twice (i and i + 16): the later copy wins.
    for (let i = 4; i < 20; i++) expect(cache.get(key((i % 16).toString(16)), 0)!.page.text).toBe(`<p>héllo ${i}</p>`.repeat(i + 1));
    expect(cache.get(key("a"), 0)!.cachedAt).toBe(1010);
    expect(cache.get(key("a"), 1011)).toBeUndefined(); // older than maxAge allows
    cache.close();
  });

  test("prune drops expired rows, then segment files nothing points into, and stray files", async () => {
    const { dir, cache } = await open(8); // every body starts a new segment
    await cache.put(key("a"), page("<p>old</p>"), 1000);
    await cache.put(key("b"), page("<p>new</p>"), 3000);
    expect(segmentFiles(dir)).toHaveLength(2);
    await Bun.write(join(dir, "cache", key("c")), "a body file of the one-file-per-body layout");
    expect(cache.prune(2000)).toBe(1);
    expect(segmentFiles(dir)).toHaveLength(1);
    expect(existsSync(join(dir, "cache", key("c")))).toBe(false);
    expect(cache.get(key("a"), 0)).toBeUndefined();
    expect(cache.get(key("b"), 0)!.page.text).toBe("<p>new</p>");
    // The segment being written is kept even when its rows are gone (the next put goes there).
    expect(cache.prune(4000)).toBe(1);
    expect(segmentFiles(dir)).toHaveLength(1);
    cache.close();
  });

  test("pages stored again and again: compaction copies live bodies out of mostly dead segments and deletes them", async () => {
    const { dir, cache } = await open(4096);
    const body = (k: number, round: number) => `<p>page ${k} round ${round}</p>`.padEnd(500, "x");
    const folderBytes = () => segmentFiles(dir).reduce((n, f) => n + statSync(join(dir, "cache", f)).size, 0);
    // 8 pages fetched again 20 times (maxAge: 0): 160 bodies written, 8 of them live (~4 KB).
    for (let round = 0; round < 20; round++) for (let k = 0; k < 8; k++) await cache.put(key(k.toString(16)), page(body(k, round)), 1000 + round);
    const before = folderBytes();
    expect(before).toBeGreaterThan(60_000);
    const report = await cache.compact();
    expect(report.segments).toBeGreaterThan(10);
    expect(report.movedBodies).toBeLessThanOrEqual(8);
    // What is left: at most about twice the live bytes plus the segment being written.
    expect(folderBytes()).toBeLessThan(2 * 8 * 520 + 4096 + 520);
    for (let k = 0; k < 8; k++) expect(cache.get(key(k.toString(16)), 0)!.page.text).toBe(body(k, 19));
    // A second pass finds nothing to do; new writes still land and read back.
    expect((await cache.compact()).movedBodies).toBe(0);
    await cache.put(key("f"), page("<p>after compaction</p>"), 5000);
    expect(cache.get(key("f"), 0)!.page.text).toBe("<p>after compaction</p>");
    cache.close();
  });

  test("after a restart old segments are read and new bodies go to a new segment; a short segment is a miss", async () => {
    const { dir, db, cache, PageCache } = await open();
    await cache.put(key("a"), page("<p>before restart</p>"), 1000);
    cache.close();
    const again = new PageCache(db, dir);
    expect(again.get(key("a"), 0)!.page.text).toBe("<p>before restart</p>");
    await again.put(key("b"), page("<p>after</p>"), 2000);
    expect(segmentFiles(dir)).toHaveLength(2);
    const { segment } = db.query<{ segment: string }, [string]>("SELECT segment FROM page_cache WHERE cache_key = ?").get(key("a"))!;
    truncateSync(join(dir, "cache", segment), 5);
    again.close(); // drop open handles; reads reopen the (now short) file
    const third = new PageCache(db, dir);
    expect(third.get(key("a"), 0)).toBeUndefined();
    expect(third.get(key("b"), 0)!.page.text).toBe("<p>after</p>");
    third.close();
  });
});
