/**
 * Credits of `question`, `highlights` and `query` on a page without text: the model is not asked, so their +4 is not
 * charged (1 credit in all); on a page with text they still cost 5, and question with highlights 9. Needs
 * /tmp/review-h6/service-f8.patch (src/scrape/service.ts subtracts waivedExtraCredits once the formats rendered) and
 * /tmp/review-h6/query-f8.patch (plugins/formats/query.ts passes its format, so its waiver is recorded).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;
beforeAll(async () => {
  site = startPageSite();
  site.set("/empty", "");
  site.set("/shop", page("Kettle Shop", "We sell the Blue Kettle for 20 dollars."));
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

const credits = async (path: string, formats: unknown[]) => {
  llm.respond = () => ({ content: "An answer." });
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, maxAge: 0 } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data.metadata.creditsUsed as number;
};

test("an empty page costs 1 credit with question, highlights or query (what is charged is creditsUsed); a page with text still costs their +4", async () => {
  const question = { type: "question", question: "Price?" };
  const highlights = { type: "highlights", query: "price" };
  expect(await credits("/empty", [question])).toBe(1);
  expect(await credits("/empty", [highlights])).toBe(1);
  expect(await credits("/empty", [question, highlights, "summary"])).toBe(1);
  expect(await credits("/empty", [{ type: "query", prompt: "Price?" }])).toBe(1);
  expect(await credits("/empty", [{ type: "query", prompt: "price", mode: "directQuote" }])).toBe(1);
  expect(await credits("/shop", [question])).toBe(5);
  expect(await credits("/shop", [question, highlights])).toBe(9);
});

