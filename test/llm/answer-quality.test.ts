/**
 * What the `json` format gives back when the model or its server is less than perfect (llm/client.ts, chunk-run.ts,
 * merge-answers.ts, schema.ts, coerce-scalars.ts, relaxed-schema.ts, retry.ts; plugins/formats/json.ts), through the
 * real API against the local fake LLM (both protocols where the provider matters):
 * - a long page on a server that constrains output to the schema sent (Ollama's `format`, vLLM, LM Studio): its
 *   parts are sent the nullable schema, and each field comes from the first part that gives it — not 0/false from
 *   the part with the most content;
 * - a 5xx is retried within the scrape, and a part that still fails keeps the parts answered before it;
 * - list items that parts give with different gaps are merged, different items are not;
 * - a page without text is not sent to the model;
 * - JSON among prose with brackets is read without a repair turn; numbers and booleans written as text are read as
 *   such (never null or "" as 0), and a problem left is worded in the caller's schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { mergeAnswers } from "../../src/llm/chunk.ts";
import { parseJsonAnswer } from "../../src/llm/schema.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "./fake-llm.ts";

/** A context small enough that the long page takes several parts. */
const CONTEXT_TOKENS = 4096;
const PRODUCT_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    price: { type: "number" },
    inStock: { type: "boolean" },
    reviews: { type: "array", items: { type: "object", properties: { author: { type: "string" }, rating: { type: "integer" } }, required: ["author", "rating"] } },
  },
  required: ["name", "price", "inStock"],
};
const SIMPLE_SCHEMA = { type: "object", properties: { name: { type: "string" }, price: { type: "number" }, inStock: { type: "boolean" } }, required: ["name", "price"] };
const SPEC_LINES = Array.from({ length: 120 }, (_, i) => `Spec line ${i}: the upper is made of recycled mesh and the midsole of a soft foam compound tuned for long days on rough ground.`);
const REVIEWS = Array.from({ length: 12 }, (_, i) => `Review by Reviewer${i}: rating ${1 + (i % 5)} of 5. Comfortable and grippy on wet rock, runs a bit small.`);

let site: PageSite;
let llm: FakeLlm;

beforeAll(() => {
  site = startPageSite();
  // The product's own facts open the page; the reviews (the most content of any part) close it.
  site.set("/long", page("Trail Runner X", "Price: $129.99", "In stock.", ...SPEC_LINES, ...REVIEWS));
  site.set("/short", page("Kettle", "The Kettle costs 25 EUR."));
  site.set("/image-only", `<html><head><title>Gallery</title></head><body><main><img src="/hero.png"><hr></main></body></html>`);
  llm = startFakeLlm();
});
afterAll(() => {
  site.stop();
  llm.stop();
});

/** The page content of a request (what is between the markers). */
const pageOf = (r: LlmRequestLog) => r.messages.map((m) => m.content).join("\n").split("<<<PAGE_CONTENT").at(-1) ?? "";
/** Which part of a long page a request asks about (1-based; 1 for a page of one part). */
const partOf = (r: LlmRequestLog) => Number(/this is part (\d+)\./.exec(r.messages.map((m) => m.content).join("\n"))?.[1] ?? 1);

/**
 * A model whose answer the server constrains to the schema it was sent (Ollama's grammar-constrained `format`,
 * vLLM's guided decoding, LM Studio): what the part says, and where it says nothing `null` if the schema allows it,
 * else what the grammar leaves: 0, false or "".
 */
function constrainedModel(r: LlmRequestLog): { content: string } {
  const text = pageOf(r);
  const found: Record<string, unknown> = {
    name: /^# (.+)$/m.exec(text)?.[1] ?? null,
    price: /Price: \$([\d.]+)/.test(text) ? Number(/Price: \$([\d.]+)/.exec(text)![1]) : null,
    inStock: /In stock/.test(text) ? true : null,
    reviews: [...text.matchAll(/Review by (\w+): rating (\d)/g)].map((m) => ({ author: m[1], rating: Number(m[2]) })),
  };
  const schema = r.schema as { properties: Record<string, { type: string | string[] }> };
  const out: Record<string, unknown> = {};
  for (const [k, sub] of Object.entries(schema.properties)) {
    const types = [sub.type].flat();
    const v = found[k] ?? null;
    out[k] = v !== null || types.includes("null") ? v : types[0] === "number" || types[0] === "integer" ? 0 : types[0] === "boolean" ? false : types[0] === "array" ? [] : "";
  }
  return { content: JSON.stringify(out) };
}

