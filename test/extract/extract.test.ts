/**
 * `POST /v2/extract` and `GET /v2/extract/{id}` (src/extract): the official SDK's `extract`, several pages in
 * one LLM extraction, a wildcard URL mapped to the site's pages, prompt-only extraction through search, sources,
 * credits and tokens, webhooks, failures, per-key access, and a job resumed after a stop. The LLM is the local
 * server speaking Ollama's protocol (test/llm/fake-llm.ts); SearXNG a local server speaking its JSON API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { startFakeSearxng, type FakeSearxng } from "../fixtures/searxng.ts";

let site: ReturnType<typeof Bun.serve>;
/** Another site (another loopback address, so another host) that the shop's outlet page links to. */
let elsewhere: ReturnType<typeof Bun.serve>;
let searx: FakeSearxng;
let hooks: HookReceiver;
let llm: FakeLlm;
let h: Harness;
let apiUrl: string;
let base: string;

const page = (title: string, body: string) =>
  new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  elsewhere = Bun.serve({
    port: 0,
    hostname: "127.0.0.2",
    fetch: () => page("Blender", "<p>The Blender costs 60 EUR and has three speeds.</p>"),
  });
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/") return page("Shop", `<p>Our products.</p><a href="/kettle">Kettle</a> <a href="/toaster">Toaster</a>`);
      if (p === "/kettle") return page("Kettle", "<p>The Kettle costs 25 EUR and holds 1.7 litres of water.</p>");
      if (p === "/toaster") return page("Toaster", "<p>The Toaster costs 40 EUR and has four slots for bread.</p>");
      if (p === "/outlet/") return page("Outlet", `<a href="/outlet/fan">Fan</a> <a href="http://127.0.0.2:${elsewhere.port}/outlet/blender">Blender elsewhere</a>`);
      if (p === "/outlet/fan") return page("Fan", "<p>The Fan costs 15 EUR and has two speeds.</p>");
      if (p === "/sitemap.xml") return new Response("not found", { status: 404 });
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  searx = startFakeSearxng(() => [{ url: `${base}/toaster`, title: "Toaster", content: "A toaster" }]);
  hooks = startHookReceiver();
  llm = startFakeLlm();
  // Prices are read from the page text the LLM is given, so the answer depends on what was actually sent.
  llm.respond = (req) => {
    const text = req.messages.map((m) => m.content).join("\n");
    const products = [...text.matchAll(/The (\w+) costs (\d+) EUR/g)].map((m) => ({ name: m[1], price: Number(m[2]) }));
    return { content: JSON.stringify({ products }) };
  };
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", searxngEndpoint: searx.url, allowPrivateWebhooks: true });
  apiUrl = h.listen();
});

afterAll(async () => {
  await h.close();
  site.stop(true);
  elsewhere.stop(true);
  searx.stop();
  hooks.stop();
  llm.stop();
});

const SCHEMA = { type: "object", properties: { products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } }, required: ["products"] };

async function finished(id: string, harness = h, auth?: string): Promise<any> {
  // 30 s: a failing model is retried with backoff (llm/retry.ts JOB_LLM_RETRY, at most 7 s of waits) before the job fails.
  for (let i = 0; i < 1200; i++) {
    const s = (await (await harness.request(`/v2/extract/${id}`, auth ? { auth } : {})).json()) as any;
    if (s.status !== "processing") return s;
    await Bun.sleep(25);
  }
  throw new Error("extract did not finish");
}

