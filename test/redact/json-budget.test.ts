/**
 * The budget of a returned JSON value's redaction (redact/json-strings.ts, redact/redactor.ts), through the API with
 * the fake LLM and the real browser: `deterministicJson`'s `json` of 300 strings, redacted in a model mode under
 * `CRAWLBOX_LLM_TOKEN_BUDGET` 8,000. Before, a string holding the join's separator (or a model quote spanning two
 * values) sent every string to the model on its own, each with a fresh budget: 301 model calls and 135,289 tokens,
 * answered 200. Now such a string is read alone and the rest together, all of them under one budget; a value whose
 * reads the budget cannot hold fails the scrape (LLM_TOKEN_BUDGET_EXCEEDED), never returning a value unredacted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { isCodegen } from "../formats/deterministic-json-setup.ts";
import { startPageSite, type PageSite } from "../formats/pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";

const BUDGET = 8_000;
let site: PageSite;
let llm: FakeLlm;
let h: Harness;
beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", browserConcurrency: 2, llmTokenBudget: BUDGET });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
  llm.stop();
});

const PAGE = `<!doctype html><html><body><h1>Kettles</h1><p class="who">Ada Lovelace</p></body></html>`;
const SCHEMA = { type: "object", properties: { items: { type: "array", items: { type: "string" } } } };
/** 300 strings; the page's name at 7; `odd` at the positions given (JSON-encoded into the extractor). */
const extractor = (odd: Record<number, string>) => `async function extract(doc) {
  const items = Array.from({ length: 300 }, (_, i) => "Kettle model " + i + " with a two litre tank");
  const odd = ${JSON.stringify(odd)};
  for (const [i, s] of Object.entries(odd)) items[Number(i)] = s;
  items[7] = doc.querySelector(".who").textContent.trim();
  return { items };
}`;

const isPii = (r: LlmRequestLog) => r.messages.some((m) => m.role === "system" && m.content.includes("personally identifiable information"));
const userText = (r: LlmRequestLog) => r.messages.find((m) => m.role === "user")!.content;
/** The fake server's token count (test/llm/fake-llm.ts: a token per 4 characters, at least 1). */
const tokensOf = (r: LlmRequestLog, answer: string) => Math.max(1, Math.ceil(r.messages.map((m) => m.content).join("\n").length / 4)) + Math.max(1, Math.ceil(answer.length / 4));

/** Scrapes with `odd` strings in the json; the json's redaction reads (the PII reads after the markdown's) and their tokens. */
async function run(path: string, odd: Record<number, string>) {
  site.set(path, PAGE);
  llm.reset();
  const json: { calls: number; tokens: number } = { calls: 0, tokens: 0 };
  let written = false;
  llm.respond = (req) => {
    if (isCodegen(req)) {
      written = true;
      return { content: extractor(odd) };
    }
    const spans = userText(req).includes("Ada Lovelace") ? [{ text: "Ada Lovelace", type: "PERSON" }] : [];
    const content = JSON.stringify({ spans });
    // Before the extractor is written: the markdown's read and the outline's; after it (it asks no model), the json's.
    if (isPii(req) && written) {
      json.calls++;
      json.tokens += tokensOf(req, content);
    }
    return { content };
  };
  const res = await h.request("/v2/scrape", {
    method: "POST",
    json: { url: `${site.url}${path}`, formats: [{ type: "deterministicJson", schema: SCHEMA }], maxAge: 0, redactPII: { mode: "accurate" } },
  });
  const body = (await res.json()) as any;
  return { status: res.status, body, json };
}

describe("redaction of a json value under one budget", () => {
  test("a string holding the separator is read alone, the other 299 together: 2 reads within the budget", async () => {
    const odd = "first line\n\u241e\nsecond line";
    const r = await run("/sep", { 100: odd });
    expect(r.status).toBe(200);
    const items = r.body.data.json.items as string[];
    expect(items).toHaveLength(300);
    expect(items[7]).toBe("<PERSON>");
    expect(items[100]).toBe(odd);
    expect(items[8]).toBe("Kettle model 8 with a two litre tank");
    expect(JSON.stringify(r.body)).not.toContain("Lovelace");
    console.log(`separator in one of 300 strings: the json's redaction took ${r.json.calls} model reads, ${r.json.tokens} tokens (budget ${BUDGET})`);
    expect(r.json.calls).toBe(2);
    expect(r.json.tokens).toBeLessThanOrEqual(BUDGET);
  }, 60_000);

  test("reads the budget cannot hold fail the scrape with LLM_TOKEN_BUDGET_EXCEEDED; nothing is returned unredacted", async () => {
    // Sixty strings that must each be read alone (about 440 tokens a read): more than 8,000 tokens.
    const odd = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [200 + i, `note ${i}\n\u241e\nby Ada Lovelace`]));
    const r = await run("/spent", odd);
    console.log(`60 strings read alone: the json's redaction took ${r.json.calls} model reads, ${r.json.tokens} tokens, then answered ${r.status} ${r.body.code}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("LLM_TOKEN_BUDGET_EXCEEDED");
    expect(r.body.error).toContain(`(${BUDGET})`);
    expect(JSON.stringify(r.body)).not.toContain("Lovelace");
    expect(r.json.tokens).toBeLessThanOrEqual(BUDGET);
    expect(r.json.calls).toBeLessThan(60);
  }, 60_000);
});
