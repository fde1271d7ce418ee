/**
 * What percent-escaped PII (redact/percent-escapes.ts) must reach beyond a match that holds an escape:
 * - a secret whose label is escaped and whose value is not (`?q=password%3Dhunter22`) was dropped from the decoded
 *   copy's matches (they had to cover an escape) and never found as written: it came back unchanged;
 * - an escaped address near the 2,048-character cut of a long run (each escape's stretch was cut 2,048 characters
 *   after the first escape of the run, the ones after it skipped) was left visible;
 * - an address escaped twice (`%2540`, a URL in a redirect's `?q=`) was left visible;
 * - the finder ran once per stretch: the model's 2,048 quotes prepared and searched for again in each of 18,316
 *   stretches of a 4 MB page (10 s), and the 100,000-span cap on quotes held per stretch, not per page.
 */
import { describe, expect, test } from "bun:test";
import { MAX_QUOTED_SPANS, spansOfQuotes } from "../../src/redact/apply.ts";
import { findPatternSpans, PII_ENTITIES, type PiiSpan } from "../../src/redact/detectors.ts";
import { findThroughEscapes } from "../../src/redact/percent-escapes.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

const fast = (text: string, style: "tag" | "mask" = "tag") => patternRedactor.redact(text, piiOptions({ mode: "fast", replaceStyle: style })!, { deadline: Date.now() + 20_000 });
const ALL = new Set(PII_ENTITIES);

describe("a decoded match is kept when the text as written does not give it", () => {
  test("a secret whose label is escaped and whose value is not", async () => {
    const cases: [string, string][] = [
      ["https://x.test/login?next=%2Fcb%3Faccess_token%3Dabc123def456ghi", "https://x.test/login?next=%2Fcb%3Faccess_token%3D<SECRET>"],
      ["?q=password%3Dhunter22", "?q=password%3D<SECRET>"],
      ["?api_key%3Dabc123def456", "?api_key%3D<SECRET>"],
      ["Authorization%3A%20Bearer%20abcdefghijklmnopqrstuvwxyz012345", "Authorization%3A%20Bearer%20<SECRET>"],
      ["[in](https://x.test/?q=password%3Dhunter22&page=2)", "[in](https://x.test/?q=password%3D<SECRET>)"],
    ];
    for (const [text, want] of cases) expect(await fast(text)).toBe(want);
    expect(await fast("?q=password%3Dhunter22", "mask")).toBe("?q=password%3D********");
    // The model's quote of the value likewise: as written, `%3Dhunter22` holds it glued to a letter, not as a word.
    const text = "[in](https://x.test/?q=password%3Dhunter22&page=2)";
    const spans = findThroughEscapes(text, (t) => spansOfQuotes(t, [{ text: "hunter22", type: "SECRET" }]));
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(["hunter22"]);
  });

  test("what the text as written gives is not taken twice, and prose after an escaped label stays", async () => {
    const text = "x%20jane@example.com y";
    const spans = findThroughEscapes(text, (t) => findPatternSpans(t, ALL));
    expect(spans).toEqual([]); // the address is found as written already
    for (const same of ["[f](https://x.test/?secret%3Dhappiness)", "[e](https://x.test/?token%3Dabc&x=1)", "[s](https://x.test/?q=our%20secret%3A%20happiness)"]) {
      expect(await fast(same)).toBe(same);
    }
  });
});

