/**
 * Schedules in words (monitor/schedule.ts, docs/monitor.md "Schedules"): what is accepted becomes cron; what is not
 * is a 400 whose message names exactly the forms that are accepted (no "every N days": cron cannot repeat that
 * across month ends).
 */
import { describe, expect, test } from "bun:test";
import { BadRequestError } from "../../src/errors.ts";
import { cronFromText, normalizeSchedule } from "../../src/monitor/schedule.ts";

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
