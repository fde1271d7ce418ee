import { describe, expect, test } from "bun:test";
import { normalizeUrlField, partitionUrls, URL_MESSAGES } from "../../src/api/url.ts";

describe("normalizeUrlField (api-v2.md §2.1 rules 1–5)", () => {
  test.each([
    ["example.com", "http://example.com"],
    ["https://example.com/a?b=c&d=https://e.com", "https://example.com/a?b=c&d=https://e.com"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["localhost:3000/x", "http://localhost:3000/x"],
    ["http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"],
    ["https://[::1]:8443/", "https://[::1]:8443/"],
    ["HTTPS://Example.COM/Path?Q=1", "HTTPS://Example.COM/Path?Q=1"],
    ["münchen.de", "http://münchen.de"],
    ["https://xn--mnchen-3ya.de", "https://xn--mnchen-3ya.de"],
  ])("accepts %p → %p", (input, url) => {
    expect(normalizeUrlField(input)).toEqual({ ok: true, url, original: input });
  });

  test.each([
    ["ftp://x.com", URL_MESSAGES.protocol],
    ["file:///etc/passwd", URL_MESSAGES.protocol],
    ["http://http://x", URL_MESSAGES.invalid],
    ["https://https://example.com", URL_MESSAGES.invalid],
    ["http://exa mple.com", URL_MESSAGES.invalid],
    ["", URL_MESSAGES.invalid],
    ["foo", URL_MESSAGES.tld],
    ["http://intranet", URL_MESSAGES.tld],
    ["http://example.c", URL_MESSAGES.tld],
    ["http://1234", URL_MESSAGES.tld],
    ["http://1.2.3", URL_MESSAGES.tld],
  ])("rejects %p with %p", (input, message) => {
    expect(normalizeUrlField(input)).toEqual({ ok: false, message, original: input });
  });

  test("the original string is kept (sourceURL stays unnormalised)", () => {
    const r = normalizeUrlField("  example.com/Path ");
    expect(r).toEqual({ ok: true, url: "http://example.com/Path", original: "  example.com/Path " });
  });

  test("partitionUrls keeps indexes and original spellings", () => {
    const r = partitionUrls(["a.com", "nope", "https://b.com"]);
    expect(r.valid.map((v) => [v.index, v.url, v.original])).toEqual([
      [0, "http://a.com", "a.com"],
      [2, "https://b.com", "https://b.com"],
    ]);
    expect(r.invalid).toEqual([{ index: 1, original: "nope", message: URL_MESSAGES.tld }]);
  });
});
