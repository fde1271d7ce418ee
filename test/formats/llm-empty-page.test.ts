/**
 * `summary`, `question` and `highlights` on a page whose markdown has no text (llm/visible-text.ts): the model was
 * asked about nothing and its invention came back as the page's summary or answer ("a premium widget priced at
 * $42"), with question's and highlights' +4 charged. Now the model is not asked: no `summary` (as upstream) and its
 * warning, question's "does not answer" warning, `highlights: ""`; their extra credits are waived (costs.ts).
 * Against the real server with the fake LLM and a local page site; the credit waiver on real renderers and render
 * contexts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "../../src/engines/types.ts";
import { hasVisibleText } from "../../src/llm/visible-text.ts";
import { waivedExtraCredits } from "../../src/scrape/costs.ts";
import { createRenderContext } from "../../src/scrape/render-context.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";
import type { FormatRequest, ScrapeSpec } from "../../src/scrape/spec.ts";
import { createHighlightsFormat } from "../../plugins/formats/highlights.ts";
import { createQueryFormat } from "../../plugins/formats/query.ts";
import { createQuestionFormat } from "../../plugins/formats/question.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

const INVENTED = "The page describes a premium widget priced at $42.";
let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  site.set("/empty", "");
  site.set("/shell", `<html><head><title></title></head><body><div id="root"></div><img src="/hero.png"><hr></body></html>`);
  site.set("/shop", page("Kettle Shop", "We sell the Blue Kettle for 20 dollars."));
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

const scrape = async (path: string, formats: unknown[]) => {
  llm.respond = () => ({ content: INVENTED });
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, maxAge: 0, onlyMainContent: false } });
  return { status: res.status, data: ((await res.json()) as any).data };
};

describe("a page without text is not sent to the model", () => {
  test.each(["/empty", "/shell"])("%s: summary is absent, with a warning saying why", async (path) => {
    llm.reset();
    const r = await scrape(path, ["summary"]);
    expect(r.status).toBe(200);
    expect(llm.chats()).toHaveLength(0);
    expect("summary" in r.data).toBe(false);
    expect(r.data.warning).toBe("Summary generation was skipped because the markdown content has no text.");
  });

  test.each(["/empty", "/shell"])("%s: question has no answer and the 'does not answer' warning", async (path) => {
    llm.reset();
    const r = await scrape(path, [{ type: "question", question: "What is the price?" }]);
    expect(r.status).toBe(200);
    expect(llm.chats()).toHaveLength(0);
    expect(r.data.answer).toBeUndefined();
    expect(r.data.warning).toBe("The page does not answer the question. Its markdown has no text, so the model was not asked.");
  });

  test.each(["/empty", "/shell"])("%s: highlights are empty", async (path) => {
    llm.reset();
    const r = await scrape(path, [{ type: "highlights", query: "price" }]);
    expect(r.status).toBe(200);
    expect(llm.chats()).toHaveLength(0);
    expect(r.data.highlights).toBe("");
    expect(r.data.warning).toContain("the model was not asked");
  });

  test("a page with text is still sent to the model", async () => {
    llm.reset();
    const r = await scrape("/shop", ["summary", { type: "question", question: "What is the price?" }]);
    expect(r.status).toBe(200);
    expect(llm.chats()).toHaveLength(2);
    expect(r.data.summary).toBe(INVENTED);
    expect(r.data.answer).toBe(INVENTED);
  });
});

describe("hasVisibleText", () => {
  test("letters and digits outside link and image destinations count, alt and link texts included", () => {
    expect(hasVisibleText("")).toBe(false);
    expect(hasVisibleText("  \n\n---\n\n* * *\n| | |\n")).toBe(false);
    expect(hasVisibleText("![](https://example.com/hero.png)\n\n[](https://example.com/a1)")).toBe(false);
    expect(hasVisibleText("![Hero](https://example.com/hero.png)")).toBe(true);
    expect(hasVisibleText("[Home](https://example.com/)")).toBe(true);
    expect(hasVisibleText("— 42 —")).toBe(true);
    expect(hasVisibleText("日本語")).toBe(true);
    expect(hasVisibleText("𠀋")).toBe(true);
  });
});

describe("the skipped calls' extra credits are waived", () => {
  const spec = { formats: [], onlyMainContent: false, removeBase64Images: true, includeTags: [], excludeTags: [] } as unknown as ScrapeSpec;
  const htmlPage = (text: string) => ({ finalUrl: "https://site.example/", requestedUrl: "https://site.example/", statusCode: 200, headers: {}, contentType: "text/html", text, body: new TextEncoder().encode(text) }) as unknown as Page;
  const limits = { tokenBudget: 100_000, timeoutMs: 10_000 } as never;
  const question = createQuestionFormat(undefined, limits);
  const highlights = createHighlightsFormat(undefined, limits);
  const query = createQueryFormat(undefined, limits);
  const q: FormatRequest = { type: "question", question: "Price?" };
  const hl: FormatRequest = { type: "highlights", query: "price" };
  const qy: FormatRequest = { type: "query", prompt: "Price?" };

  /** Renders `pairs` on a page of `html` (no model is configured: a call would throw) and returns the waiver. */
  const waived = async (html: string, pairs: [FormatRenderer, FormatRequest][]) => {
    const ctx = createRenderContext(spec, htmlPage(html));
    for (const [renderer, format] of pairs) {
      if (renderer !== query) await renderer.render(ctx, format);
    }
    return waivedExtraCredits(pairs, ctx);
  };

  test("question and highlights on an empty page: 4 each", async () => {
    expect(await waived("<html><body></body></html>", [[question, q]])).toBe(4);
    expect(await waived("<html><body></body></html>", [[question, q], [highlights, hl]])).toBe(8);
  });

  test("a credit group is waived only when none of its formats called the model", async () => {
    // query (not rendered here) stands for a format of the group that did call the model.
    expect(await waived("<html><body></body></html>", [[question, q], [query, qy]])).toBe(0);
  });

  test("nothing is waived for a page with text, or when no format skipped", async () => {
    const ctx = createRenderContext(spec, htmlPage("<p>Kettles</p>"));
    expect(waivedExtraCredits([[question, q]], ctx)).toBe(0);
  });
});
