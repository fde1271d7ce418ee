/**
 * Asynchronous extract and agent jobs meet a transient model failure (a 429 with Retry-After, Ollama's "server busy"
 * 503 without one) after they have read their pages: the LLM call is retried (llm/retry.ts) and the job completes,
 * without scraping its pages again. A synchronous scrape retries once, briefly; a long Retry-After is not waited.
 * The model is the local fake speaking Ollama's protocol; the site a local Bun server counting its hits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeLlm, type FakeLlm, type LlmReply } from "../llm/fake-llm.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let llm: FakeLlm;
let h: Harness;
let base: string;
const hits = new Map<string, number>();

const SCHEMA = { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] };
const GOOD = { content: JSON.stringify({ name: "Kettle", price: 25 }) };

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const u = new URL(req.url);
      const p = u.pathname;
      hits.set(p + u.search, (hits.get(p + u.search) ?? 0) + 1);
      if (p === "/kettle") return new Response("<html><head><title>Kettle</title></head><body><main><h1>Kettle</h1><p>The Kettle costs 25 EUR.</p></main></body></html>", { headers: { "content-type": "text/html" } });
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});

afterAll(async () => {
  await h.close();
  site.stop(true);
  llm.stop();
});

async function finished(path: string): Promise<any> {
  for (let i = 0; i < 800; i++) {
    const s = (await (await h.request(path)).json()) as any;
    if (s.status !== "processing") return s;
    await Bun.sleep(25);
  }
  throw new Error(`${path} did not finish`);
}

/** The first chat answers `failure`, every later one `GOOD`. */
function failOnceThen(failure: LlmReply): void {
  llm.reset();
  llm.respond = (_req, i) => (i === 0 ? failure : GOOD);
}

const TRANSIENT: [string, LlmReply][] = [
  ["429 with Retry-After: 1", { status: 429, error: "Rate limit reached, retry in 1s", headers: { "retry-after": "1" } }],
  ["503 server busy, no Retry-After", { status: 503, error: "server busy, please try again. maximum pending requests exceeded" }],
];

describe("a transient model failure in an async job is retried, not the job's end", () => {
  for (const [name, failure] of TRANSIENT) {
    test(`extract: ${name}`, async () => {
      failOnceThen(failure);
      // A fresh URL per test: the page cache would otherwise serve it without a fetch.
      const url = `${base}/kettle?run=${crypto.randomUUID()}`;
      const started = Date.now();
      const res = await h.request("/v2/extract", { method: "POST", json: { urls: [url], prompt: "The product", schema: SCHEMA } });
      const { id } = (await res.json()) as any;
      const s = await finished(`/v2/extract/${id}`);
      expect({ status: s.status, data: s.data, error: s.error }).toEqual({ status: "completed", data: { name: "Kettle", price: 25 }, error: undefined });
      expect(llm.chats().length).toBe(2);
      expect(hits.get(url.slice(base.length))).toBe(1); // the page was not scraped again
      if (failure.headers?.["retry-after"]) expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    });

    test(`agent: ${name}`, async () => {
      failOnceThen(failure);
      const url = `${base}/kettle?run=${crypto.randomUUID()}`;
      const res = await h.request("/v2/agent", { method: "POST", json: { urls: [url], strictConstrainToURLs: true, prompt: "The product", schema: SCHEMA } });
      const { id } = (await res.json()) as any;
      const s = await finished(`/v2/agent/${id}`);
      expect({ status: s.status, data: s.data, error: s.error }).toEqual({ status: "completed", data: { name: "Kettle", price: 25 }, error: undefined });
      expect(hits.get(url.slice(base.length))).toBe(1);
    });
  }
});

describe("synchronous work retries a failing model server briefly in the client", () => {
  test("a 503 in a scrape is tried again within the scrape: the answer, after two calls", async () => {
    failOnceThen({ status: 503, error: "server busy" });
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${base}/kettle`, formats: [{ type: "json", schema: SCHEMA }] } });
    const body = (await res.json()) as any;
    expect({ status: res.status, json: body.data?.json }).toEqual({ status: 200, json: { name: "Kettle", price: 25 } });
    expect(llm.chats().length).toBe(2);
  });
});

describe("an async job gives up when waiting cannot help", () => {
  test("a Retry-After beyond the 60 s cap is not waited: the job fails with the provider's error", async () => {
    failOnceThen({ status: 429, error: "Rate limit reached", headers: { "retry-after": "600" } });
    const res = await h.request("/v2/extract", { method: "POST", json: { urls: [`${base}/kettle?run=${crypto.randomUUID()}`], prompt: "The product", schema: SCHEMA } });
    const s = await finished(`/v2/extract/${((await res.json()) as any).id}`);
    expect(s.status).toBe("failed");
    expect(s.error).toContain("rate limiting");
    expect(llm.chats().length).toBe(1);
  });

  test("a model that keeps failing: three retries, then the job fails with the provider's reason", async () => {
    llm.reset();
    llm.script([{ status: 503, error: "server busy", headers: { "retry-after": "0" } }]);
    const res = await h.request("/v2/extract", { method: "POST", json: { urls: [`${base}/kettle?run=${crypto.randomUUID()}`], prompt: "The product", schema: SCHEMA } });
    const s = await finished(`/v2/extract/${((await res.json()) as any).id}`);
    expect(s.status).toBe("failed");
    expect(s.error).toContain("server busy");
    expect(llm.chats().length).toBe(4);
  }, 30_000);
});
