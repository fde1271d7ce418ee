/**
 * Crawl prompts: `prompt` on POST /v2/crawl (explicit options win, `promptGeneratedOptions` in the answer,
 * generated options validated like user input) and POST /v2/crawl/params-preview, also through the SDK.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { CRAWL_OPTIONS_SCHEMA } from "../../src/llm/crawl-prompt.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  const links = ["/docs/a", "/docs/b", "/docs/c", "/blog/x"].map((l) => `<a href="${l}">${l}</a>`).join(" ");
  site.set("/", `<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Welcome to the fixture home page. ${links}</p></main></body></html>`);
  for (const p of ["/docs/a", "/docs/b", "/docs/c", "/blog/x"]) site.set(p, page(p, `Content of ${p} on the fixture site.`));
  llm = startFakeLlm({ apiKey: "k-1" });
  h = await createHarness({ openaiBaseUrl: llm.openaiUrl, openaiApiKey: "k-1", modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

async function waitDone(id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const s = (await (await h.request(`/v2/crawl/${id}`)).json()) as any;
    if (s.status !== "scraping") return s;
    await Bun.sleep(50);
  }
  throw new Error("crawl did not finish");
}

describe("crawl prompt", () => {
  test("generated options drive the crawl; explicit ones win; the answer carries them", async () => {
    llm.reset();
    llm.script([{ content: JSON.stringify({ includePaths: ["^/docs/.*"], limit: 50, sitemap: "skip", ignoreQueryParameters: true }) }]);
    const res = await h.request("/v2/crawl", {
      method: "POST",
      json: { url: `${site.url}/`, prompt: "Only the documentation pages", limit: 3, ignoreRobotsTxt: true, sitemap: "skip" },
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.promptGeneratedOptions).toEqual({ includePaths: ["^/docs/.*"], limit: 50, sitemap: "skip", ignoreQueryParameters: true });
    const sent = llm.chats()[0]!;
    expect(sent.schema).toEqual(CRAWL_OPTIONS_SCHEMA);
    expect(sent.messages[1]!.content).toContain("Only the documentation pages");
    expect(sent.messages[1]!.content).toContain(`${site.url}/`);
    const done = await waitDone(body.id);
    const paths = done.data.map((d: any) => new URL(d.metadata.url).pathname).sort();
    // limit 3 (explicit) beat the generated 50; includePaths (generated) kept /blog out.
    expect(paths).toHaveLength(3);
    for (const p of paths) expect(p === "/" || p.startsWith("/docs/")).toBe(true);
  });

  test("invalid generated options are a 400, like invalid user input", async () => {
    llm.reset();
    llm.script([{ content: JSON.stringify({ includePaths: ["(unclosed"] }) }]);
    const res = await h.request("/v2/crawl", { method: "POST", json: { url: `${site.url}/`, prompt: "docs" } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.error).toContain("Failed to process natural language prompt");
    expect(body.error).toContain("includePaths");
    expect(body.details.generated).toEqual({ includePaths: ["(unclosed"] });
  });

  test("an answer outside the option schema is repaired once, then refused", async () => {
    llm.reset();
    llm.script([{ content: '{"limit": "ten"}' }, { content: '{"limit": 10}' }]);
    const res = await h.request("/v2/crawl/params-preview", { method: "POST", json: { url: `${site.url}/`, prompt: "ten pages" } });
    expect(((await res.json()) as any).data).toEqual({ url: `${site.url}/`, limit: 10 });
  });

  test("params-preview: {success, data: {url, ...options}}; no LLM → 400 naming what to set", async () => {
    llm.reset();
    llm.script([{ content: '{"includePaths":["^/blog/.*"],"crawlEntireDomain":false}' }]);
    const res = await h.request("/v2/crawl/params-preview", { method: "POST", json: { url: `${site.url}/`, prompt: "blog posts" } });
    expect(await res.json()).toEqual({ success: true, data: { url: `${site.url}/`, includePaths: ["^/blog/.*"], crawlEntireDomain: false } });

    const plain = await createHarness();
    try {
      for (const [path, json] of [
        ["/v2/crawl/params-preview", { url: `${site.url}/`, prompt: "x" }],
        ["/v2/crawl", { url: `${site.url}/`, prompt: "x" }],
      ] as const) {
        const r = await plain.request(path, { method: "POST", json });
        const b = (await r.json()) as any;
        expect(r.status).toBe(400);
        expect(b.code).toBe("LLM_NOT_CONFIGURED");
        expect(b.error).toContain("MODEL_NAME");
      }
    } finally {
      await plain.close();
    }
  });

  test("official SDK: crawlParamsPreview", async () => {
    llm.reset();
    llm.script([{ content: '{"includePaths":["^/docs/.*"],"limit":5}' }]);
    const app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
    const data = await app.crawlParamsPreview(`${site.url}/`, "the docs, five pages");
    expect(data).toMatchObject({ url: `${site.url}/`, includePaths: ["^/docs/.*"], limit: 5 });
  });
});
