/**
 * The retry policy's delays (reliability.md B5): exponential backoff with ±25 % jitter and a hard cap, and
 * `Retry-After` parsed and capped.
 */
import { describe, expect, test } from "bun:test";
import { backoffMs, RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS, retryAfterDelayMs, retryAfterMs } from "../../src/jobs/retry-policy.ts";
import { retryAfterSeconds } from "../../src/llm/errors.ts";

describe("backoff", () => {
  test("doubles from the base delay, within ±25 % jitter", () => {
    expect(backoffMs(1, RETRY_BASE_DELAY_MS, () => 0.5)).toBe(RETRY_BASE_DELAY_MS);
    expect(backoffMs(2, RETRY_BASE_DELAY_MS, () => 0.5)).toBe(2 * RETRY_BASE_DELAY_MS);
    expect(backoffMs(3, RETRY_BASE_DELAY_MS, () => 0)).toBe(0.75 * 4 * RETRY_BASE_DELAY_MS);
    expect(backoffMs(3, RETRY_BASE_DELAY_MS, () => 1)).toBe(1.25 * 4 * RETRY_BASE_DELAY_MS);
  });

  test("never waits longer than the cap, whatever the jitter (it was 75 s at the top of the jitter)", () => {
    for (const attempt of [7, 10, 40]) {
      expect(backoffMs(attempt, RETRY_BASE_DELAY_MS, () => 1)).toBe(RETRY_MAX_DELAY_MS);
      expect(backoffMs(attempt, RETRY_BASE_DELAY_MS, () => 0)).toBeLessThanOrEqual(RETRY_MAX_DELAY_MS);
    }
  });
});

describe("Retry-After", () => {
  test("seconds or an HTTP date, at least half the base delay, at most the cap", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7_000);
    expect(retryAfterMs("0", now)).toBe(RETRY_BASE_DELAY_MS / 2);
    expect(retryAfterMs("86400", now)).toBe(RETRY_MAX_DELAY_MS);
    expect(retryAfterMs("Sun, 22 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  test("only delay-seconds (digits) or an HTTP-date: what Number and Date.parse would also read is refused", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    for (const notOne of ["1.5", "-5", "0x10", "1e3", "Infinity", "1 2", "2026-11-22", " ", "soon"]) {
      expect([notOne, retryAfterDelayMs(notOne, now)]).toEqual([notOne, undefined]);
      expect([notOne, retryAfterMs(notOne, now)]).toEqual([notOne, undefined]);
      expect([notOne, retryAfterSeconds(notOne, now)]).toEqual([notOne, undefined]);
    }
    // The three HTTP-date forms (RFC 9110 §5.6.7), and surrounding blanks.
    for (const date of ["Sun, 22 Nov 2026 10:00:30 GMT", "Sunday, 22-Nov-26 10:00:30 GMT", "Sun Nov 22 10:00:30 2026"]) {
      expect(retryAfterDelayMs(date, now)).toBe(30_000);
      expect(retryAfterSeconds(date, now)).toBe(30);
    }
    expect(retryAfterDelayMs(" 7 ", now)).toBe(7_000);
  });

  test("the page, webhook and LLM readers agree, each with its own bounds", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    const huge = "9".repeat(400);
    expect(retryAfterDelayMs(huge, now)).toBe(Infinity);
    expect(retryAfterMs(huge, now)).toBe(RETRY_MAX_DELAY_MS);
    expect(retryAfterSeconds(huge, now)).toBe(86_400);
    // A date in the past is "now": the least wait each allows.
    expect(retryAfterDelayMs("Sun, 22 Nov 2026 09:59:00 GMT", now)).toBe(-60_000);
    expect(retryAfterMs("Sun, 22 Nov 2026 09:59:00 GMT", now)).toBe(RETRY_BASE_DELAY_MS / 2);
    expect(retryAfterSeconds("Sun, 22 Nov 2026 09:59:00 GMT", now)).toBe(0);
  });
});
