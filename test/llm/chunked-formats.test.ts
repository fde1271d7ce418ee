/**
 * LLM formats on pages longer than one request (src/llm/client.ts, chunk-plan.ts, relaxed-schema.ts), through the
 * real API against the local fake LLM (Ollama protocol):
 * - json: a chunk without the data answers null, as the system prompt tells it to; the scrape does not fail;
 * - every request fits the context window: with the caller's prompt, with a repair turn, and when chunk summaries
 *   are combined; a prompt that alone cannot fit is a 400 before any call;
 * - a page too long for the token budget is cut to what fits, with a warning, instead of failing after spending.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { estimateTokens } from "../../src/llm/chunk.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "./fake-llm.ts";

const CONTEXT_TOKENS = 2048;
const SCHEMA = { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] };
/** The same fields, nullable and not required: the tests of request sizes do not depend on how nulls are checked. */
const NULLABLE_SCHEMA = { type: "object", properties: { name: { type: ["string", "null"] }, price: { type: ["number", "null"] } } };
const FILLER = Array.from({ length: 120 }, (_, i) => `Paragraph ${i} of filler text about the shop, its opening hours and nothing else of note.`);

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  // The product is in the first chunk only; the rest of the page is filler.
  site.set("/long", page("Kettle", "The Kettle costs 25 EUR.", ...FILLER));
  site.set("/empty", page("Nothing", "No product here."));
  site.set("/huge", page("Huge", ...Array.from({ length: 3000 }, (_, i) => `Paragraph ${i}: the history of the kettle, continued at some length with more words.`), "The Kettle costs 25 EUR."));
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

/** The page content of a request (what is between the markers). */
const pageOf = (r: LlmRequestLog) => r.messages.map((m) => m.content).join("\n").split("<<<PAGE_CONTENT").at(-1) ?? "";

/** A model that follows the system prompt: the product when the chunk has it, else null for each field. */
function honestModel(r: LlmRequestLog): { content: string } {
  const m = /The (\w+) costs (\d+) EUR/.exec(pageOf(r));
  return { content: JSON.stringify(m ? { name: m[1], price: Number(m[2]) } : { name: null, price: null }) };
}

/** Whether a request (its messages, by our estimate, plus the answer it reserves) fits the context it asks for. */
function fits(r: LlmRequestLog): boolean {
  const promptTokens = estimateTokens(r.messages.map((m) => m.content).join("\n"));
  return r.body.options.num_ctx === CONTEXT_TOKENS && promptTokens + r.body.options.num_predict <= CONTEXT_TOKENS;
}

const scrape = async (path: string, formats: unknown[], harness = h) => {
  const res = await harness.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, maxAge: 0 } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("json on a multi-chunk page: chunks are checked against a relaxed schema", () => {
  test("chunks without the product answer null: the merged answer has it, no failure", async () => {
    llm.reset();
    llm.respond = honestModel;
    const r = await scrape("/long", [{ type: "json", schema: SCHEMA }]);
    expect({ status: r.status, code: r.body.code, json: r.body.data?.json }).toEqual({ status: 200, code: undefined, json: { name: "Kettle", price: 25 } });
    expect(llm.chats().length).toBeGreaterThan(1);
    expect(r.body.data.warning).toBeUndefined();
    // No repair turn was needed: every chunk's nulls were accepted.
    expect(llm.chats().every((c) => c.messages.length === 2)).toBe(true);
  });

  test("a page without the data: the model's nulls are returned with a warning, not a 500", async () => {
    llm.reset();
    llm.respond = honestModel;
    const r = await scrape("/empty", [{ type: "json", schema: SCHEMA }]);
    expect({ status: r.status, json: r.body.data?.json }).toEqual({ status: 200, json: { name: null, price: null } });
    expect(r.body.data.warning).toContain("/name must be string");
  });

  test("a wrong type in a chunk is still repaired, and still fails when it stays wrong", async () => {
    llm.reset();
    llm.script([{ content: '{"name": "Kettle", "price": "cheap"}' }, { content: '{"name": "Kettle", "price": "very cheap"}' }]);
    const r = await scrape("/empty", [{ type: "json", schema: SCHEMA }]);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 500, code: "LLM_INVALID_ANSWER" });
    expect(llm.chats()[1]!.messages.at(-1)!.content).toContain("/price must be number,null");
  });
});

