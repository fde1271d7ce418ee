/**
 * The base of the absolute links crawlbox hands out (server/public-url.ts): CRAWLBOX_PUBLIC_URL when set, else
 * what a reverse proxy reports the client used (Forwarded, then X-Forwarded-Proto/-Host; malformed values
 * ignored), else the request's own origin; and a crawl created behind a TLS proxy answers with https links.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { publicBaseUrl } from "../../src/server/public-url.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const req = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1:3002/v2/crawl/x", { headers });

describe("publicBaseUrl", () => {
  test("the configured URL, else the proxy's report, else the request's origin", () => {
    expect(publicBaseUrl("", req())).toBe("http://127.0.0.1:3002");
    expect(publicBaseUrl("https://fixed.example", req({ "x-forwarded-host": "other.example" }))).toBe("https://fixed.example");
    expect(publicBaseUrl("", req({ "x-forwarded-proto": "https", "x-forwarded-host": "crawl.example.com" }))).toBe("https://crawl.example.com");
    expect(publicBaseUrl("", req({ "x-forwarded-proto": "https, http" }))).toBe("https://127.0.0.1:3002");
    expect(publicBaseUrl("", req({ forwarded: 'for=1.2.3.4;proto=https;host="api.example.org:8443", for=5.6.7.8' }))).toBe("https://api.example.org:8443");
    expect(publicBaseUrl("", req({ "x-forwarded-host": "[::1]:8080" }))).toBe("http://[::1]:8080");
  });

  test("malformed reports are ignored", () => {
    expect(publicBaseUrl("", req({ "x-forwarded-host": "evil.example/path?x" }))).toBe("http://127.0.0.1:3002");
    expect(publicBaseUrl("", req({ "x-forwarded-host": "a b" }))).toBe("http://127.0.0.1:3002");
    expect(publicBaseUrl("", req({ "x-forwarded-proto": "javascript" }))).toBe("http://127.0.0.1:3002");
  });
});

describe("behind a TLS-terminating proxy", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test("a crawl's url is https on the proxy's host", async () => {
    const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "crawl.example.com" };
    const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: "http://127.0.0.1:9/", limit: 1 }, headers })).json()) as any;
    expect(created.url).toBe(`https://crawl.example.com/v2/crawl/${created.id}`);
  });
});
