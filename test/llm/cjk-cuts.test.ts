/**
 * The places that cut page text to one model call measure it as the chunks do (llm/chunk.ts `weightedLength`,
 * `leadingWithin`: a Chinese character counts as the ASCII characters of its tokens), not by its length: the
 * product format's page, a brand's personality, a monitor's judged diff, the agent's chat answer, the deterministic
 * extractor's page, onlyCleanContent's previews and changeTracking's excerpts. Cut by length, a Chinese page's
 * "first part" for the product format was ~4.5 times one call's room (and went out as four calls), and the packed
 * excerpts and previews overflowed the request they were packed for.
 *
 * The product format is driven through the real API against the local fake LLM; the two cutters that pack text
 * (excerpts, previews) are checked directly, with the same weighted measure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { changeExcerpts } from "../../src/change-tracking/excerpts.ts";
import { previewParts } from "../../src/clean-content/blocks.ts";
import { estimateTokens, weightedLength } from "../../src/llm/chunk.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

const CONTEXT_TOKENS = 8192;
const SENTENCE = "本店位于城市中心，营业时间为每天上午九点至晚上十点，我们提供各种茶具和水壶。";
/** About 20,000 Chinese characters in 50 paragraphs. */
const PARAGRAPHS = Array.from({ length: 50 }, (_, i) => `${i}：${SENTENCE.repeat(10)}`);

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  site.set("/zh", page("水壶商店", ...PARAGRAPHS));
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

describe("one call's page, cut by weight", () => {
  test("product: a Chinese page without product data is cut to what fits the context (by crawlbox's own estimate)", async () => {
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ isProduct: false, title: "", variants: [] }) });
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/zh`, formats: ["product"], maxAge: 0 } });
    expect(res.status).toBe(200);
    // The page's first part, in one call. Before: its first ~14,000 characters by length, ~21,000 estimated tokens,
    // which the json extraction under it then split into four calls (four times the tokens, for a "first part").
    expect(llm.chats()).toHaveLength(1);
    const chat = llm.chats()[0]!;
    const promptTokens = estimateTokens(chat.messages.map((m) => m.content).join("\n"));
    expect(promptTokens + chat.body.options.num_predict).toBeLessThanOrEqual(CONTEXT_TOKENS);
    // And the page was cut, not sent whole: its start is there, its end is not.
    const sent = chat.messages.map((m) => m.content).join("\n");
    expect(sent).toContain("0：");
    expect(sent).not.toContain("49：");
  });
});

describe("packing by weight", () => {
  test("changeTracking's excerpts of two Chinese versions stay within their budget by weight", () => {
    const previous = PARAGRAPHS.join("\n");
    const current = PARAGRAPHS.map((p, i) => (i % 10 === 0 ? `${p}（已更新）` : p)).join("\n");
    const budget = 6_000;
    const x = changeExcerpts(previous, current, budget);
    expect(x.excerpted).toBe(true);
    expect(x.shownChanges).toBeGreaterThanOrEqual(1);
    expect(weightedLength(x.previous) + weightedLength(x.current)).toBeLessThanOrEqual(budget);
    // Two short versions still go whole.
    expect(changeExcerpts("旧的", "新的", budget).excerpted).toBe(false);
  });

  test("onlyCleanContent's previews: each part's weight stays within the room (a Chinese block is ~4.5 times its length)", () => {
    const maxChars = 3_000;
    const parts = previewParts(PARAGRAPHS, maxChars);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(weightedLength(p.text)).toBeLessThanOrEqual(maxChars);
    expect(parts.at(-1)!.last).toBe(PARAGRAPHS.length - 1);
  });
});
