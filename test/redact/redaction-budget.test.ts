/**
 * A redaction drawing on a format's token budget (redact/redactor.ts `RedactionBudget`), with the real redactor and
 * the fake LLM: once the budget cannot hold the redaction's read, the error quotes the format's whole budget and
 * all it spent. Before, it quoted what was left and the redaction's own spending: "The LLM token budget of this
 * request (100) is spent (0 used)." for a format budget of 8,000 with 7,900 spent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLlmProviderRegistry } from "../../plugins/index.ts";
import { CrawlboxError } from "../../src/errors.ts";
import { createLlmClient } from "../../src/llm/registry.ts";
import { createRedactor, piiOptions } from "../../src/redact/redactor.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

let llm: FakeLlm;
beforeAll(() => {
  llm = startFakeLlm();
});
afterAll(() => llm.stop());

const config = { llmProvider: "auto", ollamaBaseUrl: "", ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "test-model", llmContextTokens: 8192 } as const;
const run = () => ({ deadline: Date.now() + 20_000, recordTokens: () => {} });

test("a format's budget spent: the redaction's error names the format's budget (8000) and spending (7900 used)", async () => {
  const redactor = createRedactor(createLlmClient({ ...config, ollamaBaseUrl: llm.url }, createLlmProviderRegistry()), { llmTimeoutMs: 10_000, llmTokenBudget: 100_000 });
  llm.reset();
  llm.respond = () => ({ content: JSON.stringify({ spans: [] }) });
  const budget = { call: { deadline: Date.now() + 10_000, tokenBudget: 8_000 }, spent: { tokens: 7_900 } };
  const err = await redactor.redact("Ada Lovelace wrote to Charles Babbage.", piiOptions(true)!, run(), budget).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrawlboxError);
  expect((err as CrawlboxError).code).toBe("LLM_TOKEN_BUDGET_EXCEEDED");
  expect((err as CrawlboxError).message).toBe("The LLM token budget of this request (8000) is spent (7900 used).");
  expect(llm.chats()).toHaveLength(0);
  expect(budget.spent.tokens).toBe(7_900);

  // With room for one read, the read is counted in the format's spending, and the next one's error counts it too.
  const roomy = { call: { deadline: Date.now() + 10_000, tokenBudget: 8_000 }, spent: { tokens: 7_000 } };
  expect(await redactor.redact("Ada Lovelace wrote.", piiOptions(true)!, run(), roomy)).toBe("Ada Lovelace wrote.");
  expect(llm.chats()).toHaveLength(1);
  const afterOne = roomy.spent.tokens;
  expect(afterOne).toBeGreaterThan(7_000);
  roomy.call.tokenBudget = afterOne + 50;
  const second = await redactor.redact("Charles Babbage replied.", piiOptions(true)!, run(), roomy).catch((e: unknown) => e);
  expect((second as CrawlboxError).message).toBe(`The LLM token budget of this request (${afterOne + 50}) is spent (${afterOne} used).`);
});
