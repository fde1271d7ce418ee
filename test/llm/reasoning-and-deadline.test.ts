/**
 * What a model's answer may carry besides the answer, and what a long page's run keeps when time runs out
 * (src/llm/answer.ts `withoutReasoning`, client.ts `textOf`, chunk-run.ts), through the real API against the local
 * fake LLM in both protocols:
 * - a thinking model that spends its answer tokens reasoning answers an empty content (Ollama: beside `thinking`;
 *   OpenAI-compatible servers: `content: null` beside `reasoning_content`, `finish_reason: "length"`): a 500
 *   `LLM_INVALID_ANSWER` that says so, where it was a 200 with an empty summary;
 * - reasoning left in the content (a lone `</think>`: the chat template opened it; or a `<think>` never closed) is
 *   not the answer: a summary held the reasoning and a literal `</think>`, a JSON answer with braces in its
 *   reasoning failed to parse;
 * - a page of many chunks on a slow model: the chunks that fit the time are kept (200, with a warning saying how
 *   many), where the run failed `LLM_TIMEOUT` after answering (and charging) most of them; a merge the deadline
 *   cuts off gives the parts in page order; a slow first call does not stop the later ones; a rate limit on a later
 *   part keeps the earlier ones.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { withoutReasoning } from "../../src/llm/answer.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "./fake-llm.ts";

const CONTEXT_TOKENS = 2048;
const SCHEMA = { type: "object", properties: { name: { type: ["string", "null"] }, price: { type: ["number", "null"] } } };
const FILLER = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} of filler text about the shop, its opening hours and nothing else of note.`);

let site: PageSite;
let llm: FakeLlm;
let ollama: Harness;
let openai: Harness;

beforeAll(async () => {
  site = startPageSite();
  site.set("/short", page("Kettle", "The Kettle costs 25 EUR and boils water quickly."));
  // The product is in the first chunk; the page is about 13 chunks long at this context.
  site.set("/long", page("Kettle", "The Kettle costs 25 EUR.", ...FILLER));
  llm = startFakeLlm();
  ollama = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS, llmTimeoutMs: 2_500 });
  openai = await createHarness({ openaiBaseUrl: llm.openaiUrl, openaiApiKey: "", modelName: "test-model", llmContextTokens: CONTEXT_TOKENS });
});
afterAll(async () => {
  await ollama.close();
  await openai.close();
  site.stop();
  llm.stop();
});

const scrape = async (h: Harness, path: string, formats: unknown[], timeout = 30_000) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, maxAge: 0, timeout } });
  return { status: res.status, body: (await res.json()) as any };
};
const isMerge = (r: LlmRequestLog) => r.messages.some((m) => m.content.includes("summaries of consecutive parts"));

describe("withoutReasoning", () => {
  test("a leading block, a lone closing tag and an unclosed block are reasoning; tags inside the answer are not", () => {
    expect(withoutReasoning("<think>hmm {a}</think>\n\nThe answer.")).toBe("The answer.");
    expect(withoutReasoning("Okay, the page {is} about kettles.\n</think>\n\nKettles boil water.")).toBe("Kettles boil water.");
    expect(withoutReasoning("  <think>still thinking when the limit came")).toBe("");
    expect(withoutReasoning("A page about the <think> and </think> tags.")).toBe("A page about the <think> and </think> tags.");
    expect(withoutReasoning("Plain answer.")).toBe("Plain answer.");
  });

  test("a closing tag inside the answer's own text is text: only one on a line of its own ends reasoning", () => {
    const prose = "The page explains that DeepSeek-R1 ends its reasoning with a </think> tag, after which the answer follows.";
    expect(withoutReasoning(prose)).toBe(prose);
    const json = '{"title": "Stripping </think> from model output"}';
    expect(withoutReasoning(json)).toBe(json);
    expect(withoutReasoning("Reasoning here.\r\n  </think>  \r\nAnswer.")).toBe("Answer.");
    // A closing tag that starts its line ends reasoning; one that ends a line of the answer's text does not.
    expect(withoutReasoning("Let me think.\n</think>The answer.")).toBe("The answer.");
    const tagAtEnd = "R1 ends its reasoning with </think>\nand then answers.";
    expect(withoutReasoning(tagAtEnd)).toBe(tagAtEnd);
    const tagList = "Closing tags used on the page:\n- </div>\n- </think>\n- </p>";
    expect(withoutReasoning(tagList)).toBe(tagList);
  });
});

describe("a thinking model that spent its answer tokens reasoning", () => {
  for (const [protocol, harness] of [["Ollama", () => ollama], ["OpenAI", () => openai]] as const) {
    test(`${protocol}: an empty content beside the reasoning, cut at the limit, is a 500 LLM_INVALID_ANSWER that says why`, async () => {
      llm.script([{ content: "", reasoning: "Let me think about this page at great length...", doneReason: "length" }]);
      const r = await scrape(harness(), "/short", ["summary"]);
      expect(r.status).toBe(500);
      expect(r.body.code).toBe("LLM_INVALID_ANSWER");
      expect(r.body.error).toContain("stopped at the answer limit");
      expect(r.body.error).toContain("while reasoning");
    });
  }

  test("an empty answer the model ended itself is still no summary: an error, not an empty string", async () => {
    llm.script([{ content: "   " }]);
    const r = await scrape(ollama, "/short", ["summary"]);
    expect(r.status).toBe(500);
    expect(r.body.error).toContain("gave an empty answer.");
  });
});

describe("reasoning left in the content", () => {
  test("summary: everything up to a lone </think> is dropped (the chat template opened it)", async () => {
    llm.script([{ content: "The user wants a summary. The page {mentions} a kettle.\n</think>\n\nA kettle for 25 EUR that boils water quickly." }]);
    const r = await scrape(ollama, "/short", ["summary"]);
    expect(r.status).toBe(200);
    expect(r.body.data.summary).toBe("A kettle for 25 EUR that boils water quickly.");
  });

  test("json: reasoning with braces before a lone </think> does not spoil the answer (one call, no repair)", async () => {
    llm.script([{ content: 'Fields: {name, price}. I see {"name": "?"} maybe.\n</think>\n{"name": "Kettle", "price": 25}' }]);
    const before = llm.chats().length;
    const r = await scrape(openai, "/short", [{ type: "json", schema: SCHEMA }]);
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ name: "Kettle", price: 25 });
    expect(llm.chats().length - before).toBe(1);
  });

  test("a <think> never closed, cut at the limit: no answer, said so", async () => {
    llm.script([{ content: "<think>The page is about a kettle, and", doneReason: "length" }]);
    const r = await scrape(ollama, "/short", ["summary"]);
    expect(r.status).toBe(500);
    expect(r.body.error).toContain("stopped at the answer limit");
  });
});

describe("a long page on a slow model (CRAWLBOX_LLM_TIMEOUT_MS 2,500 ms)", () => {
  test("json: the chunks that fit the time are answered and merged, with a warning; no LLM_TIMEOUT", async () => {
    llm.reset();
    llm.respond = (req) => {
      const m = /The (\w+) costs (\d+) EUR/.exec(req.messages.map((x) => x.content).join("\n"));
      return { delayMs: 300, content: JSON.stringify(m ? { name: m[1], price: Number(m[2]) } : { name: null, price: null }) };
    };
    const started = performance.now();
    const r = await scrape(ollama, "/long", [{ type: "json", schema: SCHEMA }]);
    const tookMs = performance.now() - started;
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ name: "Kettle", price: 25 });
    const asked = llm.chats().length;
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(asked).toBeLessThan(13);
    // The last part asked was cut off by the deadline (kept 0.5 s before the operation's): the ones before it count.
    expect(r.body.data.warning).toContain(`was drawn from the first ${asked - 1} of`);
    expect(r.body.data.warning).toContain("CRAWLBOX_LLM_TIMEOUT_MS");
    // Ended before the deadline, not at it: the scrape still answers within its time.
    expect(tookMs).toBeLessThan(2_500);
  });

  test("summary: a fifth of the time is kept for the merge, so a page too long for its time still gets one summary", async () => {
    llm.reset();
    let n = 0;
    llm.respond = (req) => (isMerge(req) ? { delayMs: 300, content: "One summary of the parts read." } : { delayMs: 300, content: `Part summary ${++n}.` });
    const r = await scrape(ollama, "/long", ["summary"]);
    expect(r.status).toBe(200);
    // Before this, the parts ran until the deadline and the merge never had time: the summary was the parts joined.
    expect(r.body.data.summary).toBe("One summary of the parts read.");
    expect(r.body.data.warning).toMatch(/the summary was drawn from the first \d+ of \d+ parts/);
    expect(n).toBeGreaterThanOrEqual(3);
  });

  test("summary: a merge the deadline cuts off gives the chunks' summaries in page order, with a warning", async () => {
    llm.reset();
    let n = 0;
    llm.respond = (req) => (isMerge(req) ? { delayMs: 10_000, content: "never" } : { delayMs: 100, content: `Part summary ${++n}.` });
    const r = await scrape(ollama, "/long", ["summary"]);
    expect(r.status).toBe(200);
    const parts = r.body.data.summary.split("\n\n");
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts).toEqual(parts.map((_: string, i: number) => `Part summary ${i + 1}.`));
    expect(r.body.data.warning).toContain(`no time left to combine the ${parts.length} parts of the summary`);
  });

  test("a slow first call (a model loading) does not stop the run: later, faster parts are still asked while time is left", async () => {
    llm.reset();
    let n = 0;
    llm.respond = () => ({ delayMs: n++ === 0 ? 1_200 : 100, content: JSON.stringify({ name: null, price: null }) });
    const r = await scrape(ollama, "/long", [{ type: "json", schema: SCHEMA }]);
    expect(r.status).toBe(200);
    // Judged by the first call's 1.2 s, the run stopped after it; asked, the next parts take 0.1 s each.
    expect(llm.chats().length).toBeGreaterThanOrEqual(4);
  });

  test("a rate limit met on a later part keeps the parts answered, with a warning (it was a 429 for the whole page)", async () => {
    llm.reset();
    let n = 0;
    llm.respond = () => (++n === 3 ? { status: 429, error: "slow down", headers: { "retry-after": "30" } } : { content: JSON.stringify({ name: "Kettle", price: 25 }) });
    const r = await scrape(ollama, "/long", [{ type: "json", schema: SCHEMA }]);
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ name: "Kettle", price: 25 });
    expect(r.body.data.warning).toContain("rate-limited this request before every part was read: the json answer was drawn from the first 2 of");
  });

  test("a first chunk the deadline cuts off is still the LLM_TIMEOUT it was: there is nothing to give", async () => {
    llm.reset();
    llm.script([{ delayMs: 10_000, content: "{}" }]);
    const r = await scrape(ollama, "/long", [{ type: "json", schema: SCHEMA }]);
    expect(r.status).toBe(504);
    expect(r.body.code).toBe("LLM_TIMEOUT");
  });
});
