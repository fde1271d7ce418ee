/**
 * robots.txt fetching and caching through the real HTTP engine and egress gate (reliability.md B5, RFC 9309
 * §2.3–2.5): 2xx parsed, 4xx allow all, 5xx/network/timeout disallow all, redirects followed, loops
 * "unavailable", 24 h cache on an injected clock, shorter cache for errors, ≥ 500 KiB parsed, one fetch per
 * origin under concurrency, LRU bound, and a refused egress never reaching the server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { RobotsCache, ROBOTS_TTL_MS, DEFAULT_ERROR_TTL_MS } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";

let gate: EgressGate;
let engine: Engine;
let server: FixtureServer;
let handler: (req: Request) => Response | Promise<Response>;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
  server = startCountingServer((req) => handler(req));
});
afterAll(async () => {
  await server.stop();
  await gate.close();
});
afterEach(() => {
  server.hits = 0;
  server.paths.length = 0;
});

const text = (body: string, status = 200) => new Response(body, { status, headers: { "content-type": "text/plain" } });
const clock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};
const A = ["FireCrawlAgent"];

describe("RobotsCache status handling", () => {
  test("2xx: parsed, sitemaps and crawl-delay exposed", async () => {
    handler = () => text(`User-agent: *\nDisallow: /private\nCrawl-delay: 3\nSitemap: ${server.url}/sm.xml`);
    const e = await new RobotsCache({ engine }).get(`${server.url}/any/page?x=1`);
    expect(e.status).toBe("ok");
    expect(e.statusCode).toBe(200);
    expect(e.robotsUrl).toBe(`${server.url}/robots.txt`);
    expect(e.isAllowed(`${server.url}/private/x`, A)).toBe(false);
    expect(e.isAllowed(`${server.url}/public`, A)).toBe(true);
    expect(e.crawlDelaySeconds(A)).toBe(3);
    expect(e.sitemaps).toEqual([`${server.url}/sm.xml`]);
    expect(server.paths).toEqual(["/robots.txt"]);
  });

  for (const status of [400, 401, 403, 404, 410, 429]) {
    test(`${status}: unavailable → allow everything`, async () => {
      handler = () => text("User-agent: *\nDisallow: /", status);
      const e = await new RobotsCache({ engine }).get(server.url);
      expect(e.status).toBe("unavailable");
      expect(e.statusCode).toBe(status);
      expect(e.isAllowed(`${server.url}/x`, A)).toBe(true);
    });
  }

  for (const status of [500, 502, 503]) {
    test(`${status}: unreachable → disallow everything`, async () => {
      handler = () => text("User-agent: *\nAllow: /", status);
      const e = await new RobotsCache({ engine }).get(server.url);
      expect(e.status).toBe("unreachable");
      expect(e.isAllowed(`${server.url}/x`, A)).toBe(false);
      expect(e.isAllowed(`${server.url}/`, A)).toBe(false);
    });
  }

  test("timeout: unreachable with SCRAPE_TIMEOUT", async () => {
    handler = async () => {
      await Bun.sleep(1000);
      return text("User-agent: *\nAllow: /");
    };
    const e = await new RobotsCache({ engine, timeoutMs: 150 }).get(server.url);
    expect(e.status).toBe("unreachable");
    expect(e.errorCode).toBe("SCRAPE_TIMEOUT");
    expect(e.isAllowed(`${server.url}/x`, A)).toBe(false);
  });

  test("connection refused: unreachable", async () => {
    const dead = startCountingServer(() => text(""));
    const url = dead.url;
    await dead.stop();
    const e = await new RobotsCache({ engine }).get(url);
    expect(e.status).toBe("unreachable");
    expect(e.errorCode).toBeString();
  });

  test("a chain of 5 redirects is followed", async () => {
    handler = (req) => {
      const p = new URL(req.url).pathname;
      if (p === "/robots.txt") return Response.redirect(`${server.url}/r/5`, 301);
      const n = Number(p.split("/").pop());
      return n > 0 ? Response.redirect(`${server.url}/r/${n - 1}`, 302) : text("User-agent: *\nDisallow: /moved");
    };
    const e = await new RobotsCache({ engine }).get(server.url);
    expect(e.status).toBe("ok");
    expect(e.isAllowed(`${server.url}/moved`, A)).toBe(false);
    expect(server.hits).toBe(7);
  });

  test("a redirect loop or too many redirects: unavailable → allow", async () => {
    handler = (req) => (new URL(req.url).pathname === "/robots.txt" ? Response.redirect(`${server.url}/a`, 302) : Response.redirect(`${server.url}/robots.txt`, 302));
    const loop = await new RobotsCache({ engine }).get(server.url);
    expect(loop.status).toBe("unavailable");
    expect(loop.isAllowed(`${server.url}/x`, A)).toBe(true);
    let n = 0;
    handler = () => Response.redirect(`${server.url}/hop/${++n}`, 302);
    const many = await new RobotsCache({ engine }).get(server.url);
    expect(many.status).toBe("unavailable");
  });

  test("only the first 500 KiB are parsed (cut at a line)", async () => {
    const filler = `# ${"x".repeat(1000)}\n`.repeat(520);
    handler = () => text(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    const e = await new RobotsCache({ engine }).get(server.url);
    expect(e.status).toBe("ok");
    expect(e.isAllowed(`${server.url}/early`, A)).toBe(false);
    expect(e.isAllowed(`${server.url}/late`, A)).toBe(true);
  });

  test("a rule just inside 500 KiB still counts", async () => {
    const filler = `# ${"x".repeat(1000)}\n`.repeat(495);
    handler = () => text(`User-agent: *\n${filler}Disallow: /inside\n`);
    const e = await new RobotsCache({ engine }).get(server.url);
    expect(e.isAllowed(`${server.url}/inside`, A)).toBe(false);
  });

  test("a body over the fetch cap is unreachable", async () => {
    handler = () => text("#".repeat(6 * 1024 * 1024));
    const e = await new RobotsCache({ engine }).get(server.url);
    expect(e.status).toBe("unreachable");
    expect(e.errorCode).toBe("SCRAPE_RESPONSE_TOO_LARGE");
  });
});

describe("RobotsCache caching", () => {
  test("24 h TTL on the injected clock", async () => {
    handler = () => text("User-agent: *\nDisallow: /x");
    const c = clock();
    const cache = new RobotsCache({ engine, now: c.now });
    await cache.get(server.url);
    c.advance(ROBOTS_TTL_MS - 1);
    await cache.get(`${server.url}/other`);
    expect(server.hits).toBe(1);
    c.advance(1);
    expect(cache.peek(server.url)).toBeUndefined();
    await cache.get(server.url);
    expect(server.hits).toBe(2);
  });

  test("unreachable answers are retried after the error TTL", async () => {
    let status = 503;
    handler = () => text("User-agent: *\nDisallow: /x", status);
    const c = clock();
    const cache = new RobotsCache({ engine, now: c.now });
    expect((await cache.get(server.url)).status).toBe("unreachable");
    c.advance(DEFAULT_ERROR_TTL_MS - 1);
    expect((await cache.get(server.url)).status).toBe("unreachable");
    expect(server.hits).toBe(1);
    status = 200;
    c.advance(1);
    expect((await cache.get(server.url)).status).toBe("ok");
    expect(server.hits).toBe(2);
  });

  test("concurrent lookups of one origin share one fetch", async () => {
    handler = async () => {
      await Bun.sleep(50);
      return text("User-agent: *\nDisallow: /x");
    };
    const cache = new RobotsCache({ engine });
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.get(`${server.url}/p${i}`)));
    expect(new Set(all).size).toBe(1);
    expect(server.hits).toBe(1);
  });

  test("entries are per origin; the oracle answers only for known origins", async () => {
    handler = () => text("User-agent: *\nDisallow: /x");
    const other = startCountingServer(() => text("User-agent: *\nDisallow: /y"));
    try {
      const cache = new RobotsCache({ engine });
      expect(cache.isAllowed(`${server.url}/x`, A)).toBeUndefined();
      const e = await cache.get(server.url);
      expect(e.isAllowed(`${other.url}/x`, A)).toBeUndefined();
      expect(cache.isAllowed(`${server.url}/x`, A)).toBe(false);
      expect(cache.isAllowed(`${other.url}/y`, A)).toBeUndefined();
      await cache.get(other.url);
      expect(cache.isAllowed(`${other.url}/y`, A)).toBe(false);
      expect(cache.isAllowed(`${other.url}/x`, A)).toBe(true);
      expect(cache.size).toBe(2);
    } finally {
      await other.stop();
    }
  });

  test("LRU bound on origins", async () => {
    handler = () => text("");
    const servers = [0, 1, 2].map(() => startCountingServer(() => text("")));
    try {
      const cache = new RobotsCache({ engine, maxEntries: 2 });
      for (const s of servers) await cache.get(s.url);
      expect(cache.size).toBe(2);
      expect(cache.peek(servers[0]!.url)).toBeUndefined();
      expect(cache.peek(servers[2]!.url)).toBeDefined();
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  test("a caller's abort rejects that caller only", async () => {
    handler = async () => {
      await Bun.sleep(100);
      return text("User-agent: *\nDisallow: /x");
    };
    const cache = new RobotsCache({ engine });
    const ac = new AbortController();
    const a = cache.get(server.url, ac.signal);
    const b = cache.get(server.url);
    ac.abort(new Error("gone"));
    await expect(a).rejects.toThrow("gone");
    expect((await b).status).toBe("ok");
  });

  test("options are validated", () => {
    expect(() => new RobotsCache({ engine, ttlMs: 0 })).toThrow(TypeError);
    expect(() => new RobotsCache({} as never)).toThrow(TypeError);
  });
});

describe("RobotsCache through a refusing egress gate", () => {
  test("a private target is never contacted and counts as unreachable", async () => {
    const strict = await createEgressGate({ allowPrivateNetwork: false });
    try {
      handler = () => text("");
      const e = await new RobotsCache({ engine: createHttpEngine({ gate: strict }) }).get(server.url);
      expect(e.status).toBe("unreachable");
      expect(e.errorCode).toBe("EGRESS_DENIED");
      expect(server.hits).toBe(0);
    } finally {
      await strict.close();
    }
  });
});
