/**
 * llm/schema.ts: request schemas compiled once and reused; a new schema under an `$id` another schema used compiles
 * (it used to be a 400 "already exists" until the server restarted); schemas leaving the cache leave Ajv's registry;
 * model answers nested deeper than 64 levels are refused.
 */
import { describe, expect, test } from "bun:test";
import { compileSchema, MAX_JSON_DEPTH, parseJsonAnswer, validateAgainst } from "../../src/llm/schema.ts";

describe("request schemas", () => {
  test("two schemas with the same $id both compile; each validates with its own rules", () => {
    const v1 = { $id: "https://example.com/product.json", type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    const v2 = { $id: "https://example.com/product.json", type: "object", properties: { price: { type: "number" } }, required: ["price"] };
    expect(validateAgainst(v1, { name: "a" })).toEqual([]);
    expect(validateAgainst(v2, { price: 1 })).toEqual([]);
    expect(validateAgainst(v2, { name: "a" }).length).toBeGreaterThan(0);
    // And again, after both were seen.
    expect(() => compileSchema({ ...v1, description: "v3" })).not.toThrow();
  });

  test("many distinct schemas with $ids keep compiling (evicted ones leave Ajv's registry)", () => {
    for (let i = 0; i < 400; i++) {
      const s = { $id: `https://example.com/s${i % 150}.json`, type: "object", properties: { [`f${i}`]: { type: "string" } } };
      expect(validateAgainst(s, { [`f${i}`]: "x" })).toEqual([]);
    }
  });

  test("an answer nested deeper than the limit is refused", () => {
    const deep = "[".repeat(MAX_JSON_DEPTH + 2) + "]".repeat(MAX_JSON_DEPTH + 2);
    expect(parseJsonAnswer(deep)).toMatchObject({ ok: false });
    const fine = "[".repeat(10) + "1" + "]".repeat(10);
    expect(parseJsonAnswer(fine)).toMatchObject({ ok: true });
  });
});
