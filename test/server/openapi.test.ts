/**
 * The OpenAPI document at `/openapi.json` is a valid OpenAPI 3.1 document (checked by a real validator, the
 * @seriousme/openapi-schema-validator dev dependency, which applies the 3.1 JSON schema, plus the rules that schema
 * cannot express: operationIds unique across the document, path templates whose variables are declared path
 * parameters). Clients generate code from it, and a generator stops at the first of these errors. Also: the Swagger
 * UI at `/docs/` (trailing slash) finds that document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** The operations' keys a 3.1 Path Item may hold (OpenAPI 3.1.0 §4.8.9). */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type Operation = { operationId?: string; description?: string; parameters?: { name: string; in: string }[] };
type Doc = { openapi: string; paths: Record<string, Record<string, unknown>> };

let h: Harness;
let doc: Doc;
beforeAll(async () => {
  h = await createHarness();
  doc = (await (await h.request("/openapi.json", { auth: null })).json()) as Doc;
});
afterAll(() => h.close());

/** Every operation of the document with its path and method. */
function operations(): { path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([k]) => METHODS.includes(k)).map(([method, op]) => ({ path, method, op: op as Operation })),
  );
}

describe("/openapi.json", () => {
  test("validates against the OpenAPI 3.1 schema", async () => {
    const validator = new Validator();
    // The document is passed as a copy: the validator annotates what it is given.
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("path items hold only the 3.1 keys: no `ws` operation for the WebSocket routes", () => {
    const allowed = new Set([...METHODS, "$ref", "summary", "description", "servers", "parameters"]);
    const bad = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => !allowed.has(k) && !k.startsWith("x-")).map((k) => `${path} ${k}`));
    expect(bad).toEqual([]);
  });

  test("operationIds are unique (OpenAPI 3.1.0 §4.8.10: 'The id MUST be unique among all operations')", () => {
    const seen = new Map<string, string>();
    const dupes: string[] = [];
    for (const { path, method, op } of operations()) {
      if (!op.operationId) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (seen.has(op.operationId)) dupes.push(`${op.operationId}: ${seen.get(op.operationId)} and ${where}`);
      else seen.set(op.operationId, where);
    }
    expect(dupes).toEqual([]);
  });

  test("paths are templates: no `*` or `:param`, and each {variable} is a declared path parameter", () => {
    const bad: string[] = [];
    for (const { path, method, op } of operations()) {
      if (/[*:]/.test(path)) bad.push(`${path}: not a template`);
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!op.parameters?.some((p) => p.in === "path" && p.name === name)) bad.push(`${method} ${path}: {${name}} undeclared`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("the job status GETs say they also take a WebSocket upgrade", () => {
    for (const path of ["/v2/crawl/{id}", "/v2/batch/scrape/{id}", "/v1/crawl/{id}"]) {
      const get = doc.paths[path]?.get as Operation | undefined;
      expect(get).toBeDefined();
      expect(get!.description ?? "").toContain("WebSocket");
    }
  });

  test("the Exchange routes are documented once per method, and still answer every method", async () => {
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/v2/exchange")).sort()).toEqual(["/v2/exchange", "/v2/exchange/{path}"]);
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const res = await h.request("/v2/exchange/a/b", { method });
      expect(res.status).toBe(403);
    }
  });
});

describe("/docs", () => {
  test("/docs/ (trailing slash) loads the same document: its spec URL resolves to /openapi.json", async () => {
    for (const page of ["/docs", "/docs/"]) {
      const res = await h.request(page, { auth: null, redirect: "manual" });
      let base = new URL(page, "http://localhost");
      let html: string;
      if (res.status >= 300 && res.status < 400) {
        // A redirect must be relative too, so it keeps working under a path-prefix proxy.
        const location = res.headers.get("location")!;
        expect(location).not.toMatch(/^[a-z]+:/i);
        base = new URL(location, base);
        const next = await h.request(base.pathname, { auth: null });
        expect(next.status).toBe(200);
        html = await next.text();
      } else {
        expect(res.status).toBe(200);
        html = await res.text();
      }
      const url = /"url"\s*:\s*"([^"]+)"/.exec(html)?.[1];
      expect(url).toBeDefined();
      const spec = new URL(url!, base);
      expect(spec.pathname).toBe("/openapi.json");
      expect((await h.request(spec.pathname, { auth: null })).status).toBe(200);
    }
  });

  test("behind a path-prefix proxy (/crawlbox/docs/), the page still names a document under the prefix", async () => {
    // The proxy strips /crawlbox; the browser resolves what the page and any redirect say against /crawlbox/docs/.
    const res = await h.request("/docs/", { auth: null, redirect: "manual" });
    let base = new URL("http://proxy.example/crawlbox/docs/");
    let html: string;
    if (res.status >= 300 && res.status < 400) {
      base = new URL(res.headers.get("location")!, base);
      expect(base.pathname).toBe("/crawlbox/docs");
      html = await (await h.request(base.pathname.replace(/^\/crawlbox/, ""), { auth: null })).text();
    } else {
      html = await res.text();
    }
    const url = /"url"\s*:\s*"([^"]+)"/.exec(html)![1]!;
    expect(new URL(url, base).pathname).toBe("/crawlbox/openapi.json");
  });
});
