/**
 * A model server that cannot be reached, the parts (llm/server-down.ts, llm/retry.ts, llm/render-call.ts): what
 * counts as unreachable, which policy retries what in the call, the memo's life (injected length and clock) and where
 * it applies. Through the API: server-down-jobs.test.ts.
 */
import { expect, test } from "bun:test";
import { LlmServerDownError, llmHttpError, LlmUnavailableError } from "../../src/llm/errors.ts";
import { JOB_LLM_RETRY, JOB_PAGE_LLM_RETRY, retriedInCall, retryDelayMs, SYNC_LLM_RETRY } from "../../src/llm/retry.ts";
import { llmCallForRun } from "../../src/llm/render-call.ts";
import { DOWN_MEMO_MS, isUnreachable, jobRetryFloorMs, ServerDownMemo } from "../../src/llm/server-down.ts";
import { createLlmClient } from "../../src/llm/registry.ts";
import { createLlmProviderRegistry } from "../../plugins/index.ts";

const ENDPOINT = { name: "ollama", address: "http://127.0.0.1:11434", model: "m" };
const refused = () => new LlmUnavailableError(ENDPOINT, "ECONNREFUSED: Unable to connect.", Object.assign(new TypeError("Unable to connect."), { code: "ECONNREFUSED" }));

test("unreachable: a refused connection or an unresolved name, however deep the cause; not a reset, a 503 or a timeout", () => {
  expect(isUnreachable(refused())).toBe(true);
  for (const code of ["ConnectionRefused", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]) {
    expect(isUnreachable(new LlmUnavailableError(ENDPOINT, "x", new Error("fetch failed", { cause: Object.assign(new Error("x"), { code }) })))).toBe(true);
  }
  expect(isUnreachable(new LlmUnavailableError(ENDPOINT, "reset", Object.assign(new Error("reset"), { code: "ECONNRESET" })))).toBe(false);
  expect(isUnreachable(llmHttpError(ENDPOINT, 503, "HTTP 503: server busy"))).toBe(false);
  expect(isUnreachable(new Error("The operation timed out."))).toBe(false);
});

