/**
 * Schedules in words (monitor/schedule.ts, docs/monitor.md "Schedules"): what is accepted becomes cron; what is not
 * is a 400 whose message names exactly the forms that are accepted (no "every N days": cron cannot repeat that
 * across month ends).
 */
import { describe, expect, test } from "bun:test";
import { BadRequestError } from "../../src/errors.ts";
import { cronFromText, normalizeSchedule, runsPerMonth } from "../../src/monitor/schedule.ts";

const refusal = (text: string): string => {
  try {
    normalizeSchedule({ text });
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestError);
    return (err as Error).message;
  }
  throw new Error(`${text} was accepted`);
};

describe("schedule text", () => {
  test("day steps: every day and every 1 day are daily; every 2 days is refused", () => {
    expect(cronFromText("every day")).toBe("0 0 * * *");
    expect(cronFromText("every 1 day")).toBe("0 0 * * *");
    expect(cronFromText("every 2 days")).toBeUndefined();
    expect(cronFromText("every 6 hours")).toBe("0 */6 * * *");
  });

  test("the refusal names only forms that are accepted, with their limits", () => {
    const full = refusal("every 2 days");
    expect(full).toContain('schedule.text "every 2 days" is not understood');
    const message = full.slice(full.indexOf("is not understood"));
    expect(message).not.toMatch(/days/);
    expect(message).toContain('"every N minutes" (N dividing 60)');
    expect(message).toContain('"every N hours" (N dividing 24)');
    expect(message).toContain('"every day"');
    // Every example the message gives is itself accepted.
    for (const example of [...message.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)) {
      const concrete = example.replace("every N minutes", "every 15 minutes").replace("every N hours", "every 6 hours");
      expect([example, cronFromText(concrete)]).toEqual([example, expect.any(String)]);
    }
  });
});

describe("runs per month (estimatedCreditsPerMonth)", () => {
  const at = (iso: string) => new Date(iso);
  const utc = (cron: string) => ({ cron, timezone: "UTC" });
  test("frequent schedules: their rate over a 30-day month", () => {
    expect(runsPerMonth(utc("0 * * * *"), at("2026-11-05T00:30:00Z"))).toBeCloseTo(720, 6);
    expect(runsPerMonth(utc("0 9 * * *"), at("2026-11-05T00:30:00Z"))).toBeCloseTo(30, 6);
  });

  test("schedules rarer than monthly count at their average over a year, whatever the day asked", () => {
    // On the 31st: November has none, so the next 30 days alone said 0.
    expect(runsPerMonth(utc("0 9 31 * *"), at("2026-11-05T00:00:00Z"))).toBeCloseTo((7 * 30) / 365, 6);
    // Quarterly: 0 in two months of three before.
    expect(runsPerMonth(utc("0 9 1 1,4,7,10 *"), at("2026-11-05T00:00:00Z"))).toBeCloseTo((4 * 30) / 365, 6);
    // On the 1st: the same from any day (it was 1 or 2 by the day asked).
    expect(runsPerMonth(utc("0 9 1 * *"), at("2027-01-31T10:00:00Z"))).toBeCloseTo(runsPerMonth(utc("0 9 1 * *"), at("2026-11-23T00:00:00Z")), 6);
  });
});
