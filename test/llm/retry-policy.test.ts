/**
 * The wait before an LLM call is retried (src/llm/retry.ts), with a fixed random source: the provider's Retry-After
 * within the cap and the deadline, else jittered backoff; never without a policy, after a timeout or a spent quota.
 */
import { expect, test } from "bun:test";
import { llmHttpError, LlmRateLimitedError, LlmTimeoutError, LlmUnavailableError } from "../../src/llm/errors.ts";
import { JOB_LLM_RETRY, retryDelayMs } from "../../src/llm/retry.ts";

test("retry waits: Retry-After within the cap and the deadline, else none; never a timeout or a spent quota", () => {
  const p = { name: "ollama", address: "http://127.0.0.1:11434" };
  const o = { now: 0, deadline: 120_000, random: () => 0.5 };
  expect(retryDelayMs(new LlmRateLimitedError(p, "slow down", undefined, 5), 1, JOB_LLM_RETRY, o)).toBe(5_000);
  expect(retryDelayMs(new LlmRateLimitedError(p, "slow down", undefined, 61), 1, JOB_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(new LlmRateLimitedError(p, "quota", undefined, 5, false), 1, JOB_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(new LlmUnavailableError(p, "busy"), 3, JOB_LLM_RETRY, o)).toBe(2_000);
  expect(retryDelayMs(new LlmUnavailableError(p, "busy"), 4, JOB_LLM_RETRY, o)).toBeUndefined();
  expect(retryDelayMs(new LlmUnavailableError(p, "busy"), 1, undefined, o)).toBeUndefined();
  expect(retryDelayMs(new LlmUnavailableError(p, "busy", undefined, 30), 1, JOB_LLM_RETRY, { ...o, deadline: 30_500 })).toBeUndefined();
  expect(retryDelayMs(new LlmTimeoutError(p, 1000), 1, JOB_LLM_RETRY, o)).toBeUndefined();
});

test("a provider's 400, 401 or 404 (context too long, a bad key, an unknown model) is not retried; a 500 or 503 is", () => {
  const p = { name: "openai", address: "http://127.0.0.1:8000" };
  const o = { now: 0, deadline: 120_000, random: () => 0.5 };
  for (const status of [400, 401, 404, 422]) {
    const err = llmHttpError(p, status, `HTTP ${status}: no`);
    expect({ status, code: err.code, retryable: err.retryable }).toEqual({ status, code: "LLM_UNAVAILABLE", retryable: false });
    expect(retryDelayMs(err, 1, JOB_LLM_RETRY, o)).toBeUndefined();
  }
  for (const status of [500, 502, 503]) expect(retryDelayMs(llmHttpError(p, status, `HTTP ${status}: busy`), 1, JOB_LLM_RETRY, o)).toBeGreaterThan(0);
});