const PROVIDERS: { name: string; config: () => Partial<Config> }[] = [
  { name: "ollama", config: () => ({ ollamaBaseUrl: llm.url }) },
  { name: "openai", config: () => ({ openaiBaseUrl: llm.openaiUrl }) },
];

for (const p of PROVIDERS) {
  describe(`${p.name}: a long page on a server that constrains answers to the schema`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ ...p.config(), modelName: "test-model", llmContextTokens: CONTEXT_TOKENS });
    });
    afterAll(() => h.close());

    test("parts are sent the nullable schema; price and stock come from the part that gives them, not 0/false from the reviews' part", async () => {
      llm.reset();
      llm.respond = constrainedModel;
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/long`, formats: [{ type: "json", schema: PRODUCT_SCHEMA }], maxAge: 0 } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      const chats = llm.chats();
      expect(chats.length).toBeGreaterThan(2);
      // Every part may say null: the format is the relaxed schema (nothing required, each type also null).
      for (const c of chats) {
        const sent = c.schema as any;
        expect(sent.required).toBeUndefined();
        expect(sent.properties.price.type).toEqual(["number", "null"]);
        expect(sent.properties.inStock.type).toEqual(["boolean", "null"]);
      }
      const json = body.data.json;
      expect({ name: json.name, price: json.price, inStock: json.inStock }).toEqual({ name: "Trail Runner X", price: 129.99, inStock: true });
      expect(json.reviews).toHaveLength(12);
      expect(body.data.warning).toBeUndefined();
    });

    test("a page of one part is still sent the caller's schema", async () => {
      llm.reset();
      llm.respond = () => ({ content: JSON.stringify({ name: "Kettle", price: 25, inStock: true }) });
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/short`, formats: [{ type: "json", schema: SIMPLE_SCHEMA }], maxAge: 0 } });
      expect(res.status).toBe(200);
      expect(llm.chats()).toHaveLength(1);
      expect(llm.chats()[0]!.schema).toEqual(SIMPLE_SCHEMA);
    });
  });
}

describe("merging the parts' answers", () => {
  test("each field from the first part that gives it (0 and false are values), not all from the part with the most content", () => {
    const merged = mergeAnswers([
      { title: "Trail Runner X", rating: 4.5, onSale: false, tags: [] },
      { title: null, rating: null, onSale: null, tags: [] },
      { title: "Road Runner", rating: 3, onSale: true, tags: ["trail", "mesh", "foam", "grip"] },
    ]);
    expect(merged).toEqual({ title: "Trail Runner X", rating: 4.5, onSale: false, tags: ["trail", "mesh", "foam", "grip"] });
    // A field no part gives stays as the parts gave it.
    expect(mergeAnswers([{ price: null }, { price: "" }])).toEqual({ price: null });
  });

  test("list items from different parts that agree on every field both give are one item; different items stay apart", () => {
    const merged = mergeAnswers([
      { people: [{ name: "Alice Martin", role: null }], reviews: [{ author: "Bob", text: "Great grip.", rating: 5 }] },
      {
        people: [{ name: "Alice Martin", role: "Editor" }, { name: "Bob Chen", role: null }, { name: null, role: "Photographer" }],
        reviews: [{ author: "Bob", text: "Runs small.", rating: null }],
      },
    ]);
    expect(merged).toEqual({
      // Alice's role filled in; the photographer shares no field with anyone, so is not taken for Alice or Bob.
      people: [{ name: "Alice Martin", role: "Editor" }, { name: "Bob Chen", role: null }, { name: null, role: "Photographer" }],
      // Two reviews by one author: their texts differ, so they are two reviews.
      reviews: [{ author: "Bob", text: "Great grip.", rating: 5 }, { author: "Bob", text: "Runs small.", rating: null }],
    });
    // Within one part the model listed them apart: they stay apart. An item matching two kept items stays its own.
    expect(mergeAnswers([{ p: [{ n: "Ann", r: null }, { n: "Ann", r: "Editor" }] }, { p: [] }])).toEqual({ p: [{ n: "Ann", r: null }, { n: "Ann", r: "Editor" }] });
    expect(mergeAnswers([{ p: [{ n: "Ann", r: "Editor" }] }, { p: [{ n: "Ann", r: "Author" }] }, { p: [{ n: "Ann", r: null }] }])).toEqual({
      p: [{ n: "Ann", r: "Editor" }, { n: "Ann", r: "Author" }, { n: "Ann", r: null }],
    });
  });
});

