/**
 * Browser access (server/cors.ts): CORS answers for allowed origins on every route and error, preflights, and the
 * drive-by guard when authentication is off. Plus the CRAWLBOX_CORS_ORIGINS setting.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const PAGE = "https://app.example";
const preflight = (h: Harness, origin: string, path = "/v2/scrape") =>
  h.request(path, { method: "OPTIONS", auth: null, headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" } });

describe("authentication on: any origin (the default, as upstream)", () => {
  let h: Harness;
  beforeAll(async () => (h = await createHarness({})));
  afterAll(() => h.close());

  test("a preflight is answered 204 with the methods and the headers asked for", async () => {
    const res = await preflight(h, PAGE);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // Every method the API has: PATCH (a monitor) and PUT (a parse upload URL) too, or a page could not send them.
    expect(res.headers.get("access-control-allow-methods")!.split(", ")).toEqual(expect.arrayContaining(["GET", "POST", "PUT", "PATCH", "DELETE"]));
    expect(res.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
    expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  test("answers and errors carry the CORS headers, so the page can read them", async () => {
    const bad = await h.request("/v2/scrape", { method: "POST", json: { url: "not a url" }, headers: { origin: PAGE } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
    const unauthorised = await h.request("/v2/team/credit-usage", { auth: null, headers: { origin: PAGE } });
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get("access-control-allow-origin")).toBe("*");
    expect(unauthorised.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    const ok = await h.request("/v2/team/credit-usage", { headers: { origin: PAGE } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    // Without an Origin (the SDKs in Node, curl) nothing changes.
    expect((await h.request("/v2/team/credit-usage")).headers.has("access-control-allow-origin")).toBe(false);
  });
});

describe("listed origins only", () => {
  let h: Harness;
  beforeAll(async () => (h = await createHarness({ corsOrigins: [PAGE, "http://localhost:5173"] })));
  afterAll(() => h.close());

  test("a listed origin is echoed (with Vary: Origin); another gets no CORS headers", async () => {
    const res = await h.request("/v2/team/credit-usage", { headers: { origin: "http://localhost:5173" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(res.headers.get("vary")).toContain("Origin");
    const other = await h.request("/v2/team/credit-usage", { headers: { origin: "https://elsewhere.example" } });
    expect(other.status).toBe(200); // a key was sent: authentication, not CORS, decides
    expect(other.headers.has("access-control-allow-origin")).toBe(false);
    const refused = await preflight(h, "https://elsewhere.example");
    expect(refused.status).toBe(204);
    expect(refused.headers.has("access-control-allow-origin")).toBe(false);
  });
});

describe("authentication off: no origin by default, and foreign pages may not write", () => {
  let h: Harness;
  beforeAll(async () => (h = await createHarness({ authEnabled: false, corsOrigins: [] })));
  afterAll(() => h.close());

  test("a POST a browser sends from another origin is 403 FORBIDDEN_ORIGIN and starts nothing", async () => {
    // What a plain HTML form on any website can send to a local crawlbox, no preflight needed.
    const res = await h.request("/v2/crawl", { method: "POST", auth: null, body: JSON.stringify({ url: "http://127.0.0.1:9/" }), headers: { origin: "https://evil.example", "content-type": "text/plain" } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ success: false, code: "FORBIDDEN_ORIGIN", details: { origin: "https://evil.example" } });
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as any).n).toBe(0);
    expect((await preflight(h, "https://evil.example")).headers.has("access-control-allow-origin")).toBe(false);
  });

  test("a request under a name that is not this machine's (DNS rebinding) is 403 FORBIDDEN_HOST, reads included", async () => {
    for (const host of ["rebind.attacker.example:3002", "evil.example"]) {
      const read = await h.request("/v2/team/credit-usage", { auth: null, headers: { host, origin: `http://${host}` } });
      expect(read.status).toBe(403);
      expect(await read.json()).toMatchObject({ success: false, code: "FORBIDDEN_HOST" });
      // Same-origin to the browser, so the origin rule alone would have let this one in.
      const write = await h.request("/v2/crawl", { method: "POST", auth: null, json: { url: "http://127.0.0.1:9/" }, headers: { host, origin: `http://${host}` } });
      expect(write.status).toBe(403);
    }
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as any).n).toBe(0);
    for (const host of ["127.0.0.1:3002", "localhost:3002", "[::1]:3002", "127.0.0.1"]) {
      expect((await h.request("/v2/team/credit-usage", { auth: null, headers: { host } })).status).toBe(200);
    }
  });

  test("clients without an Origin, same-origin pages (/docs) and reads are not affected", async () => {
    const noOrigin = await h.request("/v2/scrape", { method: "POST", auth: null, json: { url: "not a url" } });
    expect(noOrigin.status).toBe(400);
    const sameOrigin = await h.request("/v2/scrape", { method: "POST", auth: null, json: { url: "not a url" }, headers: { origin: "http://localhost" } });
    expect(sameOrigin.status).toBe(400);
    const read = await h.request("/v2/team/credit-usage", { auth: null, headers: { origin: "https://evil.example" } });
    expect(read.status).toBe(200);
    expect(read.headers.has("access-control-allow-origin")).toBe(false);
  });
});

describe("CRAWLBOX_CORS_ORIGINS", () => {
  test("unset: any origin with authentication on, none with it off; a list of origins or *; anything else stops the server", () => {
    expect(loadConfig({}).corsOrigins).toEqual(["*"]);
    expect(loadConfig({ CRAWLBOX_AUTH: "off", HOST: "127.0.0.1" }).corsOrigins).toEqual([]);
    expect(loadConfig({ CRAWLBOX_AUTH: "off", HOST: "127.0.0.1", CRAWLBOX_CORS_ORIGINS: "https://a.example, http://localhost:5173/" }).corsOrigins).toEqual(["https://a.example", "http://localhost:5173"]);
    expect(loadConfig({ CRAWLBOX_CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
    for (const bad of ["https://a.example/app", "a.example", "ftp://a.example"]) {
      expect(() => loadConfig({ CRAWLBOX_CORS_ORIGINS: bad })).toThrow(ConfigError);
    }
  });
});
