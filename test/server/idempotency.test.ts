/**
 * The `Idempotency-Key` header on POST /v2/scrape, /v2/crawl and /v2/batch/scrape (src/idempotency): replay of
 * a successful answer without running or charging again, 422 on another request, 409 while in flight, retry
 * after a failure, no kept response under zeroDataRetention, per-key scope, header validation, and the store's
 * expiry and restart rules on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson } from "../../src/idempotency/guard.ts";
import { IDEMPOTENCY_TTL_MS, IdempotencyStore, IN_FLIGHT_STALE_MS } from "../../src/idempotency/store.ts";
import { openDatabase } from "../../src/storage/database.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let base: string;
const hits = new Map<string, number>();

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path.startsWith("/slow")) await Bun.sleep(path === "/slow-1500" ? 1500 : 400);
      return new Response(`<html><head><title>${path}</title></head><body><main><h1>Page ${path}</h1><p>Some text of ${path} for the markdown.</p></main></body></html>`, {
        headers: { "content-type": "text/html" },
      });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness();
});

afterAll(async () => {
  await h.close();
  site.stop(true);
});

const post = (path: string, json: unknown, key?: string, auth?: string) =>
  h.request(path, { method: "POST", json, ...(key === undefined ? {} : { headers: { "idempotency-key": key } }), ...(auth ? { auth } : {}) });

describe("Idempotency-Key on POST /v2/scrape", () => {
  test("the same key and body replay the first answer byte for byte, without fetching or charging again", async () => {
    const body = { url: `${base}/replay`, formats: ["markdown"], maxAge: 0 };
    const first = await post("/v2/scrape", body, "k-replay");
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstText = await first.text();
    const usedAfterFirst = h.services.ledger.usage({ keyId: keyIdOf(h), creditQuota: null }).creditsUsed;

    // Same request with its keys in another order: still the same request.
    const again = await post("/v2/scrape", { maxAge: 0, formats: ["markdown"], url: `${base}/replay` }, "k-replay");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toContain("application/json");
    expect(await again.text()).toBe(firstText);
    expect(hits.get("/replay")).toBe(1);
    expect(h.services.ledger.usage({ keyId: keyIdOf(h), creditQuota: null }).creditsUsed).toBe(usedAfterFirst);
    expect(JSON.parse(firstText).data.markdown).toContain("Page /replay");

    // Without the header the same body runs again.
    expect((await post("/v2/scrape", body)).status).toBe(200);
    expect(hits.get("/replay")).toBe(2);
  });

  test("the same key with another body, or on another route, is a 422 and runs nothing", async () => {
    expect((await post("/v2/scrape", { url: `${base}/mismatch-a` }, "k-mismatch")).status).toBe(200);
    const other = await post("/v2/scrape", { url: `${base}/mismatch-b` }, "k-mismatch");
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_MISMATCH" });
    const route = await post("/v2/batch/scrape", { urls: [`${base}/mismatch-a`] }, "k-mismatch");
    expect(route.status).toBe(422);
    expect(hits.get("/mismatch-b")).toBeUndefined();
  });

  test("a second request while the first still runs is a 409; once it finished, the key replays", async () => {
    const body = { url: `${base}/slow-inflight` };
    const first = post("/v2/scrape", body, "k-inflight");
    await Bun.sleep(100);
    const second = await post("/v2/scrape", body, "k-inflight");
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_IN_FLIGHT" });
    const done = await first;
    expect(done.status).toBe(200);
    const third = await post("/v2/scrape", body, "k-inflight");
    expect(third.headers.get("idempotent-replayed")).toBe("true");
    expect(await third.text()).toBe(await done.text());
    expect(hits.get("/slow-inflight")).toBe(1);
  });

  test("a request that failed keeps nothing: the same key runs it again", async () => {
    // Refused by validation: nothing ran, so the key is still free for the corrected request.
    const invalid = await post("/v2/scrape", { url: `${base}/after-400`, bogus: true }, "k-failed");
    expect(invalid.status).toBe(400);
    expect((await post("/v2/scrape", { url: `${base}/after-400` }, "k-failed")).status).toBe(200);

    // Failed while running (the page is slower than the timeout): retried with the same key, it runs again.
    const slow = { url: `${base}/slow-1500`, timeout: 1000 };
    expect((await post("/v2/scrape", slow, "k-timeout")).status).toBe(408);
    expect((await post("/v2/scrape", slow, "k-timeout")).status).toBe(408);
    expect(hits.get("/slow-1500")).toBe(2);
  });

  test("with zeroDataRetention the response is not kept: a retry is a 409, not a replay", async () => {
    const body = { url: `${base}/zdr`, zeroDataRetention: true };
    expect((await post("/v2/scrape", body, "k-zdr")).status).toBe(200);
    const row = h.services.db.query("SELECT state, response FROM idempotency_keys WHERE idem_key = 'k-zdr'").get() as any;
    expect(row).toEqual({ state: "done", response: null });
    const again = await post("/v2/scrape", body, "k-zdr");
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_USED" });
    expect(hits.get("/zdr")).toBe(1);
  });

  test("keys are per API key", async () => {
    const other = h.services.keys.create("second").key;
    const body = { url: `${base}/per-key`, maxAge: 0 };
    expect((await post("/v2/scrape", body, "k-shared")).status).toBe(200);
    const theirs = await post("/v2/scrape", body, "k-shared", other);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(hits.get("/per-key")).toBe(2);
  });

  test("the header's value: quoted and bare forms are the same key; empty, too long or non-ASCII is a 400", async () => {
    const body = { url: `${base}/quoted`, maxAge: 0 };
    expect((await post("/v2/scrape", body, '"k-quoted"')).status).toBe(200);
    expect((await post("/v2/scrape", body, "k-quoted")).headers.get("idempotent-replayed")).toBe("true");
    for (const bad of ["", '""', "x".repeat(256), "caf\u00e9", "tab\there"]) {
      const res = await post("/v2/scrape", body, bad);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_INVALID" });
    }
    expect((await post("/v2/scrape", body, "x".repeat(255))).status).toBe(200);
    expect(hits.get("/quoted")).toBe(2);
  });
});

describe("Idempotency-Key on job routes", () => {
  test("a crawl retried with the same key gets the same job, and only one job exists", async () => {
    const body = { url: `${base}/crawl-start`, limit: 1 };
    const jobsBefore = (h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n;
    const first = (await (await post("/v2/crawl", body, "k-crawl")).json()) as any;
    const again = await post("/v2/crawl", body, "k-crawl");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(first.id);
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n).toBe(jobsBefore + 1);
  });

  test("a batch retried with the same key gets the same job, invalidURLs included", async () => {
    const body = { urls: [`${base}/b1`, "not a url"], ignoreInvalidURLs: true };
    const first = (await (await post("/v2/batch/scrape", body, "k-batch")).json()) as any;
    expect(first.invalidURLs).toEqual(["not a url"]);
    const again = (await (await post("/v2/batch/scrape", body, "k-batch")).json()) as any;
    expect(again).toEqual(first);
  });
});

describe("the store", () => {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-idem-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("kept across a restart; expired after 24 h; in-flight claims released at start or when stale", () => {
    let db = openDatabase(dir);
    let store = new IdempotencyStore(db);
    const t0 = 1_700_000_000_000;
    expect(store.claim("key", "a", "h1", t0)).toEqual({ kind: "run" });
    store.complete("key", "a", 200, '{"success":true}');
    expect(store.claim("key", "b", "h2", t0)).toEqual({ kind: "run" }); // left in flight: the process "dies"
    expect(store.claim("key", "c", "h3", t0)).toEqual({ kind: "run" });
    db.close();

    db = openDatabase(dir);
    store = new IdempotencyStore(db);
    expect(store.claim("key", "a", "h1", t0 + 1000)).toEqual({ kind: "replay", status: 200, response: '{"success":true}' });
    expect(store.claim("key", "b", "h2", t0 + 1000)).toEqual({ kind: "in-flight" });
    expect(store.releaseAbandoned()).toBe(2);
    expect(store.claim("key", "b", "h2", t0 + 1000)).toEqual({ kind: "run" });
    // A claim in flight for longer than any request can run is abandoned even without a restart.
    expect(store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS - 1)).toEqual({ kind: "in-flight" });
    expect(store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS + 1)).toEqual({ kind: "run" });
    // After 24 h the key is free again, even for another request; prune deletes what expired.
    expect(store.claim("key", "a", "other", t0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({ kind: "mismatch" });
    expect(store.claim("key", "a", "other", t0 + IDEMPOTENCY_TTL_MS + 1)).toEqual({ kind: "run" });
    expect(store.prune(t0 + 2 * IDEMPOTENCY_TTL_MS + IN_FLIGHT_STALE_MS * 2)).toBe(2);
    db.close();
  });

  test("canonical JSON ignores key order and spacing, not values", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: "s" } })).toBe('{"a":{"c":"s","d":[1,{"x":1,"y":2}]},"b":1}');
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});

/** The id of the harness's own key (its usage is what the scrapes above are charged to). */
function keyIdOf(harness: Harness): string {
  return harness.services.keys.verify(harness.key)!.keyId;
}
