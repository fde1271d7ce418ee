/**
 * An extract job's `sources` are the pages the model read (extract/read-pages.ts `pagesWithin`, llm/client.ts
 * `extract` `readChars`): when a long extraction is cut to its leading parts (the token budget, the time), the pages
 * after them were read from the site but never reached the model, and `sources` listed them anyway.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pagesWithin } from "../../src/extract/read-pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

let site: ReturnType<typeof Bun.serve>;
let llm: FakeLlm;
let h: Harness;
let base: string;

const SENTENCE = "The catalogue describes every kettle, toaster and fan in great detail, with notes on their care. ";
const page = (title: string, body: string) =>
  new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      // A long catalogue first (many parts at this context), then two short pages.
      if (p === "/catalogue") return page("Catalogue", Array.from({ length: 300 }, () => `<p>${SENTENCE}</p>`).join(""));
      if (p === "/kettle") return page("Kettle", "<p>The Kettle costs 25 EUR.</p>");
      if (p === "/toaster") return page("Toaster", "<p>The Toaster costs 40 EUR.</p>");
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  llm = startFakeLlm();
  llm.respond = () => ({ content: JSON.stringify({ products: [] }) });
  // A budget of 1,500 tokens a page (4,500 for the job) covers the catalogue's first parts only.
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: 2048, llmTokenBudget: 1_500 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  llm.stop();
});

async function finished(id: string): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const s = (await (await h.request(`/v2/extract/${id}`)).json()) as any;
    if (s.status !== "processing") return s;
    await Bun.sleep(25);
  }
  throw new Error("extract did not finish");
}

describe("an extract job's sources", () => {
  test("a job cut to its leading parts lists only the pages the model read", async () => {
    const urls = [`${base}/catalogue`, `${base}/kettle`, `${base}/toaster`];
    const res = await h.request("/v2/extract", { method: "POST", json: { urls, prompt: "List the products", showSources: true } });
    const done = await finished(((await res.json()) as any).id);
    expect(done.status).toBe("completed");
    expect(done.warning).toContain("parts");
    expect(done.sources).toEqual({ "*": [`${base}/catalogue`] }); // before: all three
  });

  test("pagesWithin: the pages whose text begins within the characters read, at least the first", () => {
    const pages = [
      { url: "a", markdown: "x".repeat(100), links: [] },
      { url: "b", markdown: "y".repeat(100), links: [] },
    ];
    expect(pagesWithin(pages, 0).map((p) => p.url)).toEqual(["a"]);
    expect(pagesWithin(pages, 100).map((p) => p.url)).toEqual(["a"]);
    expect(pagesWithin(pages, 130).map((p) => p.url)).toEqual(["a", "b"]);
    expect(pagesWithin(pages, Infinity).map((p) => p.url)).toEqual(["a", "b"]);
  });
});
