/**
 * `POST /v2/scrape` body validation (src/api): defaults, unknown keys, types and bounds with upstream's messages,
 * CSS selectors, location codes, and the refinements between options (headers, waitFor, formats, json schemas,
 * actions). Normalisation of formats and parsers is in scrape-normalise.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { parseScrapeBody, UNRECOGNIZED_KEY_MESSAGE, WAIT_FOR_MESSAGE } from "../../src/api/index.ts";
import { parseMapBody } from "../../src/api/map.ts";
import { reject, paths } from "./helpers.ts";

const URL = "https://example.com";

describe("POST /v2/scrape body", () => {
  test("a minimal body gets the documented defaults", () => {
    const r = parseScrapeBody({ url: "example.com" });
    expect(r.url).toBe("http://example.com");
    expect(r.sourceURL).toBe("http://example.com"); // http:// prepended (api-v2.md §2.1 rule 1), nothing else changed
    expect(r.origin).toBe("api");
    expect(r.scrapeOptions).toEqual({
      formats: [{ type: "markdown" }],
      onlyMainContent: true,
      onlyCleanContent: false,
      waitFor: 0,
      mobile: false,
      parsers: [{ type: "pdf", mode: "auto" }, { type: "image" }],
      removeBase64Images: true,
      fastMode: false,
      blockAds: true,
      proxy: "auto",
      storeInCache: true,
      lockdown: false,
      skipTlsVerification: true,
    });
    expect(r.scrapeOptions.timeout).toBeUndefined();
    expect(r.scrapeOptions.maxAge).toBeUndefined();
  });

  test("defaults are fresh objects per request (no shared mutable default)", () => {
    const a = parseScrapeBody({ url: URL });
    a.scrapeOptions.formats.push({ type: "html" });
    expect(parseScrapeBody({ url: URL }).scrapeOptions.formats).toEqual([{ type: "markdown" }]);
  });

  test("the input object is not mutated", () => {
    const body = { url: URL, formats: ["html"] };
    parseScrapeBody(body);
    expect(body).toEqual({ url: URL, formats: ["html"] });
  });

  test("origin, integration and zeroDataRetention are accepted", () => {
    const r = parseScrapeBody({ url: URL, origin: "js-sdk@4.42.0", integration: "n8n", zeroDataRetention: true });
    expect([r.origin, r.integration, r.zeroDataRetention]).toEqual(["js-sdk@4.42.0", "n8n", true]);
    expect(parseScrapeBody({ url: URL, integration: null }).integration).toBeNull();
  });

  test("unknown keys are rejected, named, with upstream's message", () => {
    const e = reject(parseScrapeBody, { url: URL, only_main_content: true, jsonOptions: {} });
    expect(e.message).toBe(UNRECOGNIZED_KEY_MESSAGE);
    expect(e.issues).toEqual([{ code: "unrecognized_keys", keys: ["only_main_content", "jsonOptions"], path: [], message: UNRECOGNIZED_KEY_MESSAGE }]);
  });

  test.each([
    ["format option", { formats: [{ type: "screenshot", fullpage: true }] }, ["formats", 0], "fullpage"],
    ["location", { location: { country: "US", lang: "en" } }, ["location"], "lang"],
    ["action", { actions: [{ type: "click", selector: "a", button: "left" }] }, ["actions", 0], "button"],
    ["parser", { parsers: [{ type: "pdf", ocr: true }] }, ["parsers", 0], "ocr"],
    ["profile", { profile: { name: "p", x: 1 } }, ["profile"], "x"],
  ])("unknown key inside a nested %s is rejected", (_n, extra, path, key) => {
    const e = reject(parseScrapeBody, { url: URL, ...extra });
    expect(e.issues[0]).toMatchObject({ code: "unrecognized_keys", path, keys: [key] });
  });

  test("internal __experimental_* and __* fields are accepted and dropped", () => {
    const r = parseScrapeBody({ url: URL, __experimental_omce: true, __searchPreviewToken: "x", __forceFirePDF: true, __agentInterop: {} });
    expect(Object.keys(r.scrapeOptions).some((k) => k.startsWith("__"))).toBe(false);
  });

  test.each([
    ["timeout below 1000", { timeout: 999 }, "timeout"],
    ["timeout not an integer", { timeout: 1500.5 }, "timeout"],
    ["timeout as a string", { timeout: "30000" }, "timeout"],
    ["waitFor negative", { waitFor: -1 }, "waitFor"],
    ["waitFor above 60000", { waitFor: 60001 }, "waitFor"],
    ["maxAge negative", { maxAge: -1 }, "maxAge"],
    ["minAge negative", { minAge: -1 }, "minAge"],
    ["proxy unknown", { proxy: "residential" }, "proxy"],
    ["headers not strings", { headers: { a: 1 } }, "headers.a"],
    ["screenshot quality 0", { formats: [{ type: "screenshot", quality: 0 }] }, "formats.0.quality"],
    ["screenshot quality 101", { formats: [{ type: "screenshot", quality: 101 }] }, "formats.0.quality"],
    ["viewport width > 7680", { formats: [{ type: "screenshot", viewport: { width: 7681, height: 100 } }] }, "formats.0.viewport.width"],
    ["viewport height > 4320", { formats: [{ type: "screenshot", viewport: { width: 100, height: 4321 } }] }, "formats.0.viewport.height"],
    ["json prompt > 10000", { formats: [{ type: "json", prompt: "x".repeat(10001) }] }, "formats.0.prompt"],
    ["changeTracking mode unknown", { formats: ["markdown", { type: "changeTracking", modes: ["diff"] }] }, "formats.1.modes.0"],
    ["attributes without selectors", { formats: [{ type: "attributes" }] }, "formats.0.selectors"],
    ["question empty", { formats: [{ type: "question", question: "" }] }, "formats.0.question"],
    ["query mode unknown", { formats: [{ type: "query", prompt: "p", mode: "x" }] }, "formats.0.mode"],
    ["unknown string format", { formats: ["screenshot@fullPage"] }, "formats.0"],
    ["unknown format type", { formats: [{ type: "extract" }] }, "formats.0.type"],
    ["string form of a format that needs options", { formats: ["attributes"] }, "formats.0"],
    ["pdf maxPages > 10000", { parsers: [{ type: "pdf", maxPages: 10001 }] }, "parsers.0.maxPages"],
    ["pdf mode unknown", { parsers: [{ type: "pdf", mode: "slow" }] }, "parsers.0.mode"],
    ["parser unknown", { parsers: ["docx"] }, "parsers.0"],
    // Both became their default list (TypeBox assigned the object onto it): a PDF asked not to be parsed was parsed.
    ["parsers as an object", { parsers: { pdf: false } }, "parsers"],
    ["formats as an object", { formats: { type: "html" } }, "formats"],
    ["country not alpha-2", { location: { country: "USA" } }, "location.country"],
    ["action quality 0", { actions: [{ type: "screenshot", quality: 0 }] }, "actions.0.quality"],
    ["pdf action format", { actions: [{ type: "pdf", format: "B5" }] }, "actions.0.format"],
    ["scroll direction", { actions: [{ type: "scroll", direction: "left" }] }, "actions.0.direction"],
    ["wait milliseconds 0", { actions: [{ type: "wait", milliseconds: 0 }] }, "actions.0.milliseconds"],
    ["redactPII mode", { redactPII: { mode: "slow" } }, "redactPII.mode"],
    ["profile without name", { profile: {} }, "profile.name"],
    ["url missing", { url: undefined }, "url"],
  ])("rejects %s", (_name, extra, path) => {
    const e = reject(parseScrapeBody, { url: URL, ...extra });
    expect(paths(e.issues)).toContain(path);
    expect(e.message).toBe("Bad Request");
  });

  test("a CSS selector the matcher cannot parse is a 400 naming it (includeTags: ['div[['] answered 200 with empty markdown)", () => {
    const e = reject(parseScrapeBody, { url: URL, includeTags: ["p", "div[["], excludeTags: [":::"] });
    expect(paths(e.issues)).toEqual(["includeTags.1", "excludeTags.0"]);
    expect(e.message).toStartWith("Invalid CSS selector: div[[");
    expect(parseScrapeBody({ url: URL, includeTags: ["main article > p:not(.ad)", "#id", ".cls", "div:has(> img)"] }).scrapeOptions.includeTags).toHaveLength(4);
  });

  test("location.country: ISO 3166-1 alpha-2 codes in any case, XK, UK and us-generic; others with upstream's message", () => {
    for (const country of ["DE", "de", "Gb", "XK", "uk", "US-generic", "us-generic"]) expect(parseScrapeBody({ url: URL, location: { country } }).scrapeOptions.location?.country).toBe(country);
    expect(reject(parseScrapeBody, { url: URL, location: { country: "ZZ" } }).issues[0]).toEqual({ code: "custom", path: ["location", "country"], message: "Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code." });
    expect(reject(parseMapBody, { url: URL, location: { country: "EU" } }).issues[0]!.path).toEqual(["location", "country"]);
    // Withdrawn codes are not countries any more; the error names the problem.
    expect(reject(parseScrapeBody, { url: URL, location: { country: "YU" } }).message).toBe("Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code.");
  });

  test("messages are zod-like", () => {
    expect(reject(parseScrapeBody, { url: URL, waitFor: 60001 }).issues[0]).toEqual({
      code: "too_big",
      path: ["waitFor"],
      message: "Number must be less than or equal to 60000",
    });
    expect(reject(parseScrapeBody, { url: URL, formats: ["bogus"] }).issues[0]!.code).toBe("invalid_enum_value");
    expect(reject(parseScrapeBody, {}).issues[0]).toEqual({ code: "invalid_type", path: ["url"], message: "Required" });
  });

  test("a non-object body is rejected", () => {
    expect(reject(parseScrapeBody, "https://example.com").issues[0]!.code).toBe("invalid_type");
    expect(reject(parseScrapeBody, null).issues[0]!.code).toBe("invalid_type");
  });

  test.each([
    ["ftp://x.com", "URL uses unsupported protocol"],
    ["http://http://x", "Invalid URL"],
    ["intranet", "URL must have a valid top-level domain or be a valid path or be an IP address"],
  ])("URL %p is rejected with %p as the top-level error", (url, message) => {
    const e = reject(parseScrapeBody, { url });
    expect(e.message).toBe(message);
    expect(e.issues).toEqual([{ code: "custom", path: ["url"], message }]);
  });
});

describe("scrape option refinements", () => {
  test.each([
    ["an empty name", { "": "x" }, "", "Invalid header name"],
    ["a name with a space", { "X Y": "1" }, "X Y", "Invalid header name"],
    ["a non-ASCII name", { "ä": "1" }, "ä", "Invalid header name"],
    ["a value with a line break", { "X-A": "1\r\nHost: evil" }, "X-A", "no line breaks"],
    ["a value beyond Latin-1", { "X-A": "中" }, "X-A", "beyond Latin-1"],
  ])("headers: %s is a 400 naming the header", (_n, headers, name, fragment) => {
    const e = reject(parseScrapeBody, { url: URL, headers });
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]!.path).toEqual(["headers", name]);
    expect(e.issues[0]!.message).toContain(fragment);
  });

  test("headers: tokens and Latin-1 values with tabs are accepted", () => {
    const r = parseScrapeBody({ url: URL, headers: { "X-Custom_1.a": "caf\u00e9\t x", Cookie: "a=b; c=d" } });
    expect(r.scrapeOptions.headers).toEqual({ "X-Custom_1.a": "caf\u00e9\t x", Cookie: "a=b; c=d" });
  });

  test("headers: at most 32 KiB in all (a site would answer 431; past 64 KiB the egress proxy refused the head as a 500)", () => {
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`X-H${i}`, "v".repeat(80)]));
    const e = reject(parseScrapeBody, { url: URL, headers: many });
    expect(e.issues).toEqual([{ code: "custom", path: ["headers"], message: expect.stringContaining("at most 32768 are sent") }]);
    expect(reject(parseScrapeBody, { url: URL, headers: { Cookie: "x".repeat(40_000) } }).issues[0]!.path).toEqual(["headers"]);
    // A large but ordinary set passes.
    expect(parseScrapeBody({ url: URL, headers: { Cookie: "c".repeat(8_000), Authorization: "Bearer " + "t".repeat(2_000) } }).scrapeOptions.headers).toBeDefined();
  });

  test("waitFor must not exceed half of timeout", () => {
    const e = reject(parseScrapeBody, { url: URL, timeout: 10000, waitFor: 5001 });
    expect(e.message).toBe(WAIT_FOR_MESSAGE);
    expect(e.issues).toEqual([{ code: "custom", path: ["waitFor"], message: WAIT_FOR_MESSAGE }]);
    expect(parseScrapeBody({ url: URL, timeout: 10000, waitFor: 5000 }).scrapeOptions.waitFor).toBe(5000);
  });

  test.each([
    ["two screenshots", ["screenshot", { type: "screenshot", fullPage: true }], "one screenshot"],
    ["changeTracking without markdown", ["html", "changeTracking"], "requires the markdown format"],
    ["json with deterministicJson", [{ type: "json", prompt: "p" }, "deterministicJson"], "both the json and deterministicJson"],
    ["rawBase64 with another format", ["rawBase64", "markdown"], "rawBase64"],
  ])("formats: %s", (_n, formats, fragment) => {
    const e = reject(parseScrapeBody, { url: URL, formats });
    expect(e.issues[0]!.code).toBe("custom");
    expect(e.issues[0]!.path).toEqual(["formats"]);
    expect(e.message).toContain(fragment);
  });

  test("rawBase64 alone and changeTracking with markdown are fine", () => {
    expect(parseScrapeBody({ url: URL, formats: ["rawBase64"] }).scrapeOptions.formats).toEqual([{ type: "rawBase64" }]);
    expect(parseScrapeBody({ url: URL, formats: ["markdown", "changeTracking"] }).scrapeOptions.formats).toEqual([
      { type: "markdown" },
      { type: "changeTracking", modes: [], tag: null },
    ]);
  });

  test("json schema: an open object without properties is rejected, nested too", () => {
    const open = { type: "object", additionalProperties: true };
    let e = reject(parseScrapeBody, { url: URL, formats: [{ type: "json", schema: open }] });
    expect(e.issues[0]!.path).toEqual(["formats", 0, "schema"]);
    e = reject(parseScrapeBody, { url: URL, formats: [{ type: "json", schema: { type: "object", properties: { a: open } } }] });
    expect(e.issues[0]!.path).toEqual(["formats", 0, "schema", "properties", "a"]);
    const ok = { type: "object", additionalProperties: true, properties: { a: { type: "string" } } };
    expect(parseScrapeBody({ url: URL, formats: [{ type: "json", schema: ok }] }).scrapeOptions.formats[0]).toEqual({ type: "json", schema: ok });
  });

  test("actions: at most 50", () => {
    const actions = Array.from({ length: 51 }, () => ({ type: "scrape" }));
    expect(reject(parseScrapeBody, { url: URL, actions }).message).toBe("Number of actions cannot exceed 50");
    expect(parseScrapeBody({ url: URL, actions: actions.slice(0, 50) }).scrapeOptions.actions).toHaveLength(50);
  });

  test("actions: wait needs milliseconds XOR selector", () => {
    for (const a of [{ type: "wait" }, { type: "wait", milliseconds: 10, selector: "#a" }]) {
      const e = reject(parseScrapeBody, { url: URL, actions: [a] });
      expect(e.issues[0]).toMatchObject({ code: "custom", path: ["actions", 0] });
    }
  });

  test("actions: waitFor + waits ≤ 60 s, a selector wait counts 1 s", () => {
    const ok = { url: URL, waitFor: 20000, actions: [{ type: "wait", milliseconds: 39000 }, { type: "wait", selector: "#x" }] };
    expect(parseScrapeBody(ok).scrapeOptions.actions).toHaveLength(2);
    const e = reject(parseScrapeBody, { ...ok, actions: [...ok.actions, { type: "wait", selector: "#y" }] });
    expect(e.message).toContain("cannot exceed 60 seconds");
  });

  test("action defaults are filled", () => {
    const r = parseScrapeBody({
      url: URL,
      actions: [{ type: "click", selector: "a" }, { type: "scroll" }, { type: "screenshot" }, { type: "pdf" }, { type: "write", text: "x" }, { type: "press", key: "Enter" }, { type: "executeJavascript", script: "1" }],
    });
    expect(r.scrapeOptions.actions).toEqual([
      { type: "click", selector: "a", all: false },
      { type: "scroll", direction: "down" },
      { type: "screenshot", fullPage: false },
      { type: "pdf", landscape: false, scale: 1, format: "Letter" },
      { type: "write", text: "x" },
      { type: "press", key: "Enter" },
      { type: "executeJavascript", script: "1" },
    ]);
    expect(r.scrapeOptions.skipTlsVerification).toBe(false);
  });
});