describe("stretches are not cut inside a match", () => {
  const labels = ["a", "b", "c"].map((c) => c.repeat(60)).join(".");

  test("an escaped address past 2,048 characters of a long run's first escape", async () => {
    const text = `[x](https://x.test/r?a=%41&${"p".repeat(1960)}&email=jane%40${labels}.example.com&z=1)`;
    expect(await fast(text)).toBe(`[x](https://x.test/r?a=%41&${"p".repeat(1960)}&email=<EMAIL>&z=1)`);
    const far = `[x](https://x.test/r?a=%41&${"p".repeat(6000)}&b=%42&${"q".repeat(3000)}&email=jane%40${labels}.example.com&z=1)`;
    expect(await fast(far)).toBe(far.replace(`jane%40${labels}.example.com`, "<EMAIL>"));
  });

  test("a run of megabytes is searched again near its escapes only, each character a bounded number of times", () => {
    const oneEscape = `x${"a".repeat(2_000_000)}%40${"b".repeat(2_000_000)}x`;
    let searched = 0;
    findThroughEscapes(oneEscape, (t) => ((searched += t.length), []));
    expect(searched).toBeLessThan(200_000);
    const manyEscapes = `${"abcdefgh%20".repeat(100_000)} ${"word ".repeat(100_000)}`;
    searched = 0;
    let calls = 0;
    findThroughEscapes(manyEscapes, (t) => ((searched += t.length), calls++, []));
    expect(searched).toBeLessThanOrEqual(2 * 1_100_000 + 200); // the run, as written and decoded: not the words after it
    expect(calls).toBeLessThanOrEqual(3);
  });
});

describe("escaped twice", () => {
  test("an address or a phone escaped twice is found and redacted as written; ordinary double escapes stay", async () => {
    const cases: [string, string][] = [
      ["/url?q=https%3A%2F%2Fx.test%2F%3Femail%3Djane%2540example.com", "/url?q=https%3A%2F%2Fx.test%2F%3Femail%3D<EMAIL>"],
      ["[r](https://www.google.com/url?q=https%3A%2F%2Fx.test%2F%3Femail%3Djane%2540example.com&sa=D)", "[r](https://www.google.com/url?q=https%3A%2F%2Fx.test%2F%3Femail%3D<EMAIL>&sa=D)"],
      ["[c](https://x.test/go?to=tel%3A%252B49%252030%25201234567&x=1)", "[c](https://x.test/go?to=tel%3A<PHONE>&x=1)"],
    ];
    for (const [text, want] of cases) expect(await fast(text)).toBe(want);
    for (const same of ["[u](https://x.test/?q=50%2525%20off)", "[v](https://x.test/?q=%252F%252Fpath%252Fto%252Ffile.pdf)", "[w](https://x.test/?d=2024%252F01%252F15%2520%252B0100)"]) {
      expect(await fast(same)).toBe(same);
    }
  });
});

describe("the finder runs once per copy, not once per stretch", () => {
  test("2,000 stretches: the finder is called at most three times, each quote prepared that many times", () => {
    const page = Array.from({ length: 2000 }, (_, i) => `[m](mailto:user${i}%40example.com) ${"lorem ipsum dolor ".repeat(12)}`).join("\n");
    const quotes = Array.from({ length: 200 }, (_, i) => ({ text: `Person Number${i}`, type: "PERSON" as const }));
    let calls = 0;
    let searched = 0;
    const spans = findThroughEscapes(page, (t) => ((calls++, (searched += t.length)), [...spansOfQuotes(t, quotes), ...findPatternSpans(t, ALL)]));
    expect(calls).toBeLessThanOrEqual(3); // was 2,000: one per stretch, each preparing the 200 quotes again
    expect(searched).toBeLessThanOrEqual(3 * page.length);
    expect(spans).toHaveLength(2000);
    expect(spans.every((s: PiiSpan) => page.slice(s.start, s.end).endsWith("%40example.com"))).toBe(true);
  });

  test("the cap on the spans of quotes holds for the page, not for each stretch", () => {
    const stretch = `${"jane%20doe,".repeat(500)} ${"lorem ".repeat(40)}`;
    const page = stretch.repeat(201); // 100,500 escaped occurrences in 201 stretches
    const spans = findThroughEscapes(page, (t) => spansOfQuotes(t, [{ text: "jane doe", type: "PERSON" }]));
    expect(spans.length).toBeLessThanOrEqual(MAX_QUOTED_SPANS); // was 100,500: 500 per stretch
    expect(spans.length).toBeGreaterThan(0);
  });
});
