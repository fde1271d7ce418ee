/**
 * Property-based fuzzing of every route, in-process: thousands of generated bodies (from the served OpenAPI
 * schemas) and mutated ones. Invariants: never a 5xx, never a hang, and every 4xx has the /v2 error shape.
 * The egress gate refuses every address (private network off, resolver answers loopback), so a valid body
 * ends in a quick 403 instead of touching any network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { arbitraryFor, mutated } from "../helpers/schema-arbitrary.ts";

let h: Harness;
let spec: any;

beforeAll(async () => {
  h = await createHarness({ allowPrivateNetwork: false, maxRequestBodyBytes: 256 * 1024 }, { resolver: async () => ["127.0.0.1"] });
  spec = await (await h.request("/openapi.json", { auth: null })).json();
});
afterAll(() => h.close());

const FUZZ_SEED = 20261122;
const RUNS = Number(process.env.CRAWLBOX_FUZZ_RUNS ?? 1500);

/** Status counts, to show the fuzz reaches past validation (403 from the gate) as well as failing it (400). */
const seen = new Map<number, number>();

async function checkResponse(res: Response, what: string) {
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  const text = await res.text();
  if (res.status >= 500) throw new Error(`${what} → ${res.status}: ${text.slice(0, 300)}`);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    if (res.status >= 400) throw new Error(`${what} → ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
    return;
  }
  if (res.status >= 400) {
    expect(body.success).toBe(false);
    expect(typeof body.error).toBe("string");
    if (body.code !== undefined) expect(typeof body.code).toBe("string");
  }
}

function postRoutes(): { path: string; schema: any }[] {
  const out: { path: string; schema: any }[] = [];
  for (const [path, ops] of Object.entries<any>(spec.paths)) {
    const schema = ops.post?.requestBody?.content?.["application/json"]?.schema;
    if (schema) out.push({ path, schema });
  }
  return out;
}

describe("fuzz", () => {
  test("the OpenAPI document exposes at least the scrape body", () => {
    expect(postRoutes().map((r) => r.path)).toContain("/v2/scrape");
  });

  test("generated and mutated bodies on every POST route never yield a 5xx", async () => {
    for (const { path, schema } of postRoutes()) {
      const valid = arbitraryFor(schema);
      const body = fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: mutated(valid) });
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await h.request(path, { method: "POST", json: b });
          await checkResponse(res, `POST ${path} ${JSON.stringify(b)?.slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: FUZZ_SEED, interruptAfterTimeLimit: 60_000 },
      );
    }
    console.log("fuzz status counts", Object.fromEntries(seen));
    // Both sides of validation were exercised: rejected bodies and bodies that went on to the egress gate.
    expect(seen.get(400) ?? 0).toBeGreaterThan(RUNS / 10);
    expect(seen.get(403) ?? 0).toBeGreaterThan(10);
  }, 120_000);

  test("raw byte soup, wrong content types and broken JSON never yield a 5xx", async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map((u) => new TextDecoder("latin1").decode(u)),
      fc.constantFrom("{", "[", '{"url":', "null", "true", "1e999", '{"url":"http://a.com","formats":[{"type":"json","schema":{"type":"object","additionalProperties":true}}]}'),
    );
    await fc.assert(
      fc.asyncProperty(raw, fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", ""), async (text, ct) => {
        const headers: Record<string, string> = ct ? { "content-type": ct } : {};
        const res = await h.request("/v2/scrape", { method: "POST", body: text, headers });
        await checkResponse(res, `raw ${JSON.stringify(text).slice(0, 100)}`);
      }),
      { numRuns: Math.round(RUNS / 2), seed: FUZZ_SEED },
    );
  }, 120_000);

  test("GET routes with random ids and query strings never yield a 5xx", async () => {
    const gets = Object.entries<any>(spec.paths).filter(([, ops]) => ops.get).map(([p]) => p).filter((p) => p.startsWith("/v2/"));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...gets), fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), async (path, id, q) => {
        const p = path.replace(/\{[^}]+\}|:[a-zA-Z]+/g, encodeURIComponent(id) || "x");
        const res = await h.request(`${p}?skip=${encodeURIComponent(q)}&limit=${encodeURIComponent(q)}`);
        await checkResponse(res, `GET ${p}`);
      }),
      { numRuns: Math.round(RUNS / 3), seed: FUZZ_SEED },
    );
  }, 60_000);
});