const start = async (body: Record<string, unknown>, harness = h) => {
  const res = await harness.request("/v2/extract", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
};

describe("POST /v2/extract", () => {
  test("the official SDK's extract: pages scraped, one LLM extraction over them, the data back", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const out: any = await app.extract({ urls: [`${base}/kettle`, `${base}/toaster`], prompt: "List the products and prices", schema: SCHEMA, showSources: true });
    expect(out.status).toBe("completed");
    expect(out.success).toBe(true);
    expect(out.data).toEqual({ products: [{ name: "Kettle", price: 25 }, { name: "Toaster", price: 40 }] });
    expect(out.sources).toEqual({ "*": [`${base}/kettle`, `${base}/toaster`] });
    expect(out.creditsUsed).toBe(2);
    expect(out.tokensUsed).toBeGreaterThan(0);
    expect(new Date(out.expiresAt).getTime()).toBeGreaterThan(Date.now());
    const chat = llm.chats().at(-1)!;
    const sent = chat.messages.map((m) => m.content).join("\n");
    expect(sent).toContain(`Source: ${base}/kettle`);
    expect(sent).toContain("List the products and prices");
    expect(chat.schema).toMatchObject({ required: ["products"] });
  });

  test("a wildcard URL reads the site's pages; the create answer is upstream's", async () => {
    const { status, body } = await start({ urls: [`${base}/*`], prompt: "List the products", schema: SCHEMA });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, id: expect.any(String), urlTrace: [] });
    const done = await finished(body.id);
    expect(done.data.products.map((p: any) => p.name).sort()).toEqual(["Kettle", "Toaster"]);
  });

  test("enableWebSearch (which forces allowExternalLinks) does not widen a wildcard's map to other sites, as upstream's map", async () => {
    const { body } = await start({ urls: [`${base}/outlet/*`], prompt: "List the products", schema: SCHEMA, enableWebSearch: true, showSources: true });
    const done = await finished(body.id);
    expect(done.status).toBe("completed");
    // The outlet's own pages and the search's result; not the other site's page the outlet links to.
    expect(done.sources["*"]).toEqual([`${base}/outlet/`, `${base}/outlet/fan`, `${base}/toaster`]);
    expect(done.data.products.map((p: any) => p.name).sort()).toEqual(["Fan", "Toaster"]);
    // The caller's own allowExternalLinks still lists them.
    const wide = await finished((await start({ urls: [`${base}/outlet/*`], prompt: "List the products", schema: SCHEMA, allowExternalLinks: true, showSources: true })).body.id);
    expect(wide.sources["*"]).toContain(`http://127.0.0.2:${elsewhere.port}/outlet/blender`);
    expect(wide.data.products.map((p: any) => p.name).sort()).toEqual(["Blender", "Fan"]);
  });

  test("a prompt without urls searches for pages (through SearXNG); the search's credits are in the job's", async () => {
    const { body } = await start({ prompt: "toaster prices" });
    const done = await finished(body.id);
    expect(done.status).toBe("completed");
    expect(done.data).toEqual({ products: [{ name: "Toaster", price: 40 }] });
    expect(done.creditsUsed).toBe(1 + 2);
  });

  test("enableWebSearch with a schema and no prompt reads the given URLs, with a warning (upstream accepts the body)", async () => {
    const { status, body } = await start({ urls: [`${base}/toaster`], schema: SCHEMA, enableWebSearch: true });
    expect(status).toBe(200); // was a 400: "A web search for an extract needs a prompt."
    const done = await finished(body.id);
    expect(done.status).toBe("completed");
    expect(done.warning).toContain("enableWebSearch searches for the prompt, and there is none");
    expect(done.creditsUsed).toBe(1); // the page; no search was made
    expect((await start({ schema: SCHEMA })).status).toBe(400); // no urls and nothing to search for
  });

  test("a job runs under its key's quota: pages beyond it are not read", async () => {
    const { key } = h.services.keys.create("two credits", 2);
    const res = await h.request("/v2/extract", { method: "POST", json: { urls: [`${base}/*`], prompt: "products", schema: SCHEMA }, auth: key });
    const done = await finished(((await res.json()) as any).id, h, key);
    expect(done.status).toBe("completed");
    expect(done.creditsUsed).toBe(2);
    expect(done.warning).toContain("INSUFFICIENT_CREDITS");
    expect(h.services.ledger.usage(h.services.keys.verify(key)!).creditsUsed).toBe(2);
  });

  test("webhooks announce started and completed, or failed", async () => {
    const webhook = { url: `http://127.0.0.1:${hooks.port}/hook`, metadata: { run: "x1" } };
    const { body } = await start({ urls: [`${base}/kettle`], prompt: "prices", webhook });
    await finished(body.id);
    const bad = await start({ urls: [`${base}/missing`], prompt: "prices", webhook });
    const failed = await finished(bad.body.id);
    expect(failed).toMatchObject({ success: false, status: "failed" });
    expect(failed.error).toContain("could be scraped");
    for (let i = 0; i < 200 && hooks.bodies.filter((b) => b.id === body.id || b.id === bad.body.id).length < 4; i++) await Bun.sleep(25);
    const mine = hooks.bodies.filter((b) => b.id === body.id).map((b) => [b.type, b.success]);
    expect(mine).toEqual([["extract.started", true], ["extract.completed", true]]);
    expect(hooks.bodies.find((b) => b.id === body.id && b.type === "extract.completed").data).toEqual([{ products: [{ name: "Kettle", price: 25 }] }]);
    expect(hooks.bodies.filter((b) => b.id === bad.body.id).map((b) => b.type)).toEqual(["extract.started", "extract.failed"]);
  });

  test("the LLM failing fails the job with its reason", async () => {
    const saved = llm.respond;
    llm.respond = () => ({ status: 500, error: "model crashed" });
    try {
      const { body } = await start({ urls: [`${base}/kettle`], prompt: "prices" });
      const done = await finished(body.id);
      expect(done).toMatchObject({ success: false, status: "failed" });
      expect(done.error).toBeString();
      // `data` is always there (api-v2.md §3.3): upstream's empty `[]` until the job completes.
      expect(done.data).toEqual([]);
    } finally {
      llm.respond = saved;
    }
  });

  test("a processing job's status carries data: [] as upstream's", async () => {
    const keyId = h.services.keys.verify(h.key)!.keyId;
    const now = Date.now();
    h.services.db
      .query("INSERT INTO extract_jobs (id, key_id, status, owner, request, created_at, updated_at, expires_at) VALUES ('still-working', ?, 'processing', 'elsewhere', '{}', ?, ?, ?)")
      .run(keyId, now, now, now + 86_400_000);
    try {
      const res = await h.request("/v2/extract/still-working");
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ success: true, status: "processing", data: [] });
      const app = new Firecrawl({ apiKey: h.key, apiUrl });
      expect(((await app.getExtractStatus("still-working")) as any).data).toEqual([]);
    } finally {
      h.services.db.query("DELETE FROM extract_jobs WHERE id = 'still-working'").run();
    }
  });

  test("unknown ids and other keys' jobs are 404 Extract job not found", async () => {
    const { body } = await start({ urls: [`${base}/kettle`], prompt: "prices" });
    await finished(body.id);
    const other = h.services.keys.create("other").key;
    const res = await h.request(`/v2/extract/${body.id}`, { auth: other });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toBe("Extract job not found");
    expect((await h.request("/v2/extract/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  test("a job a stopped server left processing runs again at the next start, once, even long after; not forever", async () => {
    const req = { urls: [{ url: `${base}/toaster`, sourceURL: `${base}/toaster` }], prompt: "prices", ignoreSitemap: false, includeSubdomains: true, allowExternalLinks: false, enableWebSearch: false, urlTrace: false, showSources: false, ignoreInvalidURLs: true, origin: "api" };
    const keyId = h.services.keys.verify(h.key)!.keyId;
    const insert = h.services.db.query("INSERT INTO extract_jobs (id, key_id, status, owner, attempts, request, created_at, updated_at, expires_at) VALUES (?, ?, 'processing', 'a dead process', ?, ?, ?, ?, ?)");
    // Accepted two days ago: a processing job does not expire.
    const old = Date.now() - 2 * 86_400_000;
    insert.run("left-over", keyId, 1, JSON.stringify(req), old, old, old + 86_400_000);
    insert.run("crashed-thrice", keyId, 3, JSON.stringify(req), old, old, old + 86_400_000);
    const chatsBefore = llm.chats().length;
    // Resumed twice (as if two starts raced): each job still runs once.
    h.services.extract.resumeAbandoned();
    h.services.extract.resumeAbandoned();
    const done = await finished("left-over");
    expect(done.data).toEqual({ products: [{ name: "Toaster", price: 40 }] });
    const gaveUp = await finished("crashed-thrice");
    expect(gaveUp).toMatchObject({ success: false, status: "failed" });
    expect(gaveUp.error).toContain("3 times");
    expect(llm.chats().length - chatsBefore).toBe(1);
  });

  test("a resumed job charges the key once for its pages: credits an earlier run paid are not charged again", async () => {
    const req = { urls: [{ url: `${base}/toaster`, sourceURL: `${base}/toaster` }, { url: `${base}/kettle`, sourceURL: `${base}/kettle` }], prompt: "prices", ignoreSitemap: false, includeSubdomains: true, allowExternalLinks: false, enableWebSearch: false, urlTrace: false, showSources: false, ignoreInvalidURLs: true, origin: "api" };
    const { key } = h.services.keys.create("resumed-credits");
    const who = h.services.keys.verify(key)!;
    // The earlier run read (and charged) one page before its server stopped.
    h.services.ledger.charge(who, 1);
    const now = Date.now();
    h.services.db
      .query("INSERT INTO extract_jobs (id, key_id, status, owner, attempts, credits, request, created_at, updated_at, expires_at) VALUES (?, ?, 'processing', 'a dead process', 1, 1, ?, ?, ?, ?)")
      .run("resumed-credits", who.keyId, JSON.stringify(req), now, now, now + 86_400_000);
    h.services.extract.resumeAbandoned();
    const done = await finished("resumed-credits", h, key);
    expect(done).toMatchObject({ success: true, status: "completed", creditsUsed: 2 });
    expect(h.services.ledger.usage(who).creditsUsed).toBe(2); // 1 before + 1 now, not 1 + 2
  });

  test("refused before anything is stored: no LLM, nothing to read, bad bodies", async () => {
    const bare = await createHarness();
    try {
      const r = await start({ urls: [`${base}/kettle`], prompt: "prices" }, bare);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("LLM_NOT_CONFIGURED");
    } finally {
      await bare.close();
    }
    const noSearch = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
    try {
      const r = await start({ prompt: "toaster prices" }, noSearch);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("SEARXNG_ENDPOINT");
      expect((noSearch.services.db.query("SELECT COUNT(*) AS n FROM extract_jobs").get() as any).n).toBe(0);
    } finally {
      await noSearch.close();
    }
    expect((await start({})).status).toBe(400);
    const huge = { type: "object", properties: Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`field_${i}_with_a_long_name`, { type: "string", description: "x".repeat(30) }])) };
    const big = await start({ urls: [`${base}/kettle`], prompt: "x", schema: huge });
    expect(big.status).toBe(400);
    expect(big.body.error).toContain("schema is larger");
    // A schema that is not JSON Schema is refused before a job exists (it used to fail the job later, charged).
    const jobsBefore = (h.services.db.query("SELECT COUNT(*) AS n FROM extract_jobs").get() as any).n;
    const bad = await start({ urls: [`${base}/kettle`], prompt: "x", schema: { type: "objectz", properties: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: "BAD_REQUEST" });
    expect(bad.body.error).toContain("Invalid JSON schema");
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM extract_jobs").get() as any).n).toBe(jobsBefore);
    // A key with 10 jobs processing gets a 429 for the next.
    const { key } = h.services.keys.create("busy");
    const keyId = h.services.keys.verify(key)!.keyId;
    const insert = h.services.db.query("INSERT INTO extract_jobs (id, key_id, status, owner, request, created_at, updated_at, expires_at) VALUES (?, ?, 'processing', 'elsewhere', '{}', ?, ?, ?)");
    for (let i = 0; i < 10; i++) insert.run(`busy-${i}`, keyId, Date.now(), Date.now(), Date.now() + 86_400_000);
    const busy = await h.request("/v2/extract", { method: "POST", json: { urls: [`${base}/kettle`], prompt: "x" }, auth: key });
    expect(busy.status).toBe(429);
    expect(((await busy.json()) as any).code).toBe("TOO_MANY_EXTRACT_JOBS");
    h.services.db.query("DELETE FROM extract_jobs WHERE key_id = ?").run(keyId);
    const invalid = await start({ urls: ["not a url"], prompt: "x" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe("No valid URLs provided");
    expect((await start({ urls: Array.from({ length: 11 }, (_, i) => `${base}/p${i}`), prompt: "x" })).status).toBe(400);
  });
});
