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

describe("patterns in a caller's schema", () => {
  test("are matched by RE2: a backtracking pattern cannot hold the main thread (20 strings took 6 s)", () => {
    const validate = compileSchema({ type: "object", properties: { names: { type: "array", items: { type: "string", pattern: "^(a+)+$" } } } });
    const answer = { names: Array.from({ length: 20 }, () => `${"a".repeat(40)}!`) };
    const t0 = performance.now();
    expect(validate(answer)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(300);
    expect(validate({ names: ["aaa", "a"] })).toBe(true);
  });

  test("keep their meaning: anywhere in the string unless anchored; patternProperties too; lookarounds still accepted", () => {
    const v = compileSchema({ type: "object", properties: { sku: { type: "string", pattern: "[0-9]{3}" } }, patternProperties: { "^x-": { type: "number" } } });
    expect(v({ sku: "ab123cd" })).toBe(true);
    expect(v({ sku: "ab12cd" })).toBe(false);
    expect(v({ sku: "123", "x-n": 1 })).toBe(true);
    expect(v({ sku: "123", "x-n": "one" })).toBe(false);
    // RE2 has no lookahead: such a pattern keeps JavaScript's RegExp, as upstream's Ajv runs it.
    const look = compileSchema({ type: "string", pattern: "^(?!bad).*$" });
    expect([look("good"), look("bad thing")]).toEqual([true, false]);
  });
});

describe("patterns RE2 cannot compile", () => {
  test("a look-around that also repeats a group is a 400 (exponential under backtracking); without repetition it is run", () => {
    for (const pattern of ["^(?=a)(a+)+$", "^(a+)+$(?<!b)", "(\\w)\\1(x|y)*", "^(?!z)(ab){2,}$"]) {
      expect(() => compileSchema({ type: "string", pattern })).toThrow("repeats a group");
    }
    const ok = compileSchema({ type: "string", pattern: "^(?=.*[A-Z])(?=.*\\d).{8,}$" });
    expect([ok("Passw0rdX"), ok("password")]).toEqual([true, false]);
  });
});
