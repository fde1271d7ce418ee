/**
 * Pins down how Elysia 1.4.30 treats a TypeBox `body:` schema, which decides how the server validates
 * (see the module comment of src/api/validate.ts): default `normalize` silently strips unknown keys even with
 * `additionalProperties: false`; `normalize: false` rejects them; both apply defaults; errors reach `onError`
 * as `code === "VALIDATION"` with TypeBox errors in `.all`, which `issuesFromValidationError` maps.
 */
import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { openapi } from "@elysiajs/openapi";
import {
  issuesFromValidationError, badRequest, UNRECOGNIZED_KEY_MESSAGE, ScrapeRequestSchema, CrawlRequestSchema,
  BatchScrapeRequestSchema, MapRequestSchema, SearchRequestSchema, ExtractRequestSchema, AgentRequestSchema,
  CrawlParamsPreviewSchema, ScrapeResponseSchema, ErrorEnvelopeSchema, strictObject, Int,
} from "../../src/api/index.ts";

const Body = strictObject({ url: t.String(), n: t.Optional(Int({ minimum: 1, default: 5 })) });

function app(normalize: boolean) {
  return new Elysia({ normalize })
    .onError(({ code, error }) => {
      if (code !== "VALIDATION") return;
      const e = badRequest(issuesFromValidationError(error));
      return new Response(JSON.stringify(e.toBody()), { status: e.status, headers: { "content-type": "application/json" } });
    })
    .post("/x", ({ body }) => body, { body: Body });
}

const post = (a: ReturnType<typeof app>, body: unknown) =>
  a.handle(new Request("http://localhost/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

describe("Elysia body validation (1.4.30)", () => {
  test("defaults are applied in both modes", async () => {
    for (const n of [true, false]) expect(await (await post(app(n), { url: "u" })).json()).toEqual({ url: "u", n: 5 });
  });

  test("default normalize silently strips unknown keys despite additionalProperties:false", async () => {
    const r = await post(app(true), { url: "u", extra: 1 });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ url: "u", n: 5 });
  });

  test("normalize:false rejects unknown keys; the error maps to our 400 envelope naming the key", async () => {
    const r = await post(app(false), { url: "u", extra: 1 });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      success: false, code: "BAD_REQUEST", error: UNRECOGNIZED_KEY_MESSAGE,
      details: [{ code: "unrecognized_keys", keys: ["extra"], path: [], message: UNRECOGNIZED_KEY_MESSAGE }],
    });
  });

  test("bounds errors map to zod-shaped issues", async () => {
    const r = await post(app(false), { url: "u", n: 0 });
    expect((await r.json()).details).toEqual([{ code: "too_small", path: ["n"], message: "Number must be greater than or equal to 1" }]);
  });

  test("Elysia's own t.Integer accepts numeric strings (why the models use Int)", () => {
    expect(JSON.stringify(t.Integer())).toContain("anyOf");
    expect(JSON.stringify(Int())).toBe('{"type":"integer"}');
  });
});

describe("OpenAPI export", () => {
  test("every request and response schema exports into a JSON OpenAPI 3.x document", async () => {
    const bodies = {
      "/v2/scrape": ScrapeRequestSchema, "/v2/crawl": CrawlRequestSchema, "/v2/batch/scrape": BatchScrapeRequestSchema,
      "/v2/map": MapRequestSchema, "/v2/search": SearchRequestSchema, "/v2/extract": ExtractRequestSchema,
      "/v2/agent": AgentRequestSchema, "/v2/crawl/params-preview": CrawlParamsPreviewSchema,
    };
    let a: Elysia<any> = new Elysia({ normalize: false }).use(openapi({ path: "/openapi" }));
    for (const [path, body] of Object.entries(bodies)) {
      a = a.post(path, (() => ({ success: true })) as never, { body, response: { 200: ScrapeResponseSchema, 400: ErrorEnvelopeSchema } }) as never;
    }
    const r = await a.handle(new Request("http://localhost/openapi/json"));
    expect(r.status).toBe(200);
    const doc = (await r.json()) as { openapi: string; paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } }> };
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of Object.keys(bodies)) {
      const schema = doc.paths[path]!.post.requestBody.content["application/json"]!.schema;
      expect(schema["additionalProperties"]).toBe(false);
      expect(Object.keys(schema["properties"] as object)).toContain("origin");
    }
  });
});
