/**
 * `POST /v2/scrape` body normalisation (src/api): string formats become objects with their defaults, object formats
 * keep their options, parsers, skipTlsVerification derived from headers, and the defaults of location, proxy,
 * profile, redactPII and the cache fields. Validation is in scrape.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { findFormat, normalizeFormats, parseScrapeBody } from "../../src/api/index.ts";

const URL = "https://example.com";

describe("formats, parsers and other normalisation", () => {
  test("string formats become objects with defaults", () => {
    const r = parseScrapeBody({ url: URL, formats: ["markdown", "html", "rawHtml", "links", "images", "summary", "screenshot", "branding"] });
    expect(r.scrapeOptions.formats).toEqual([
      { type: "markdown" }, { type: "html" }, { type: "rawHtml" }, { type: "links" }, { type: "images" }, { type: "summary" },
      { type: "screenshot", fullPage: false }, { type: "branding" },
    ]);
    expect(findFormat(r.scrapeOptions.formats, "screenshot")?.fullPage).toBe(false);
  });

  test("object formats keep their options; [LATEST] formats are accepted", () => {
    const formats = [
      { type: "screenshot", fullPage: true, quality: 80, viewport: { width: 1280, height: 800 } },
      { type: "json", prompt: "p", schema: { type: "object", properties: {} }, checkPromptInjection: true },
      { type: "attributes", selectors: [{ selector: "a", attribute: "href" }] },
      { type: "question", question: "q?" },
      { type: "highlights", query: "q" },
      { type: "query", prompt: "p", mode: "directQuote" },
      "product", "menu", "audio", "video",
    ];
    expect(parseScrapeBody({ url: URL, formats }).scrapeOptions.formats).toEqual(normalizeFormats(formats as never));
  });

  test("formats: [] is allowed (metadata only)", () => {
    expect(parseScrapeBody({ url: URL, formats: [] }).scrapeOptions.formats).toEqual([]);
  });

  test("parsers: strings and objects → objects with mode auto; [] kept", () => {
    const r = parseScrapeBody({ url: URL, parsers: ["pdf"] });
    expect(r.scrapeOptions.parsers).toEqual([{ type: "pdf", mode: "auto" }]);
    expect(parseScrapeBody({ url: URL, parsers: [{ type: "pdf" }] }).scrapeOptions.parsers).toEqual([{ type: "pdf", mode: "auto" }]);
    expect(parseScrapeBody({ url: URL, parsers: [{ type: "pdf", mode: "ocr", maxPages: 10000, pageMarkdown: true }, "image"] }).scrapeOptions.parsers).toEqual([
      { type: "pdf", mode: "ocr", maxPages: 10000, pages: true },
      { type: "image" },
    ]);
    expect(parseScrapeBody({ url: URL, parsers: [] }).scrapeOptions.parsers).toEqual([]);
  });

  test("skipTlsVerification: explicit wins; derived false with headers", () => {
    expect(parseScrapeBody({ url: URL, headers: { a: "b" } }).scrapeOptions.skipTlsVerification).toBe(false);
    expect(parseScrapeBody({ url: URL, headers: {} }).scrapeOptions.skipTlsVerification).toBe(true);
    expect(parseScrapeBody({ url: URL, headers: { a: "b" }, skipTlsVerification: true }).scrapeOptions.skipTlsVerification).toBe(true);
  });

  test("location gets the default country; proxy, profile, redactPII, cache fields", () => {
    const r = parseScrapeBody({
      url: URL,
      location: { languages: ["de"] },
      proxy: "enhanced",
      profile: { name: "p" },
      redactPII: { mode: "fast" },
      maxAge: 0,
      minAge: 1000,
      storeInCache: false,
      lockdown: true,
      useMock: "fixture",
      domainTools: true,
      toolDetail: "full",
      threatProtection: { mode: "off" },
      auditMetadata: { username: "u" },
    }).scrapeOptions;
    expect(r.location).toEqual({ country: "us-generic", languages: ["de"] });
    expect([r.proxy, r.profile, r.redactPII, r.maxAge, r.minAge, r.storeInCache, r.lockdown, r.useMock]).toEqual([
      "enhanced", { name: "p", saveChanges: true }, { mode: "fast", replaceStyle: "tag" }, 0, 1000, false, true, "fixture",
    ]);
    expect("domainTools" in r || "threatProtection" in r).toBe(false);
    expect(parseScrapeBody({ url: URL, location: { country: "DE" } }).scrapeOptions.location).toEqual({ country: "DE" });
  });
});