test("retries: a page its job retries leaves a refused connection to the job; a 503 and a reset are retried in the call", () => {
  const o = { now: 0, deadline: 60_000, random: () => 0.5 };
  const busy = llmHttpError(ENDPOINT, 503, "HTTP 503: server busy");
  const reset = new LlmUnavailableError(ENDPOINT, "reset", Object.assign(new Error("reset"), { code: "ECONNRESET" }));
  const memo = new LlmServerDownError(ENDPOINT, "ECONNREFUSED", 10, DOWN_MEMO_MS, refused());
  expect(retryDelayMs(refused(), 1, JOB_PAGE_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(busy, 1, JOB_PAGE_LLM_RETRY, o)).toBe(250);
  expect(retryDelayMs(reset, 1, JOB_PAGE_LLM_RETRY, o)).toBe(250);
  // A lone scrape (and a page's last attempt) retries a refusal itself, as before.
  expect(retryDelayMs(refused(), 1, SYNC_LLM_RETRY, o)).toBe(250);
  // A call the memo turned away: failed at once, synchronous or page; an extract or agent job's retry waits.
  expect(memo.code).toBe("LLM_UNAVAILABLE");
  expect(memo.retryable).toBe(true);
  expect(retryDelayMs(memo, 1, SYNC_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(memo, 1, JOB_PAGE_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(memo, 1, JOB_LLM_RETRY, o)).toBe(500);
});

test("the memo: armed by a refusal for its length on a monotonic clock, never by a call it turned away, cleared by an answer", () => {
  let t = 0;
  const m = new ServerDownMemo(100, () => t);
  m.noteFailure(llmHttpError(ENDPOINT, 503, "HTTP 503: busy"));
  expect(m.current()).toBeUndefined();
  t = 1_000;
  m.noteFailure(refused());
  t = 1_040;
  expect(m.current()).toMatchObject({ ageMs: 40, reason: "Unable to connect." });
  // Steady traffic turned away must not keep it armed.
  t = 1_050;
  m.noteFailure(new LlmServerDownError(ENDPOINT, "x", 50, 100, refused()));
  t = 1_100;
  expect(m.current()).toBeUndefined();
  m.noteFailure(refused());
  m.noteAnswer();
  expect(m.current()).toBeUndefined();
  // Never longer than the job's wait before a page's retry.
  expect(new ServerDownMemo(60_000).memoMs).toBe(DOWN_MEMO_MS);
  expect(new ServerDownMemo().memoMs).toBe(DOWN_MEMO_MS);
});

test("a page's job retry waits past the memo after an unreachable server; not after a 503", () => {
  expect(jobRetryFloorMs(refused())).toBe(DOWN_MEMO_MS);
  expect(jobRetryFloorMs(new LlmServerDownError(ENDPOINT, "x", 10, DOWN_MEMO_MS, refused()))).toBe(DOWN_MEMO_MS);
  expect(jobRetryFloorMs(llmHttpError(ENDPOINT, 503, "HTTP 503: busy"))).toBe(0);
});

test("policies: a job page's run gets JOB_PAGE_LLM_RETRY; others the default; a kept failure gets SYNC back", () => {
  const limits = { llmTimeoutMs: 10_000, llmTokenBudget: 1_000 };
  const run = { deadline: Date.now() + 10_000 };
  expect(llmCallForRun({ ...run, retriedByJob: true }, limits).retry).toBe(JOB_PAGE_LLM_RETRY);
  expect(llmCallForRun(run, limits).retry).toBeUndefined();
  expect(retriedInCall(llmCallForRun({ ...run, retriedByJob: true }, limits)).retry).toBe(SYNC_LLM_RETRY);
  expect(retriedInCall({ retry: JOB_LLM_RETRY }).retry).toBe(JOB_LLM_RETRY);
});

test("the memo turns away only a job page's first turn; not other calls, a turn's own retries, nor a later turn", async () => {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const address = `http://127.0.0.1:${s.port}`;
  s.stop(true);
  let attempts = 0;
  const counting = (async (input: string | URL | Request, init?: RequestInit) => {
    attempts++;
    return fetch(input, init);
  }) as typeof fetch;
  const config = { llmProvider: "auto", ollamaBaseUrl: address, ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "m", llmContextTokens: 8192 } as const;
  let t = 0;
  const client = createLlmClient(config, createLlmProviderRegistry(), counting, new ServerDownMemo(100, () => t))!;
  const call = (retry?: typeof SYNC_LLM_RETRY) => ({ deadline: Date.now() + 20_000, tokenBudget: 100_000, ...(retry ? { retry } : {}) });
  const ask = (tokens: number, retry?: typeof SYNC_LLM_RETRY) => client.chat([{ role: "user", content: "Hello" }], undefined, call(retry), { tokens });

  // A lone call: its own two retries are sent.
  await expect(ask(0)).rejects.toThrow("ECONNREFUSED");
  expect(attempts).toBe(3);
  // Another lone call within the memo: sent all the same (it was turned away with 0 attempts).
  await expect(ask(0)).rejects.toThrow("ECONNREFUSED");
  expect(attempts).toBe(6);
  // A job page's first turn within the memo: not sent.
  await expect(ask(0, JOB_PAGE_LLM_RETRY)).rejects.toBeInstanceOf(LlmServerDownError);
  expect(attempts).toBe(6);
  // A job page's later turn of an operation answered: sent once, the refusal left to the job.
  await expect(ask(10, JOB_PAGE_LLM_RETRY)).rejects.toThrow("ECONNREFUSED");
  expect(attempts).toBe(7);
  // Past the memo, a job page's first turn is sent again.
  t += 100;
  await expect(ask(0, JOB_PAGE_LLM_RETRY)).rejects.toThrow("ECONNREFUSED");
  expect(attempts).toBe(8);
});
