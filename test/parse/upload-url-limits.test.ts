/**
 * Limits of `POST /v2/parse/upload-url` (parse/upload-refs.ts): a key that cannot spend a credit gets no reservation
 * (402, as its parse would), and a key holds at most MAX_OPEN_UPLOADS_PER_KEY reservations not parsed yet (reserved,
 * or uploaded and waiting): 429 beyond, until one is parsed or expires.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_OPEN_UPLOADS_PER_KEY, UPLOAD_URL_TTL_MS, UPLOADED_FILE_TTL_MS, UploadRefStore } from "../../src/parse/upload-refs.ts";
import { migrate } from "../../src/storage/database.ts";
import { FileStore } from "../../src/storage/files.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let apiUrl: string;
const dirs: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  apiUrl = h.listen();
});
afterAll(async () => {
  await h.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const post = async (path: string, body: unknown, key: string) => {
  const res = await fetch(`${apiUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
};
const reserve = (key: string, filename = "a.html") => post("/v2/parse/upload-url", { filename }, key);
const put = (url: string, text: string) => fetch(url, { method: "PUT", body: text }).then((r) => r.status);

describe("upload-url limits", () => {
  test("a key whose credits are spent gets 402, not a reservation", async () => {
    const { key, record } = h.services.keys.create("spent", 1);
    h.services.ledger.charge({ keyId: record.id, creditQuota: 1 }, 1);
    const refused = await reserve(key);
    expect(refused.status).toBe(402);
    expect(refused.body.success).toBe(false);
    expect(h.services.db.query("SELECT COUNT(*) AS n FROM parse_uploads WHERE key_id = ?").get(record.id)).toEqual({ n: 0 });
    // A key with a credit left still gets one.
    const { key: left } = h.services.keys.create("left", 1);
    expect((await reserve(left)).status).toBe(200);
  });

  test("reservations not parsed yet are capped per key: 429 with Retry-After; a parse frees a place", async () => {
    const { key } = h.services.keys.create("many");
    const held = [];
    for (let i = 0; i < MAX_OPEN_UPLOADS_PER_KEY; i++) {
      const r = await reserve(key);
      expect(r.status).toBe(200);
      held.push(r.body.data);
    }
    // Uploaded but not parsed still counts.
    expect(await put(held[0].uploadUrl, "<h1>One</h1>")).toBe(200);
    const over = await reserve(key);
    expect(over.status).toBe(429);
    expect(over.body.code).toBe("TOO_MANY_OPEN_UPLOADS");
    expect(over.body.error).toContain(String(MAX_OPEN_UPLOADS_PER_KEY));
    expect(Number(over.retryAfter)).toBeGreaterThan(0);
    // Another key is not affected.
    expect((await reserve(h.key)).status).toBe(200);

    const parsed = await post("/v2/parse", { uploadRef: held[0].uploadRef }, key);
    expect(parsed.status).toBe(200);
    expect(parsed.body.data.markdown).toContain("# One");
    expect((await reserve(key)).status).toBe(200);
    expect((await reserve(key)).status).toBe(429);
    // A parsed upload may still be parsed again, with other options.
    expect((await post("/v2/parse", { uploadRef: held[0].uploadRef, formats: ["html"] }, key)).status).toBe(200);
  });

  test("an expired reservation or file no longer counts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-upload-limits-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let clock = 1_000_000;
    const store = new UploadRefStore(db, new FileStore(db, dir, () => clock), () => clock);
    const first = store.reserve("k", "a.html", "", 100);
    for (let i = 1; i < MAX_OPEN_UPLOADS_PER_KEY; i++) store.reserve("k", "a.html", "", 100);
    expect(() => store.reserve("k", "b.html", "", 100)).toThrow(expect.objectContaining({ status: 429, code: "TOO_MANY_OPEN_UPLOADS" }));
    await store.receive(store.claim(first.uploadId), new TextEncoder().encode("<p>x</p>"), "");
    clock += UPLOAD_URL_TTL_MS;
    // The unsent reservations expired; the received file still counts until its own expiry.
    for (let i = 1; i < MAX_OPEN_UPLOADS_PER_KEY; i++) store.reserve("k", "c.html", "", 100);
    expect(() => store.reserve("k", "d.html", "", 100)).toThrow(expect.objectContaining({ status: 429 }));
    clock += UPLOADED_FILE_TTL_MS - UPLOAD_URL_TTL_MS;
    store.reserve("k", "e.html", "", 100);
    // A parsed file expires as a received one does: prune drops it with the expired reservations.
    store.markParsed(first.uploadRef);
    expect(store.prune()).toBe(1 + 2 * (MAX_OPEN_UPLOADS_PER_KEY - 1));
    expect(db.query("SELECT filename FROM parse_uploads").all()).toEqual([{ filename: "e.html" }]);
    db.close();
  });
});
