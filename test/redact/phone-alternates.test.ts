/**
 * Phone numbers with an alternate ending (redact/detectors.ts): `+49 30 1234567/8` (German for …567 or …568) was not
 * found at all (the `/` after the number ruled every candidate out), so the whole number stayed; `030 1234567-0`
 * (a switchboard's `-0`) was found. Both are redacted whole now, without the price, date or version that follows;
 * and a price with a decimal comma right after a phone (`030 1234567 2,99 €`) no longer loses its first digits to it.
 */
import { describe, expect, test } from "bun:test";
import { findPatternSpans, PII_ENTITIES, type PiiEntity } from "../../src/redact/detectors.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

const ALL = new Set<PiiEntity>(PII_ENTITIES);
const found = (text: string) =>
  findPatternSpans(text, ALL)
    .sort((a, b) => a.start - b.start)
    .map((s) => [s.type, text.slice(s.start, s.end)]);
const fast = (text: string) => patternRedactor.redact(text, piiOptions({ mode: "fast" })!, { deadline: Date.now() + 10_000 });

describe("alternate endings", () => {
  test("a slash and one or two alternate digits are part of the phone", () => {
    for (const phone of ["+49 30 1234567/8", "030 1234567/8", "0171 1234567/89", "+49 (0)30 1234567/8", "+44 20 7946 0958/9", "555-010-4477/8"]) {
      expect(found(`Tel ${phone} now`)).toEqual([["PHONE", phone]]);
      expect(found(`${phone}.`)).toEqual([["PHONE", phone]]);
    }
  });

  test("a switchboard's -0 and an extension were, and stay, part of the phone", () => {
    for (const phone of ["030 1234567-0", "+49 30 1234567-0", "030 1234567-11"]) expect(found(`Tel ${phone} now`)).toEqual([["PHONE", phone]]);
  });

  test("what follows stays: a price, a date, a version", async () => {
    const cases: [string, string][] = [
      ["Tel +49 30 1234567/8 ab 2,99 €", "Tel <PHONE> ab 2,99 €"],
      ["Tel +49 30 1234567/8 2,99 €/Min.", "Tel <PHONE> 2,99 €/Min."],
      ["Tel 030 1234567-0, am 01.02.2024", "Tel <PHONE>, am 01.02.2024"],
      ["Tel +49 30 1234567/8 01.02.2024", "Tel <PHONE> 01.02.2024"],
      ["Tel 030 1234567/8 v1.2.3", "Tel <PHONE> v1.2.3"],
      ["Tel 030 1234567/8 (Zentrale)", "Tel <PHONE> (Zentrale)"],
      ["[Tel](tel:+49%2030%201234567/8)", "[Tel](tel:<PHONE>)"],
    ];
    for (const [text, want] of cases) expect(await fast(text)).toBe(want);
  });

  test("a price with a decimal comma right after a phone keeps its digits", async () => {
    expect(await fast("Tel 030 1234567 2,99 €")).toBe("Tel <PHONE> 2,99 €");
    expect(await fast("Hotline +49 30 1234567 0,14 €/Min.")).toBe("Hotline <PHONE> 0,14 €/Min.");
    // A list written without spaces keeps both numbers whole.
    expect(found("Tel 030 1234567,030 7654321")).toEqual([["PHONE", "030 1234567"], ["PHONE", "030 7654321"]]);
  });
});

describe("not alternate endings", () => {
  test("fractions, pairs of figures, dates and long endings are not made phones", () => {
    for (const text of ["5/8 of 030", "score 12 34/56", "Tel 030 12 34/56", "06 12 2024/25", "from 2024-01-15/16", "Order #030 1234567/8", "SKU 0123-456-789/1", "1 234 567/8", "+1 234 567/8 EUR", "12.03.2024/25"]) {
      expect(found(text)).toEqual([]);
    }
  });

  test("an ending of three digits or more, or one followed by more, is not taken: nothing is", () => {
    for (const text of ["Tel 030 1234567/123", "Tel 030 1234567/2024", "Tel 030 1234567/8-9", "see /docs/030 1234567/8"]) expect(found(text)).toEqual([]);
  });
});