describe("sync scrapes with a failing model server", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: CONTEXT_TOKENS });
  });
  afterAll(() => h.close());
  const scrape = async (path: string, formats: unknown[]) => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, maxAge: 0 } });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("one 503 is retried within the scrape: the answer, not the error", async () => {
    llm.reset();
    llm.respond = (_r, i) => (i === 0 ? { status: 503, error: "server busy, please try again." } : { content: JSON.stringify({ name: "Kettle", price: 25 }) });
    const r = await scrape("/short", [{ type: "json", schema: SIMPLE_SCHEMA }]);
    expect({ status: r.status, json: r.body.data?.json, code: r.body.code }).toEqual({ status: 200, json: { name: "Kettle", price: 25 }, code: undefined });
    expect(llm.chats()).toHaveLength(2);
  });

  test("a part that still fails after the retries: the parts answered before it are kept, with a warning", async () => {
    llm.reset();
    llm.respond = (r) => (partOf(r) === 2 ? { status: 503, error: "server busy, please try again." } : constrainedModel(r));
    const r = await scrape("/long", [{ type: "json", schema: PRODUCT_SCHEMA }]);
    expect(r.status).toBe(200);
    expect(r.body.data.json).toMatchObject({ name: "Trail Runner X", price: 129.99, inStock: true });
    expect(r.body.data.warning).toContain("The model server failed on part 2 (HTTP 503: server busy, please try again.)");
    expect(r.body.data.warning).toMatch(/the json answer was drawn from the first 1 of \d+ parts/);
    // Part 2 was asked three times (two retries), and the parts after it not at all.
    expect(llm.chats().map(partOf)).toEqual([1, 2, 2, 2]);
  });

  test("a 429 is not retried in a scrape: the client gets it with its Retry-After at once", async () => {
    llm.reset();
    llm.respond = (_r, i) => (i === 0 ? { status: 429, error: "slow down", headers: { "retry-after": "1" } } : { content: "{}" });
    const r = await scrape("/short", [{ type: "json", schema: SIMPLE_SCHEMA }]);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 429, code: "LLM_RATE_LIMITED" });
    expect(llm.chats()).toHaveLength(1);
  });
});

