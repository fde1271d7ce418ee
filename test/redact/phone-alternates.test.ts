/**
 * Phone numbers with an alternate ending (redact/detectors.ts): `+49 30 1234567/8` (German for …567 or …568) was not
 * found at all (the `/` after the number ruled every candidate out), so the whole number stayed; `030 1234567-0`
 * (a switchboard's `-0`) was found. Both are redacted whole now, without the price, date or version that follows;
 * and a price with a decimal comma right after a phone (`030 1234567 2,99 €`) no longer loses its first digits to it.
 * An ending as long as the last group (`030 12 34 56/57`) made the whole phone visible (it was `<PHONE> 56/57` before
 * endings were taken, as an ending too long still is), and a list written without spaces
 * (`030 1234 56,030 1234 57`) lost its first phone's last group to the price rule. When the number without a price's
 * group is too short to be a phone (`030 123 4,5`), the price rule left the whole number visible; it takes the group
 * again, as before the rule. Before a comma that another phone follows, a number that is a phone only without its last
 * group (`+1 212 555 0199 1,030 1234567`: `+1` and 11 digits) was left wholly visible; and an ending too long to be
 * an alternate (`030 1234567/890`) left the number before it visible, as the docs say it is not.
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

  test("an ending followed by more, or a number inside a path, is not taken: nothing is", () => {
    for (const text of ["Tel 030 1234567/8-9", "see /docs/030 1234567/8", "see /docs/030 1234567/890"]) expect(found(text)).toEqual([]);
  });
});

describe("an ending as long as the last group, or longer", () => {
  test("as long as the last group: the whole phone when the number before that group is one", async () => {
    for (const phone of ["030 12 34 56/57", "+49 30 1234 56/78", "+49 30 12345 6/7", "0171 123 45 67/68"]) {
      expect(found(`Tel ${phone} now`)).toEqual([["PHONE", phone]]);
      expect(await fast(`Tel ${phone}`)).toBe("Tel <PHONE>");
    }
    expect(await fast("Tel +49 30 1234 56/78 ab 2,99 €")).toBe("Tel <PHONE> ab 2,99 €");
  });

  test("longer than the last group: the number before it, never less than a pattern without endings found", async () => {
    expect(await fast("Tel 030 1234 56 7/89")).toBe("Tel <PHONE> 7/89");
    expect(await fast("Tel +49 30 1234 56 7/89 now")).toBe("Tel <PHONE> 7/89 now");
    // A candidate that is no phone at all does not hide one inside it.
    expect(found("Ref 12 030 1234567/8")).toEqual([["PHONE", "030 1234567/8"]]);
  });
});

describe("a list of phones written without spaces keeps each whole", () => {
  test("a comma followed by another phone is not a decimal comma", async () => {
    expect(await fast("030 1234 56,030 1234 57")).toBe("<PHONE>,<PHONE>");
    expect(await fast("Tel 030 123 45 67,0800 1234567")).toBe("Tel <PHONE>,<PHONE>");
    expect(await fast("030 1234 56,+49 30 1234567")).toBe("<PHONE>,<PHONE>");
    expect(await fast("030 1234 56,555-010-4477")).toBe("<PHONE>,<PHONE>");
  });

  test("a price after a phone keeps its digits, also with a thousands comma or a leading 0", async () => {
    for (const price of ["2,99 €", "0,14 €/Min.", "2,05 €", "1,050 €", "1,299 USD"]) expect(await fast(`Tel 030 1234567 ${price}`)).toBe(`Tel <PHONE> ${price}`);
  });
});

describe("a last group before a decimal comma, when the number without it is no phone", () => {
  test("the phone keeps its group, as before the price rule: never less than it found", async () => {
    expect(await fast("030 123 4,5")).toBe("<PHONE>,5");
    expect(await fast("01 23 45 67,1")).toBe("<PHONE>,1");
    // Without its group no candidate is left at all (4 characters), and +1 needs its 10 digits.
    expect(found("Tel 0123 456,7")).toEqual([["PHONE", "0123 456"]]);
    expect(found("+1 555 123 456 7,5")).toEqual([["PHONE", "+1 555 123 456 7"]]);
  });

  test("a number that is a phone without the group still leaves it to the price", async () => {
    expect(await fast("Tel 030 123 45 6,50 €")).toBe("Tel <PHONE> 6,50 €");
    expect(await fast("030 123 4,030 123 5")).toBe("<PHONE>,<PHONE>");
    expect(found("Order #030 123 4,5")).toEqual([]);
  });
});

describe("an ending of three digits or more: the number before the slash is taken, the ending stays", () => {
  test("a phone before a long ending is redacted, as the docs say", async () => {
    expect(await fast("+49 30 1234567/890")).toBe("<PHONE>/890");
    expect(await fast("030 1234567/890")).toBe("<PHONE>/890");
    expect(await fast("Tel. 030 1234567/890")).toBe("Tel. <PHONE>/890");
    expect(await fast("030 1234 56/789")).toBe("<PHONE>/789");
    expect(await fast("Tel 030 1234567/2024 now")).toBe("Tel <PHONE>/2024 now");
  });

  test("dates, fractions and file numbers stay, and a number that is no phone with its last group loses only that", async () => {
    for (const text of ["12/2024", "1/2", "3/4 cup", "Az. 12/345", "06 12 2024/2025", "01.02.2024/123", "2024-01-15/2016", "1 234 567/890", "Order #030 1234567/890"]) {
      expect(found(text)).toEqual([]);
    }
    expect(await fast("+1 212 555 0199 03/48802")).toBe("<PHONE> 03/48802");
  });
});

describe("a comma another phone follows, after a number that is a phone only without its last group", () => {
  test("the number without that group is taken, as before the price rule", async () => {
    expect(await fast("+1 212 555 0199 1,030 1234567")).toBe("<PHONE> 1,<PHONE>");
    expect(await fast("Tel +1 947-3626162 4,053 8759")).toBe("Tel <PHONE> 4,<PHONE>");
    expect(await fast("(052) 5600133.1695 85,048 9967")).toBe("<PHONE> 85,<PHONE>");
    // A whole that is a phone is still taken whole.
    expect(await fast("030 1234 56,030 1234 57")).toBe("<PHONE>,<PHONE>");
  });
});
