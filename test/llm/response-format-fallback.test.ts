/**
 * OpenAI-compatible servers that refuse a `response_format` (plugins/llm/openai.ts): the same call is sent again in
 * the next form, down to none, and a form refused as such is not tried again by that provider. Through the real API;
 * a local proxy in front of the fake LLM refuses what each server refuses, in that server's words:
 * - LM Studio refuses `json_object`: `{error: "'response_format.type' must be 'json_schema' or 'text'"}`;
 * - older vLLM refuses `json_schema` with a request-validation error, `{object: "error", message: "[{… 'loc':
 *   ('body', 'response_format', 'type') …}]"}`;
 * - some proxies refuse any `response_format` (`param: "response_format"`);
 * - OpenAI refuses one schema it cannot take ("Invalid schema for response_format 'answer': …"): that says nothing
 *   of the next schema, which is still sent.
 * Before, each of these was a 503 `LLM_UNAVAILABLE` on every structured call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

type Form = "json_schema" | "json_object" | "none";

/** What a server says when it refuses `body`'s response_format; undefined when it takes it. */
type Refusal = (body: any) => { status: number; body: unknown } | undefined;

const form = (body: any): Form => body.response_format?.type ?? "none";

const SERVERS: Record<string, Refusal> = {
  "LM Studio (no json_object)": (b) => (form(b) === "json_object" ? { status: 400, body: { error: "'response_format.type' must be 'json_schema' or 'text'" } } : undefined),
  "older vLLM (no json_schema)": (b) =>
    form(b) === "json_schema"
      ? {
          status: 400,
          body: {
            object: "error",
            message: `[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema'}]`,
            type: "BadRequestError",
            param: null,
            code: 400,
          },
        }
      : undefined,
  "a proxy (no response_format at all)": (b) =>
    form(b) !== "none" ? { status: 400, body: { error: { message: "Unrecognized request argument supplied: response_format", type: "invalid_request_error", param: "response_format", code: null } } } : undefined,
};

/** The forms each server's calls go through: two without a schema, then two with one, on one provider. */
const EXPECTED: Record<string, { noSchema: Form[][]; schema: Form[][] }> = {
  "LM Studio (no json_object)": { noSchema: [["json_object", "json_schema"], ["json_schema"]], schema: [["json_schema"], ["json_schema"]] },
  "older vLLM (no json_schema)": { noSchema: [["json_object"], ["json_object"]], schema: [["json_schema", "json_schema", "json_object"], ["json_object"]] },
  // Both types were refused by the calls without a schema: the calls with one go without at once.
  "a proxy (no response_format at all)": { noSchema: [["json_object", "json_schema", "none"], ["none"]], schema: [["none"], ["none"]] },
};

const SCHEMA = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };

let site: PageSite;
let llm: FakeLlm;
let refusal: Refusal = () => undefined;
/** The response_format of every request the proxy saw. */
const seen: Form[] = [];
let proxy: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  site = startPageSite();
  site.set("/product", page("Blue Kettle", "The Blue Kettle costs 24.50 euros."));
  llm = startFakeLlm();
  llm.respond = () => ({ content: JSON.stringify({ title: "Blue Kettle" }) });
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = (await req.json()) as any;
      seen.push(form(body));
      const refused = refusal(body);
      if (refused) return Response.json(refused.body, { status: refused.status });
      return fetch(`${llm.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    },
  });
});
afterAll(() => {
  site.stop();
  llm.stop();
  proxy.stop(true);
});

for (const [name, refuses] of Object.entries(SERVERS)) {
  describe(name, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ openaiBaseUrl: `http://127.0.0.1:${proxy.port}/v1`, modelName: "test-model" });
    });
    afterAll(() => h.close());

    const scrape = async (format: Record<string, unknown>) => {
      seen.length = 0;
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, formats: [format], maxAge: 0 } });
      const body = (await res.json()) as any;
      return { status: res.status, code: body.code, json: body.data?.json, forms: [...seen] };
    };

    test("json without a schema, then with one: answered, and the refused form is not tried again", async () => {
      refusal = refuses;
      const noSchema = { type: "json", prompt: "The product's title" };
      const withSchema = { type: "json", schema: SCHEMA };
      const results = [await scrape(noSchema), await scrape(noSchema), await scrape(withSchema), await scrape(withSchema)];
      for (const r of results) expect({ status: r.status, code: r.code, json: r.json }).toEqual({ status: 200, code: undefined, json: { title: "Blue Kettle" } });
      expect(results.map((r) => r.forms)).toEqual([...EXPECTED[name]!.noSchema, ...EXPECTED[name]!.schema]);
    });
  });
}

describe("a schema the server refuses (OpenAI's words)", () => {
  test("that call falls back to any JSON object; the next schema is still sent as a schema", async () => {
    refusal = (b) =>
      JSON.stringify(b.response_format?.json_schema?.schema ?? {}).includes('"pattern"')
        ? { status: 400, body: { error: { message: "Invalid schema for response_format 'answer': In context=('properties', 'title'), 'pattern' is not permitted.", type: "invalid_request_error", param: "response_format", code: null } } }
        : undefined;
    const h = await createHarness({ openaiBaseUrl: `http://127.0.0.1:${proxy.port}/v1`, modelName: "test-model" });
    try {
      const run = async (schema: Record<string, unknown>) => {
        seen.length = 0;
        const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, formats: [{ type: "json", schema }], maxAge: 0 } });
        return { status: res.status, json: ((await res.json()) as any).data?.json, forms: [...seen] };
      };
      const patterned = { type: "object", properties: { title: { type: "string", pattern: "^[A-Z]" } }, required: ["title"] };
      expect(await run(patterned)).toEqual({ status: 200, json: { title: "Blue Kettle" }, forms: ["json_schema", "json_schema"] });
      expect(await run(SCHEMA)).toEqual({ status: 200, json: { title: "Blue Kettle" }, forms: ["json_schema"] });
      expect(llm.requests.at(-1)!.schema).toEqual(SCHEMA);
    } finally {
      await h.close();
    }
  });
});