describe("json on a page without text", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  });
  afterAll(() => h.close());

  test("is not sent to the model: no json, summary's kind of warning, no extra credits (the injection check's neither)", async () => {
    for (const format of [{ type: "json", schema: SIMPLE_SCHEMA }, { type: "json", prompt: "The price", checkPromptInjection: true }]) {
      llm.reset();
      llm.respond = () => ({ content: JSON.stringify({ name: "Premium Widget", price: 42 }) });
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/image-only`, formats: [format], maxAge: 0, onlyMainContent: false } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      expect(llm.chats()).toHaveLength(0);
      expect("json" in body.data).toBe(false);
      expect(body.data.warning).toBe("JSON extraction was skipped because the markdown content has no text.");
      expect(body.data.metadata.creditsUsed).toBe(1);
    }
  });
});

describe("answers that are almost right", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  });
  afterAll(() => h.close());
  const scrape = async (answers: string[]) => {
    llm.reset();
    llm.script(answers.map((content) => ({ content })));
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/short`, formats: [{ type: "json", schema: SIMPLE_SCHEMA }], maxAge: 0 } });
    return { status: res.status, body: (await res.json()) as any, chats: llm.chats().length };
  };

  test("JSON with prose and brackets around it is read at once, without a repair turn", async () => {
    for (const content of [
      '{"name":"Kettle","price":25}\nI hope this helps! Let me know {if} you need more.',
      'Here is the JSON: {"name":"Kettle","price":25} (from [the page])',
      'Sure [1]: {"name":"Kettle {the blue one}","price":25} — see {notes}',
    ]) {
      const r = await scrape([content]);
      expect({ content, status: r.status, chats: r.chats }).toEqual({ content, status: 200, chats: 1 });
      expect(r.body.data.json.price).toBe(25);
    }
    // Brackets and escaped quotes inside strings do not end the value; a plain answer and a fenced one as before.
    expect(parseJsonAnswer('Result: {"note":"a ] and a } and \\"{\\"","n":[1,{"m":2}]} trailing {x} [y]')).toEqual({ ok: true, value: { note: 'a ] and a } and "{"', n: [1, { m: 2 }] } });
    expect(parseJsonAnswer('```json\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonAnswer("no json {here} at all")).toEqual({ ok: false, problem: "the answer is not valid JSON" });
    // A broken or cut-off answer is not replaced by an object nested in it: the repair turn, as before.
    expect(parseJsonAnswer('{"name":"K","maker":{"country":"DE"},}')).toEqual({ ok: false, problem: "the answer is not valid JSON" });
    expect(parseJsonAnswer('{"product":{"name":"K"},"reviews":[{"a":1}')).toEqual({ ok: false, problem: "the answer is not valid JSON" });
  });

  test('a number or a boolean written as text ("12.99", "true") is read as one; null and "" never become 0', async () => {
    const quoted = await scrape(['{"name":"Kettle","price":"12.99","inStock":"true"}']);
    expect({ status: quoted.status, json: quoted.body.data?.json, chats: quoted.chats }).toEqual({ status: 200, json: { name: "Kettle", price: 12.99, inStock: true }, chats: 1 });

    // null stays null: the page does not say (a warning names the required field missing).
    const nothing = await scrape(['{"name":"Kettle","price":null}']);
    expect({ status: nothing.status, json: nothing.body.data?.json }).toEqual({ status: 200, json: { name: "Kettle", price: null } });
    expect(nothing.body.data.warning).toContain("/price must be number");

    // "" and "12 EUR" are not numbers: the repair turn, then the error, worded in the caller's schema.
    const bad = await scrape(['{"name":"Kettle","price":"","inStock":"yes"}', '{"name":"Kettle","price":"12 EUR","inStock":"yes"}']);
    expect({ status: bad.status, code: bad.body.code, chats: bad.chats }).toEqual({ status: 500, code: "LLM_INVALID_ANSWER", chats: 2 });
    expect(bad.body.details.problems).toEqual(["/price must be number", "/inStock must be boolean"]);
    expect(bad.body.error).not.toContain("null");
  });
});

test("errors are worded in the caller's schema for keys Ajv percent-encodes (a space, non-ASCII, #)", async () => {
  const { default: Ajv } = await import("ajv");
  const { problemsInCallerTerms, relaxedSchema } = await import("../../src/llm/relaxed-schema.ts");
  const caller = { type: "object", properties: { "product name": { type: "number" }, "Preis (€)": { type: "number" }, 日本: { type: "boolean" }, "price#1": { type: "number" } } };
  const validate = new Ajv({ allErrors: true, strict: false }).compile(relaxedSchema(caller));
  validate({ "product name": "x", "Preis (€)": "y", 日本: "z", "price#1": "w" });
  const problems = problemsInCallerTerms(validate.errors ?? [], caller);
  expect(problems.sort()).toEqual(["/Preis (€) must be number", "/price#1 must be number", "/product name must be number", "/日本 must be boolean"].sort());
});

test("a scalar comes from the part that describes its object most fully: a related item's price above the product does not win", () => {
  expect(mergeAnswers([{ name: null, price: 89 }, { name: "Trail Runner X", price: 129.99 }])).toEqual({ name: "Trail Runner X", price: 129.99 });
  // Equals: page order.
  expect(mergeAnswers([{ name: "A", price: 1 }, { name: "B", price: 2 }])).toEqual({ name: "A", price: 1 });
  // Lists do not weigh: a part with many reviews and no price says nothing of the price.
  expect(mergeAnswers([{ price: 129.99, inStock: true, reviews: [] }, { price: null, inStock: null, reviews: [{ a: 1 }, { a: 2 }] }])).toEqual({ price: 129.99, inStock: true, reviews: [{ a: 1 }, { a: 2 }] });
});
