/**
 * PII written with percent-escapes (redact/percent-escapes.ts): link targets such as `mailto:jane%40example.com`,
 * `?email=jane%40example.com`, `tel:%2B1%20555%20010%200199` and `jane@example%2Ecom` were left as they were, by the
 * patterns and by the model's quotes; and the converter writes a `tel:` link's spaces as `%20`, so
 * `<a href="tel:+49 30 1234567">` kept its number in the markdown. Found now in a decoded copy and replaced as
 * written, the rest of the URL kept; ordinary URLs with escapes (ids, hashes, dates, tracking parameters) unchanged;
 * malformed escapes throw nothing; only the runs around an escape are searched again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLlmProviderRegistry } from "../../plugins/index.ts";
import { createLlmClient } from "../../src/llm/registry.ts";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";
import { findPatternSpans, PII_ENTITIES, type PiiSpan } from "../../src/redact/detectors.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { findThroughEscapes, percentDecode } from "../../src/redact/percent-escapes.ts";
import { createRedactor, patternRedactor, piiOptions } from "../../src/redact/redactor.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

const run = () => ({ deadline: Date.now() + 20_000, recordTokens: () => {} });
const fast = (text: string, style: "tag" | "mask" | "remove" = "tag") => patternRedactor.redact(text, piiOptions({ mode: "fast", replaceStyle: style })!, run());

describe("percent-escaped PII is redacted where it is written", () => {
  test("e-mails and phones in link targets, the rest of the URL as it was", async () => {
    const cases: [string, string][] = [
      ["[Mail](mailto:jane%40example.com)", "[Mail](mailto:<EMAIL>)"],
      ["[Mail](mailto:jane%40example%2Ecom?subject=Hi%20there)", "[Mail](mailto:<EMAIL>?subject=Hi%20there)"],
      ["[x](https://x.test/?email=jane%40example.com&utm_source=news)", "[x](https://x.test/?email=<EMAIL>&utm_source=news)"],
      ["[x](https://x.test/?email=JANE%40Example.COM#top)", "[x](https://x.test/?email=<EMAIL>#top)"],
      ["[Call](tel:%2B1%20555%20010%200199)", "[Call](tel:<PHONE>)"],
      ["[Call](tel:+44%2020%207946%200958)", "[Call](tel:<PHONE>)"],
      ["Write to jane@example%2Ecom today.", "Write to <EMAIL> today."],
      ["<https://x.test/u?to=jane.doe%2Bnews%40mail.example.co.uk&id=42>", "<https://x.test/u?to=<EMAIL>&id=42>"],
    ];
    for (const [text, want] of cases) expect(await fast(text)).toBe(want);
  });

  test("the same PII redacts to the same tag written plainly or escaped; mask counts the characters as written", async () => {
    expect(await fast("mailto:jane%40example.com")).toBe(await fast("mailto:jane@example.com"));
    expect(await fast("tel:%2B1%20555%20010%200199")).toBe(await fast("tel:+1 555 010 0199"));
    expect(await fast("[m](mailto:jane%40example.com) x", "mask")).toBe("[m](mailto:" + "*".repeat("jane%40example.com".length) + ") x");
    expect(await fast("[m](mailto:jane%40example.com) x", "remove")).toBe("[m](mailto:) x");
  });

  test("the converter's own links: an href with a space-separated phone, an escaped address", async () => {
    const md = htmlToMarkdown(`<p><a href="tel:+49 30 1234567">call</a> <a href="mailto:jane%40example.com">mail</a> <a href="https://x.test/s?q=jane%40example.com&amp;page=2">search</a></p>`);
    expect(md).toContain("tel:+49%2030%201234567"); // what the patterns have to see through
    expect(await fast(md)).toBe("[call](tel:<PHONE>) [mail](mailto:<EMAIL>) [search](https://x.test/s?q=<EMAIL>&page=2)");
  });

  test("a JSON value's strings redact as the markdown does", async () => {
    const value = { url: "https://x.test/?email=jane%40example.com&utm_source=news", contact: "tel:%2B1%20555%20010%200199", plain: "jane@example.com" };
    expect(await redactJsonStrings(value, (t) => fast(t))).toEqual({ url: await fast(value.url), contact: "tel:<PHONE>", plain: "<EMAIL>" });
    expect(await fast(value.url)).toBe("https://x.test/?email=<EMAIL>&utm_source=news");
  });
});

describe("false positives: ordinary URLs with escapes are left alone", () => {
  const corpus = [
    "[Café](https://en.wikipedia.org/wiki/Caf%C3%A9_(2024))",
    "[t](https://x.test/track?utm_source=news%20letter&utm_campaign=2024%2D01%2D15&id=1234567890123)",
    "[ids](https://x.test/p?ids=0301234567%2C0301234568%2C0301234569)",
    "![logo](https://cdn.x.test/img/logo%402x.png)",
    "[post](https://medium.example/%40jane.doe/story-9f8e7d6c5b4a)",
    "[f](https://x.test/file?sha=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08%3D)",
    "[r](https://x.test/report?from=2024%2F01%2F15&to=15.01.2024%2012%3A30)",
    "[v](https://x.test/dl?v=1.2.3%2B4&build=20240115123456)",
    "[o](https://x.test/s?q=Order%20%23030%20123%2045)",
    "[d](https://x.test/s?q=06%2012%202024)",
    "[p](https://x.test/s?q=%2B1%20234%20567%20EUR)",
    "[g](https://maps.x.test/?ll=%2B48.856613%2C%2B2.352222&z=12)",
    "[n](https://x.test/n?n=1%20234%20567%20890&share=50%25)",
    "[ip](https://x.test/?host=192.168.10.254%3A8080)",
    "[s](https://x.test/?t=08.00%20-%2018.00)",
    "[c](https://x.test/cal?at=2024-01-15T10%3A30%3A00%2B01%3A00&tz=%2B0100)",
    "[sig](https://x.test/dl?sig=AbC%2B12345678901%2Fxyz%3D%3D&exp=1705312800)",
    "[q](https://x.test/s?q=tel%20030%2F1234&page=2%2F10)",
  ];
  test("each URL comes back unchanged", async () => {
    for (const md of corpus) expect(await fast(md)).toBe(md);
  });

  test("malformed escapes throw nothing and stay as written", async () => {
    for (const bad of ["%", "%4", "%ZZ", "100%", "%E0%A4", "%ED%A0%80", "%C0%AF", "%F4%90%80%80", "%FF", "%80", "a%2"]) {
      expect(percentDecode(bad).text).toBe(bad);
      expect(await fast(`[x](https://x.test/?q=${bad})`)).toBe(`[x](https://x.test/?q=${bad})`);
    }
    // A malformed escape stays; a valid one beside it decodes.
    expect(percentDecode("%C3%28 50%%40 %E2%82%AC%F0%9F%98%80%41").text).toBe("%C3( 50%@ €😀A");
    expect(await fast("[m](mailto:jane%40example.com%E0%A4)")).toBe("[m](mailto:<EMAIL>%E0%A4)");
  });
});

describe("cost and placement", () => {
  test("only the runs around an escape are searched again, not the page", () => {
    const page = `${"Lorem ipsum dolor sit amet, 2024-01-15. ".repeat(25_000)}[m](mailto:jane%40example.com) ${"and more prose here. ".repeat(25_000)}`;
    let searched = 0;
    const spans = findThroughEscapes(page, (t) => {
      searched += t.length;
      return findPatternSpans(t, new Set(PII_ENTITIES));
    });
    expect(spans.map((s) => page.slice(s.start, s.end))).toEqual(["jane%40example.com"]);
    expect(searched).toBeLessThan(600); // the link's run and 80 characters either side, as written and decoded, of 1.5 MB
    let calls = 0;
    findThroughEscapes("no escapes 100% here", () => (calls++, []));
    expect(calls).toBe(0);
  });

  test("adversarial runs of escapes are searched at most three times over (as written, decoded, decoded twice)", () => {
    for (const text of ["%41".repeat(200_000), "%C3".repeat(200_000), "%".repeat(600_000), "a%40b ".repeat(100_000), "%2541".repeat(120_000), "%252541".repeat(80_000)]) {
      let searched = 0;
      let calls = 0;
      findThroughEscapes(text, (t) => ((searched += t.length), calls++, []));
      expect(searched).toBeLessThanOrEqual(3 * text.length);
      expect(calls).toBeLessThanOrEqual(3);
    }
  });

  test("spans found in the decoded copy land on the escapes of their end characters, multi-byte ones whole", () => {
    const text = "x %C3%A9jane%40example.com y";
    const find = (t: string): PiiSpan[] => {
      const at = t.indexOf("éjane");
      return [{ start: at, end: at + "éjane@example.com".length, type: "EMAIL" }];
    };
    const [s] = findThroughEscapes(text, find);
    expect(text.slice(s!.start, s!.end)).toBe("%C3%A9jane%40example.com");
  });
});

describe("model modes", () => {
  let llm: FakeLlm;
  beforeAll(() => {
    llm = startFakeLlm();
  });
  afterAll(() => llm.stop());

  test("a quote of the address as the model reads it decoded redacts its escaped occurrences too", async () => {
    const config = { llmProvider: "auto", ollamaBaseUrl: llm.url, ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "test-model", llmContextTokens: 8192 } as const;
    const redactor = createRedactor(createLlmClient(config, createLlmProviderRegistry()), { llmTimeoutMs: 10_000, llmTokenBudget: 100_000 });
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ spans: [{ text: "jane.doe@example.com", type: "EMAIL" }, { text: "Jane Doe", type: "PERSON" }] }) });
    const md = "Jane Doe: [write](mailto:jane.doe%40example.com) or [x](https://x.test/?n=Jane%20Doe&id=7)";
    expect(await redactor.redact(md, piiOptions(true)!, run())).toBe("<PERSON>: [write](mailto:<EMAIL>) or [x](https://x.test/?n=<PERSON>&id=7)");
  });
});
