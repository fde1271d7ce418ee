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
import { testConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createServices } from "../../src/server/services.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let base: string;
const hits = new Map<string, number>();
/** `/held` answers only once this resolves. */
const held = Promise.withResolvers<void>();

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === "/slow-1500") await Bun.sleep(1500);
      if (path === "/held") await held.promise;
      if (path === "/huge") return new Response(`<html><body><main><p>${"word ".repeat(1_300_000)}</p></main></body></html>`, { headers: { "content-type": "text/html" } });
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
    const body = { url: `${base}/held` };
    const first = post("/v2/scrape", body, "k-inflight");
    while (!hits.get("/held")) await Bun.sleep(5); // the first request is at the site now
    const second = await post("/v2/scrape", body, "k-inflight");
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ success: false, code: "IDEMPOTENCY_KEY_IN_FLIGHT" });
    held.resolve();
    const done = await first;
    expect(done.status).toBe(200);
    const third = await post("/v2/scrape", body, "k-inflight");
    expect(third.headers.get("idempotent-replayed")).toBe("true");
    expect(await third.text()).toBe(await done.text());
    expect(hits.get("/held")).toBe(1);
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

  test("an answer over 5 MiB is not kept twice: the key is marked used and a retry is a 409", async () => {
    const body = { url: `${base}/huge`, formats: ["rawHtml"], maxAge: 0 };
    const first = await post("/v2/scrape", body, "k-huge");
    expect(first.status).toBe(200);
    expect((await first.text()).length).toBeGreaterThan(5 * 1024 * 1024);
    const again = await post("/v2/scrape", body, "k-huge");
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_USED" });
    expect(hits.get("/huge")).toBe(1);
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
  test("answers with the header carry the same content type as answers without it", async () => {
    const plain = await post("/v2/scrape", { url: `${base}/ctype` });
    const keyed = await post("/v2/scrape", { url: `${base}/ctype` }, "k-ctype");
    const replayed = await post("/v2/scrape", { url: `${base}/ctype` }, "k-ctype");
    expect(keyed.headers.get("content-type")).toBe(plain.headers.get("content-type"));
    expect(replayed.headers.get("content-type")).toBe(plain.headers.get("content-type"));
  });

  test("with upstream's x-idempotency-key too: a retry repeating both gets its job back; a new x- key is a 422", async () => {
    const body = { url: `${base}/both-headers`, limit: 1 };
    const headers = { "idempotency-key": "k-both", "x-idempotency-key": "x-both-1" };
    const first = (await (await h.request("/v2/crawl", { method: "POST", json: body, headers })).json()) as any;
    const again = await h.request("/v2/crawl", { method: "POST", json: body, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(first.id);
    const otherX = await h.request("/v2/crawl", { method: "POST", json: body, headers: { ...headers, "x-idempotency-key": "x-both-2" } });
    expect(otherX.status).toBe(422);
    // Upstream's header alone keeps upstream's rule.
    expect((await h.request("/v2/crawl", { method: "POST", json: body, headers: { "x-idempotency-key": "x-both-1" } })).status).toBe(409);
  });

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
  test("a one-off CLI scrape's services on the same folder leave a running server's claims alone", async () => {
    const c = h.services.idempotency.claim("someone", "k-live", "hash", Date.now());
    expect(c.kind).toBe("run");
    const cli = await createServices(testConfig({ dataDir: h.services.config.dataDir }), { log: silentLogger });
    await cli.close();
    expect(h.services.idempotency.claim("someone", "k-live", "hash", Date.now())).toEqual({ kind: "in-flight" });
  });


  const dir = mkdtempSync(join(tmpdir(), "crawlbox-idem-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("kept across a restart; expired after 24 h; in-flight claims released at start or when stale", () => {
    let db = openDatabase(dir);
    let store = new IdempotencyStore(db);
    const t0 = 1_700_000_000_000;
    const a = store.claim("key", "a", "h1", t0);
    expect(a.kind).toBe("run");
    store.complete("key", "a", (a as { claim: string }).claim, 200, '{"success":true}');
    expect(store.claim("key", "b", "h2", t0).kind).toBe("run"); // left in flight: the process "dies"
    expect(store.claim("key", "c", "h3", t0).kind).toBe("run");
    db.close();

    db = openDatabase(dir);
    store = new IdempotencyStore(db);
    expect(store.claim("key", "a", "h1", t0 + 1000)).toEqual({ kind: "replay", status: 200, response: '{"success":true}' });
    expect(store.claim("key", "b", "h2", t0 + 1000)).toEqual({ kind: "in-flight" });
    expect(store.releaseAbandoned(t0 + 1000)).toBe(2);
    const b = store.claim("key", "b", "h2", t0 + 1000);
    expect(b.kind).toBe("run");
    // A claim in flight for longer than any request can run is abandoned even without a restart.
    expect(store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS - 1)).toEqual({ kind: "in-flight" });
    const taken = store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS + 1);
    expect(taken.kind).toBe("run");
    // The first, stale request finishing late settles nothing: the row belongs to the request that took it over.
    store.complete("key", "b", (b as { claim: string }).claim, 200, '{"stale":true}');
    store.release("key", "b", (b as { claim: string }).claim);
    expect(store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS + 2)).toEqual({ kind: "in-flight" });
    store.complete("key", "b", (taken as { claim: string }).claim, 200, '{"fresh":true}');
    expect(store.claim("key", "b", "h2", t0 + 1000 + IN_FLIGHT_STALE_MS + 3)).toEqual({ kind: "replay", status: 200, response: '{"fresh":true}' });
    // After 24 h the key is free again, even for another request; prune deletes what expired.
    expect(store.claim("key", "a", "other", t0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({ kind: "mismatch" });
    expect(store.claim("key", "a", "other", t0 + IDEMPOTENCY_TTL_MS + 1).kind).toBe("run");
    expect(store.prune(t0 + 2 * IDEMPOTENCY_TTL_MS + IN_FLIGHT_STALE_MS * 2)).toBe(2); // "a" and "b"; "c" was released
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
