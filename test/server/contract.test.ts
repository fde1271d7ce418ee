import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: FixtureSite;
let h: Harness;

beforeAll(async () => {
  site = startFixtureSite();
  // Without the browser engine: this file pins what a build without Chromium answers (400s for browser options).
  h = await createHarness({ maxRequestBodyBytes: 64 * 1024, browserEnabled: false });
});
afterAll(async () => {
  await h.close();
  site.stop();
});

async function post(path: string, body: unknown, init: { auth?: string | null; raw?: string } = {}) {
  const res = await h.request(path, {
    method: "POST",
    ...(init.raw !== undefined ? { body: init.raw, headers: { "content-type": "application/json" } } : { json: body }),
    auth: init.auth,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe("authentication", () => {
  test("missing key → 401 Unauthorized with WWW-Authenticate", async () => {
    const r = await post("/v2/scrape", { url: `${site.url}/article` }, { auth: null });
    expect(r.status).toBe(401);
    expect(r.body.success).toBe(false);
    expect(r.body.error).toBe("Unauthorized");
    expect(r.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("unknown key and malformed header → 401", async () => {
    expect((await post("/v2/scrape", { url: `${site.url}/article` }, { auth: "fc-nope" })).status).toBe(401);
    const res = await h.app.handle(new Request("http://localhost/v2/team/credit-usage", { headers: { authorization: "Basic abc" } }));
    expect(res.status).toBe(401);
  });

  test("401 comes before body validation", async () => {
    const r = await post("/v2/scrape", { bogus: 1 }, { auth: null });
    expect(r.status).toBe(401);
  });

  test("every /v2 GET route needs a key", async () => {
    for (const path of ["/v2/team/credit-usage", "/v2/team/token-usage", "/v2/concurrency-check", "/v2/team/queue-status", "/v2/scrape/abc"]) {
      const res = await h.request(path, { auth: null });
      expect(res.status).toBe(401);
    }
  });

  test("CRAWLBOX_AUTH=off accepts requests without a key", async () => {
    const open = await createHarness({ authEnabled: false });
    try {
      const res = await open.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/article` }, auth: null });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe("strict bodies and bad input", () => {
  test("unknown keys → 400 BAD_REQUEST naming the key", async () => {
    const r = await post("/v2/scrape", { url: `${site.url}/article`, bogusOption: true });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: "BAD_REQUEST" });
    expect(JSON.stringify(r.body.details)).toContain("bogusOption");
  });

  test("origin and integration are accepted", async () => {
    const r = await post("/v2/scrape", { url: `${site.url}/article`, origin: "js-sdk@4.0.0", integration: "langchain" });
    expect(r.status).toBe(200);
  });

  test("malformed JSON → 400 BAD_REQUEST_INVALID_JSON", async () => {
    const r = await post("/v2/scrape", undefined, { raw: '{"url": "http://x.com",' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" });
  });

  test("a __proto__ key at any depth → 400 naming it (its fields were read as options past the strict schema)", async () => {
    for (const raw of [`{"url":"${site.url}/article","__proto__":{"formats":["html"]}}`, `{"url":"${site.url}/article","location":{"__proto__":{"country":"DE"}}}`]) {
      const r = await post("/v2/scrape", undefined, { raw });
      expect(r.status).toBe(400);
      expect(r.body.details[0].keys).toEqual(["__proto__"]);
    }
    // The text "__proto__" inside a value is only text.
    expect((await post("/v2/scrape", { url: `${site.url}/article?q=__proto__`, formats: ["markdown"] })).status).toBe(200);
  });

  test("an oversized body → 413 in the error shape", async () => {
    const r = await post("/v2/scrape", { url: `${site.url}/article`, headers: { x: "a".repeat(100 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.body.success).toBe(false);
    expect(r.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("wrong types, bounds and URLs → 400", async () => {
    const cases: unknown[] = [
      {},
      { url: 42 },
      { url: "ftp://example.com/file" },
      { url: `${site.url}/article`, timeout: 10 },
      { url: `${site.url}/article`, formats: ["nope"] },
      { url: `${site.url}/article`, formats: "markdown" },
      { url: `${site.url}/article`, waitFor: 20000, timeout: 30000 },
      { url: `${site.url}/article`, formats: ["changeTracking"] },
    ];
    for (const body of cases) {
      const r = await post("/v2/scrape", body);
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
      expect(typeof r.body.error).toBe("string");
    }
  });

  test("without a browser (CRAWLBOX_BROWSER=off), browser-only options are refused with a clear 400, never ignored", async () => {
    const noBrowser = await createHarness({ browserEnabled: false });
    try {
      const before = site.hits.get("/article") ?? 0;
      const send = async (body: unknown) => {
        const res = await noBrowser.request("/v2/scrape", { method: "POST", json: body });
        return { status: res.status, body: (await res.json()) as any };
      };
      const a = await send({ url: `${site.url}/article`, actions: [{ type: "wait", milliseconds: 10 }] });
      expect(a.status).toBe(400);
      expect(a.body.code).toBe("SCRAPE_ACTIONS_NOT_SUPPORTED");
      const w = await send({ url: `${site.url}/article`, waitFor: 100 });
      expect(w.status).toBe(400);
      expect(w.body.code).toBe("SCRAPE_BROWSER_REQUIRED");
      expect(w.body.error).toContain("waitFor");
      const m = await send({ url: `${site.url}/article`, mobile: true });
      expect(m.body.code).toBe("SCRAPE_BROWSER_REQUIRED");
      const s = await send({ url: `${site.url}/article`, formats: ["screenshot"] });
      expect(s.status).toBe(400);
      expect(s.body.code).toBe("SCRAPE_UNSUPPORTED_FORMAT");
      expect(s.body.error).toContain("screenshot");
      expect(site.hits.get("/article") ?? 0).toBe(before);
    } finally {
      await noBrowser.close();
    }
  });

  test("unknown routes → 404 in the error shape", async () => {
    const res = await h.request("/v2/nope");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).success).toBe(false);
  });
});

describe("credits and account routes", () => {
  test("a key with a quota gets 402 once it is spent; usage routes report it", async () => {
    const { key } = h.services.keys.create("quota", 2);
    expect((await post("/v2/scrape", { url: `${site.url}/article` }, { auth: key })).status).toBe(200);
    expect((await post("/v2/scrape", { url: `${site.url}/article`, formats: ["links"] }, { auth: key })).status).toBe(200);
    const third = await post("/v2/scrape", { url: `${site.url}/article` }, { auth: key });
    expect(third.status).toBe(402);
    expect(third.body.success).toBe(false);
    const usage = (await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any;
    expect(usage).toMatchObject({ success: true, data: { remainingCredits: 0, planCredits: 2, creditsUsed: 2 } });
    const hist = (await (await h.request("/v2/team/credit-usage/historical?byApiKey=true", { auth: key })).json()) as any;
    expect(hist.success).toBe(true);
    expect(hist.periods[0].creditsUsed).toBe(2);
    expect(hist.periods[0].apiKey).toStartWith("key_");
  });

  test("concurrent scrapes cannot all pass the quota on the same last credits", async () => {
    const { key } = h.services.keys.create("race", 2);
    // Five at once, each waiting on a slow page: before holds, all five passed the check and five credits were spent.
    const statuses = await Promise.all(Array.from({ length: 5 }, (_, i) => post("/v2/scrape", { url: `${site.url}/slow?ms=300&i=${i}`, maxAge: 0 }, { auth: key }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(2);
    expect(statuses.filter((s) => s === 402).length).toBe(3);
    const usage = (await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any;
    expect(usage.data).toMatchObject({ creditsUsed: 2, remainingCredits: 0 });
    // A failed scrape gives its hold back: the credits are there for the next request.
    const { key: other } = h.services.keys.create("race-failed", 1);
    expect((await post("/v2/scrape", { url: "http://crawlbox-no-such-host.invalid/", maxAge: 0 }, { auth: other })).body.code).toBe("SCRAPE_DNS_RESOLUTION_ERROR");
    expect((await post("/v2/scrape", { url: `${site.url}/article`, maxAge: 0 }, { auth: other })).status).toBe(200);
  });

  test("token usage, concurrency and queue status have the SDK's shapes", async () => {
    const tokens = (await (await h.request("/v2/team/token-usage")).json()) as any;
    expect(tokens.success).toBe(true);
    expect(typeof tokens.data.remainingTokens).toBe("number");
    const conc = (await (await h.request("/v2/concurrency-check")).json()) as any;
    expect(conc).toMatchObject({ success: true, concurrency: 0, maxConcurrency: h.services.config.maxConcurrency + h.services.config.jobConcurrency });
    const q = (await (await h.request("/v2/team/queue-status")).json()) as any;
    expect(q).toMatchObject({ success: true, jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0 });
    expect(q.mostRecentSuccess === null || typeof q.mostRecentSuccess === "string").toBe(true);
  });
});

describe("health and docs", () => {
  test("GET /health is 200 without a key", async () => {
    const res = await h.request("/health", { auth: null });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).status).toBe("ok");
  });

  test("OpenAPI 3.1 document lists the routes with the scrape body schema", async () => {
    const res = await h.request("/openapi.json", { auth: null });
    expect(res.status).toBe(200);
    const spec = (await res.json()) as any;
    expect(spec.openapi).toStartWith("3.1");
    expect(spec.paths["/v2/scrape"].post).toBeDefined();
    expect(spec.paths["/v2/team/credit-usage"].get).toBeDefined();
    const schema = spec.paths["/v2/scrape"].post.requestBody.content["application/json"].schema;
    expect(schema.properties.url).toBeDefined();
    expect(schema.additionalProperties).toBe(false);
  });

  test("the docs UI is served offline: its assets come from this server, not a CDN", async () => {
    const page = await (await h.request("/docs", { auth: null })).text();
    expect(page).toContain("/docs-assets/swagger-ui-bundle.js");
    expect(page).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const js = await h.request("/docs-assets/swagger-ui-bundle.js", { auth: null });
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(100_000);
    expect((await h.request("/docs-assets/swagger-ui.css", { auth: null })).status).toBe(200);
  });
});

describe("egress through the API", () => {
  test("private targets are refused with 403 EGRESS_DENIED and never contacted; DNS failures answer 200 success:false", async () => {
    const closed = await createHarness(
      { allowPrivateNetwork: false },
      {
        resolver: async (host) => {
          if (host === "rebind.test") return ["127.0.0.1"];
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
        },
      },
    );
    try {
      const before = site.hits.get("/article") ?? 0;
      const port = new URL(site.url).port;
      for (const url of [`${site.url}/article`, `http://[::1]:${port}/article`, `http://[::ffff:127.0.0.1]:${port}/article`, `http://rebind.test:${port}/article`, "http://169.254.169.254/latest/meta-data", "http://10.0.0.1/", "http://172.16.0.5/"]) {
        const res = await closed.request("/v2/scrape", { method: "POST", json: { url } });
        const body = (await res.json()) as any;
        expect(res.status).toBe(403);
        expect(body).toMatchObject({ success: false, code: "EGRESS_DENIED" });
      }
      // A hex-integer host is already refused by the URL rules (no TLD, not a dotted IP): 400 before any fetch.
      const hex = await closed.request("/v2/scrape", { method: "POST", json: { url: `http://0x7f000001:${port}/article` } });
      expect(hex.status).toBe(400);
      expect(site.hits.get("/article") ?? 0).toBe(before);
      const dns = await closed.request("/v2/scrape", { method: "POST", json: { url: "http://no-such-host.test/" } });
      expect(dns.status).toBe(200);
      expect(((await dns.json()) as any)).toMatchObject({ success: false, code: "SCRAPE_DNS_RESOLUTION_ERROR" });
    } finally {
      await closed.close();
    }
  });
});
