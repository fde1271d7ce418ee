import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
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
  test("bodies live in files, rows hold the facts; prune removes expired entries and orphan files", async () => {
    const { PageCache } = await import("../../src/storage/page-cache.ts");
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-cache-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    const cache = new PageCache(db, dir);
    const key = "a".repeat(64);
    const body = new TextEncoder().encode("<p>héllo</p>");
    await cache.put(key, { requestedUrl: "http://x/", finalUrl: "http://x/", statusCode: 200, headers: {}, contentType: "text/html", body, text: "<p>héllo</p>", charset: "utf-8", engine: "http", elapsedMs: 1 }, 1000);
    expect(existsSync(join(dir, "cache", key))).toBe(true);
    const hit = cache.get(key, 0)!;
    expect(hit.page.text).toBe("<p>héllo</p>");
    expect(hit.cachedAt).toBe(1000);
    expect(cache.get(key, 1001)).toBeUndefined();
    await Bun.write(join(dir, "cache", "b".repeat(64)), "orphan");
    expect(cache.prune(2000)).toBe(1);
    expect(existsSync(join(dir, "cache", key))).toBe(false);
    expect(existsSync(join(dir, "cache", "b".repeat(64)))).toBe(false);
    expect(cache.get(key, 0)).toBeUndefined();
  });
});
