/**
 * JavaScript browser code's data values are written as JSON only as far as they are shown (1,000,000 characters,
 * src/interact/sandbox/value-text.ts `dataJson`), character for character as JSON.stringify writes them, with real
 * Chromium. Before, the whole JSON text was made and then cut: a result holding a 200 MB string took 815 ms and
 * 599 MB in its sandbox page (the string alone: 217 MB), and a value whose JSON is longer than a JavaScript string
 * may be (the same 200 MB string three times) was shown as `console.log` shows it instead of as JSON, and logged with
 * `%j` as `[Circular]`. Which values are data (JSON) and which are shown as `console.log` shows them is as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const run = (code: string, timeout?: number) => s.run(code, "node", timeout);
const SHOWN = 1_000_000;

beforeAll(async () => {
  tb = await startCodeTestbed({});
  s = await tb.session();
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

/** What the sandbox should give for a value whose JSON is `json`: the whole text, or its first 1,000,000 characters, cut. */
const shown = (json: string) => (json.length > SHOWN ? { result: `${json.slice(0, SHOWN)} …(cut)`, resultTruncated: true } : { result: json });

describe("a data value is written as JSON no further than it is shown", () => {
  test("a value whose JSON no string could hold (a 200 MB string three times): its first 1,000,000 characters, as JSON", async () => {
    const r = await run(`const s = "x".repeat(2e8); return [s, s, s]`, 60);
    expect(r).toMatchObject({ exitCode: 0, stderr: "", resultTruncated: true });
    expect(r.result).toBe(`["${"x".repeat(SHOWN - 2)} …(cut)`);
  }, 60_000);

  test("`console.log('%j', …)` of it: the same JSON, cut, not `[Circular]`", async () => {
    const r = await run(`const s = "x".repeat(2e8); console.log("%j", [s, s, s]); return 1`, 60);
    expect(r).toMatchObject({ exitCode: 0, result: "1", truncated: true });
    expect(r.stdout).toBe(`["${"x".repeat(SHOWN - 2)}`);
  }, 60_000);

  test("the text is JSON.stringify's, character for character: escapes, numbers, nesting, and a pair of surrogates at the cut", async () => {
    const make = (n: number) => `const v = []; for (let i = 0; i < ${n}; i++) v.push({ i, "k\\"ey": "q\\"\\\\\\n\\u00e9\\ud83d\\ude00\\u0001".repeat(i % 7), n: i / 3, e: 1e21 * i, b: i % 2 === 0, z: null, a: [i, -i - 1, [{}], []] }); return v`;
    for (const n of [200, 20_000]) {
      const expected = JSON.stringify(new Function(make(n))());
      const r = await run(make(n), 60);
      expect(r).toMatchObject({ exitCode: 0, stderr: "", ...shown(expected) });
      expect(n === 200 ? expected.length < SHOWN : expected.length > SHOWN).toBe(true);
    }
    // A string whose cut falls inside a surrogate pair, and one whose JSON ends just at the bound.
    for (const code of [`return ["a".repeat(${SHOWN - 3}) + "\\ud83d\\ude00b"]`, `return ["a".repeat(${SHOWN - 4})]`, `return ["a".repeat(${SHOWN - 3})]`]) {
      const expected = JSON.stringify(new Function(code)());
      expect(await run(code, 60)).toMatchObject({ exitCode: 0, ...shown(expected) });
    }
  }, 120_000);

  test("what is not data is shown as console.log shows it, as before; past isData's bounds, JSON no further than shown", async () => {
    // A function after 300,000 items: not data (isData looks at up to 1,000,000 values, past what is shown).
    const late = await run(`const v = Array.from({ length: 300000 }, (_, i) => i); v.push(() => 1); return v`, 60);
    expect(late.result).toStartWith("[\n   0,  1,  2,  3,");
    expect(late.result).toEndWith("  ... 299901 more items\n]");
    expect((await run(`return { a: 1, d: new Date(0) }`)).result).toBe("{ a: 1, d: 1970-01-01T00:00:00.000Z }");
    // Past 1,000,000 values, whatever JSON.stringify takes: written as it would write it, no further than shown.
    const far = await run(`const v = Array.from({ length: 1200000 }, (_, i) => i); v.push(() => 1); return v`, 60);
    expect(far).toMatchObject({ exitCode: 0, resultTruncated: true });
    expect(far.result).toBe(`${JSON.stringify(Array.from({ length: 1_200_000 }, (_, i) => i)).slice(0, SHOWN)} …(cut)`);
  }, 60_000);

  test("code-made values are written as JSON.stringify writes them: an inherited toJSON, a Proxy's get trap, JSON.stringify replaced", async () => {
    const cases = [
      `Object.prototype.toJSON = function () { return "X"; }; const v = { a: 1 };`,
      `Array.prototype.toJSON = function () { return "ARR"; }; const v = [1, 2];`,
      `const v = new Proxy({ a: 1 }, { get: () => 2 });`,
      `JSON.stringify = () => "mine"; const v = { a: 1 };`,
    ];
    // (Which values are data is isData's, as before: a getter, a function (an own toJSON), an array Proxy whose
    // length differs from its keys are not, and are shown as console.log shows them.)
    for (const setup of cases) {
      const want = await run(`${setup}\nreturn String(JSON.stringify(v));`);
      const got = await run(`${setup}\nreturn v;`);
      expect({ setup, result: got.result }).toEqual({ setup, result: want.result });
    }
  }, 60_000);
});
