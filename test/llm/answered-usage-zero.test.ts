/**
 * A later turn of an operation the server has answered is sent whatever the server-down memo says (llm/call.ts), also
 * when the server reported a usage of 0 tokens: "answered" is the operation's own flag, not `tokens > 0`. With the
 * old test, a job page's repair turn after an answer counted at 0 tokens was a "first turn" and was turned away by
 * the memo another page's refused connection had armed meanwhile.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLlmProviderRegistry } from "../../plugins/index.ts";
import { LlmServerDownError, LlmUnavailableError } from "../../src/llm/errors.ts";
import { createLlmClient } from "../../src/llm/registry.ts";
import { JOB_PAGE_LLM_RETRY } from "../../src/llm/retry.ts";
import { ServerDownMemo } from "../../src/llm/server-down.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

let llm: FakeLlm;
beforeAll(() => {
  llm = startFakeLlm();
});
afterAll(() => llm.stop());

const ENDPOINT = { name: "ollama", address: "http://127.0.0.1:1", model: "test-model" };
const refused = () => new LlmUnavailableError(ENDPOINT, "ECONNREFUSED: Unable to connect.", Object.assign(new TypeError("Unable to connect."), { code: "ECONNREFUSED" }));

test("a job page's repair turn after an answer that reported 0 tokens is sent, though another page's refusal armed the memo", async () => {
  const memo = new ServerDownMemo(1_000, () => 0); // a stopped clock: armed until an answer, whatever the machine's speed
  const config = { llmProvider: "auto", ollamaBaseUrl: llm.url, ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "test-model", llmContextTokens: 8192 } as const;
  const client = createLlmClient(config, createLlmProviderRegistry(), fetch, memo)!;
  llm.reset();
  llm.script([{ content: "not json", usage: { prompt: 0, completion: 0 } }, { content: '{"ok":true}', usage: { prompt: 0, completion: 0 } }]);
  const call = { deadline: Date.now() + 20_000, tokenBudget: 100_000, retry: JOB_PAGE_LLM_RETRY };
  const spent = { tokens: 0 };

  // The operation's first turn is answered (usage 0).
  const first = await client.chat([{ role: "user", content: "first turn" }], "json", call, spent);
  expect(first.content).toBe("not json");
  expect(spent.tokens).toBe(0);
  // Another page's call finds the server unreachable: the memo is armed.
  memo.noteFailure(refused());
  expect(memo.current()).toBeDefined();
  // This operation's next turn goes out all the same.
  const repair = await client.chat([{ role: "user", content: "repair turn" }], "json", call, spent);
  expect(repair.content).toBe('{"ok":true}');
  expect(llm.chats()).toHaveLength(2);

  // A new operation's first turn (nothing answered) is still turned away, as before (the answer cleared the memo).
  memo.noteFailure(refused());
  await expect(client.chat([{ role: "user", content: "another page" }], "json", call, { tokens: 0 })).rejects.toBeInstanceOf(LlmServerDownError);
  expect(llm.chats()).toHaveLength(2);
});