describe("every request fits the context window", () => {
  test("a long prompt is counted in the chunk size, and the repair turn fits too", async () => {
    llm.reset();
    // Every first answer is invalid, so every chunk has a repair turn (the answer quoted back).
    llm.respond = (r) => (r.messages.length === 2 ? { content: JSON.stringify({ name: "x".repeat(1200), price: "?" }) } : honestModel(r));
    const prompt = `Extract the product. ${"Be careful to read prices in euros and names exactly as written. ".repeat(30)}`;
    const r = await scrape("/long", [{ type: "json", schema: NULLABLE_SCHEMA, prompt }]);
    const chats = llm.chats();
    expect(chats.filter((c) => !fits(c)).length).toBe(0);
    expect(chats.some((c) => c.messages.length === 4)).toBe(true);
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ name: "Kettle", price: 25 });
  });

  test("a prompt that alone cannot fit is a 400 before any call", async () => {
    llm.reset();
    llm.respond = honestModel;
    const r = await scrape("/long", [{ type: "json", schema: NULLABLE_SCHEMA, prompt: "Read carefully. ".repeat(500) }]);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: "LLM_PROMPT_TOO_LONG" });
    expect(llm.chats()).toHaveLength(0);
  });

  test("so is a schema that alone cannot fit, without a prompt (json format, extract, agent)", async () => {
    llm.reset();
    llm.respond = honestModel;
    const properties = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`field_number_${i}_of_the_schema`, { type: ["string", "null"], description: "A field the page may or may not hold." }]));
    const schema = { type: "object", properties };
    const r = await scrape("/long", [{ type: "json", schema }]);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: "LLM_PROMPT_TOO_LONG" });
    // The agent needs a prompt; a short one leaves the schema at fault.
    for (const [path, extra] of [["/v2/extract", {}], ["/v2/agent", { prompt: "Find the product." }]] as const) {
      const res = await h.request(path, { method: "POST", json: { urls: [`${site.url}/long`], schema, ...extra } });
      expect({ path, status: res.status, code: ((await res.json()) as any).code }).toEqual({ path, status: 400, code: "LLM_PROMPT_TOO_LONG" });
    }
    expect(llm.chats()).toHaveLength(0);
  });

  test("summary: chunk summaries are combined in rounds that each fit", async () => {
    llm.reset();
    // Long chunk summaries: all of them in one merge request would be several times the context.
    llm.respond = () => ({ content: "This part of the page describes the history of the kettle at length. ".repeat(20) });
    const big = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS, llmTokenBudget: 1_000_000 });
    try {
      const r = await scrape("/huge", ["summary"], big);
      expect(r.status).toBe(200);
      expect(r.body.data.summary).toContain("history of the kettle");
      expect(llm.chats().filter((c) => !fits(c)).length).toBe(0);
      const merges = llm.chats().filter((c) => c.messages[1]!.content.includes("Combine them"));
      expect(merges.length).toBeGreaterThan(1);
    } finally {
      await big.close();
    }
  }, 30_000);
});

describe("a page too long for the token budget", () => {
  const BUDGET = 20_000;
  let small: Harness;
  beforeAll(async () => {
    small = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS, llmTokenBudget: BUDGET });
  });
  afterAll(() => small.close());

  for (const [name, formats] of [["json", [{ type: "json", schema: NULLABLE_SCHEMA }]], ["summary", ["summary"]]] as const) {
    test(`${name}: the leading parts that fit are used, with a warning, instead of a 400 after spending`, async () => {
      llm.reset();
      llm.respond = (r) => (r.schema === undefined ? { content: "A summary of this part." } : honestModel(r));
      const r = await scrape("/huge", [...formats], small);
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 200, code: undefined });
      expect(r.body.data.warning).toContain("token budget");
      const cut = /from its first (\d+) of (\d+) parts/.exec(r.body.data.warning);
      expect(Number(cut![1])).toBeLessThan(Number(cut![2]));
      // What the fake model reported spending (its own count, 4 characters a token) stays within the budget.
      const reported = llm.chats().reduce((n, c) => n + Math.max(1, Math.ceil(c.messages.map((m) => m.content).join("\n").length / 4)), 0);
      expect(reported).toBeLessThanOrEqual(BUDGET);
    });
  }
});
