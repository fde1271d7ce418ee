/**
 * Redaction of a format's JSON value (redact/json-strings.ts) with the real redactor: the patterns, and the model
 * modes against the fake LLM (Ollama protocol). Every string, key and PII number is redacted, the structure kept
 * (keys that redact alike are suffixed, not merged); the strings of one value go to the model in one read, not one call each; a model quote spanning two values
 * cannot merge them (each half is then read again, down to the two it spanned: not one read per string, as before);
 * a string holding the separator's mark is read on its own and cannot shift a boundary.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLlmProviderRegistry } from "../../plugins/index.ts";
import { createLlmClient } from "../../src/llm/registry.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { createRedactor, patternRedactor, piiOptions } from "../../src/redact/redactor.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

let llm: FakeLlm;
beforeAll(() => {
  llm = startFakeLlm();
});
afterAll(() => llm.stop());

const run = () => ({ deadline: Date.now() + 20_000, recordTokens: () => {} });

test("patterns: strings, keys and PII numbers redacted, other numbers, booleans and nulls as they were", async () => {
  const fast = piiOptions({ mode: "fast" })!;
  const r = run();
  const value = {
    "ada.lovelace@example.org": "key kept",
    contacts: [{ email: "ada.lovelace@example.org", phone: "+44 20 7946 0958", vip: true, note: null }],
    card: 4111111111111111,
    price: 24.9,
    text: "Write to ada.lovelace@example.org.",
  };
  expect(await redactJsonStrings(value, (t) => patternRedactor.redact(t, fast, r))).toEqual({
    "<EMAIL>": "key kept",
    contacts: [{ email: "<EMAIL>", phone: "<PHONE>", vip: true, note: null }],
    card: "<FINANCIAL>",
    price: 24.9,
    text: "Write to <EMAIL>.",
  });
  expect(await redactJsonStrings(null, () => Promise.reject(new Error("not called")))).toBeNull();
});

test("object keys are redacted; keys that redact to the same text keep both values, suffixed in order", async () => {
  const fast = piiOptions({ mode: "fast" })!;
  const r = run();
  const value = { "ada@example.org": { phone: "+44 20 7946 0958" }, "bob@example.org": 2, "<EMAIL>": 3, "<EMAIL> (2)": 4, rows: [{ "+44 20 7946 0958": "x" }] };
  const out = (await redactJsonStrings(value, (t) => patternRedactor.redact(t, fast, r))) as Record<string, unknown>;
  expect(out).toEqual({ "<EMAIL>": { phone: "<PHONE>" }, "<EMAIL> (2)": 2, "<EMAIL> (3)": 3, "<EMAIL> (2) (2)": 4, rows: [{ "<PHONE>": "x" }] });
  expect(Object.keys(out)).toEqual(["<EMAIL>", "<EMAIL> (2)", "<EMAIL> (3)", "<EMAIL> (2) (2)", "rows"]);
  expect(JSON.stringify(out)).not.toContain("example.org");
});

test("thousands of keys that redact alike are suffixed in linear work (a directory keyed by e-mail)", async () => {
  const fast = piiOptions({ mode: "fast" })!;
  const r = run();
  const n = 4000;
  const value = Object.fromEntries(Array.from({ length: n }, (_, i) => [`person${i}@example.org`, i]));
  // Lookups of the names given out, counted: from " (2)" for each key they were n²/2 (8 million here; 16,000 keys
  // took 69 s of the main thread).
  const has = Set.prototype.has;
  let lookups = 0;
  Set.prototype.has = function (this: Set<unknown>, v: unknown) {
    lookups++;
    return has.call(this, v);
  };
  let out: Record<string, number>;
  try {
    out = (await redactJsonStrings(value, (t) => patternRedactor.redact(t, fast, r))) as Record<string, number>;
  } finally {
    Set.prototype.has = has;
  }
  expect(Object.keys(out)).toHaveLength(n);
  expect(out["<EMAIL>"]).toBe(0);
  expect(out[`<EMAIL> (${n})`]).toBe(n - 1);
  expect(lookups).toBeLessThan(20 * n);
});

test("model mode: one read for all the strings of a value; a quote spanning two of them does not merge them", async () => {
  const config = { llmProvider: "auto", ollamaBaseUrl: llm.url, ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "test-model", llmContextTokens: 8192 } as const;
  const redactor = createRedactor(createLlmClient(config, createLlmProviderRegistry()), { llmTimeoutMs: 10_000, llmTokenBudget: 100_000 });
  const accurate = piiOptions(true)!;
  const r = run();
  const names = Array.from({ length: 50 }, (_, i) => (i === 7 ? "Ada Lovelace" : `Kettle ${i}`));

  llm.reset();
  llm.respond = () => ({ content: JSON.stringify({ spans: [{ text: "Ada Lovelace", type: "PERSON" }] }) });
  const out = (await redactJsonStrings({ names }, (t) => redactor.redact(t, accurate, r))) as { names: string[] };
  expect(out.names).toHaveLength(50);
  expect(out.names[7]).toBe("<PERSON>");
  expect(out.names[8]).toBe("Kettle 8");
  expect(llm.chats()).toHaveLength(1);

  // The model quotes across the line between two values: the join cannot be split back, so each is read alone.
  llm.reset();
  llm.respond = (req) => {
    const user = req.messages.find((m) => m.role === "user")!.content;
    const across = user.match(/Ada\n\S\nLovelace/)?.[0];
    const spans = across ? [{ text: across, type: "PERSON" }] : user.includes("Lovelace") ? [{ text: "Lovelace", type: "PERSON" }] : [];
    return { content: JSON.stringify({ spans }) };
  };
  const split = (await redactJsonStrings(["Ada", "Lovelace"], (t) => redactor.redact(t, accurate, r))) as string[];
  expect(split).toEqual(["Ada", "<PERSON>"]);
  expect(llm.chats()).toHaveLength(3); // the joined read, then one per value
});

test("model mode: a quote spanning two of 64 values costs a read per halving, not one per value", async () => {
  const config = { llmProvider: "auto", ollamaBaseUrl: llm.url, ollamaBaseUrlSet: true, openaiBaseUrl: "", openaiApiKey: "", modelName: "test-model", llmContextTokens: 8192 } as const;
  const redactor = createRedactor(createLlmClient(config, createLlmProviderRegistry()), { llmTimeoutMs: 10_000, llmTokenBudget: 100_000 });
  const names = Array.from({ length: 64 }, (_, i) => (i === 40 ? "Ada" : i === 41 ? "Lovelace" : `Kettle ${i}`));
  llm.reset();
  llm.respond = (req) => {
    const user = req.messages.find((m) => m.role === "user")!.content;
    const across = user.match(/Ada\n\S\nLovelace/)?.[0];
    const spans = across ? [{ text: across, type: "PERSON" }] : user.includes("Lovelace") ? [{ text: "Lovelace", type: "PERSON" }] : [];
    return { content: JSON.stringify({ spans }) };
  };
  const out = (await redactJsonStrings(names, (t, b) => redactor.redact(t, piiOptions(true)!, run(), b))) as string[];
  expect(out).toEqual(names.map((n) => (n === "Lovelace" ? "<PERSON>" : n)));
  // The joined read, then two reads a level down to the pair (32, 16, 8, 4, 2, 1): 13. Before: 1 + 64.
  expect(llm.chats()).toHaveLength(13);
});

test("a string holding the separator's mark is redacted on its own: it cannot shift the boundary of the next", async () => {
  const fast = piiOptions({ mode: "fast" })!;
  const r = run();
  // Before: joined, "x\n␞" and the separator read as a separator then "␞\n": ["x", "␞\n<EMAIL>"].
  const texts = ["x\n\u241e", "ada@example.org", "\u241e\ny", "+44 20 7946 0958"];
  expect(await redactJsonStrings(texts, (t) => patternRedactor.redact(t, fast, r))).toEqual(["x\n\u241e", "<EMAIL>", "\u241e\ny", "<PHONE>"]);
});
