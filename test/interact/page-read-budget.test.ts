/**
 * A value read out of the session's page through crawlbox's isolated world (a locator's `evaluate`, element reads,
 * a locator's lists) is measured there by writing its JSON no further than the 1,000,000 characters that are read
 * (src/engines/browser/budgeted-json.ts, the writer the sandbox's `result` uses too), with real Chromium. Before, the world
 * made the value's whole JSON to learn its length: a value whose JSON no string can hold (a 200 MB string three
 * times) failed with `RangeError: Invalid string length` after filling the string limit, and every getter of a large
 * value was read. What is under the bound comes back as before, and a bound is refused at the same character.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const BOUND = 1_000_000;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/p": `<html><head><title>P</title></head><body><p id="p">para</p><ul>${"<li>item</li>".repeat(3)}</ul></body></html>` });
  s = await tb.session();
  expect(await s.run(`await page.goto("${tb.base}/p")`, "node")).toMatchObject({ exitCode: 0 });
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

/**
 * What a locator's `evaluate` of `fn` gives back to the code, as `shown` shows it (its JSON unless told), or the
 * message of the error it throws.
 */
const viaLocator = async (fn: string, shown = "JSON.stringify(v)") => {
  const r = await s.run(`try { const v = await page.locator("#p").evaluate(${fn}); return ${shown}; } catch (e) { return "ERROR " + e.message; }`, "node", 60);
  expect(r).toMatchObject({ exitCode: 0, stderr: "" });
  return r.result as string;
};

describe("a locator's evaluate is bounded without making the value's whole JSON", () => {
  test("a value whose JSON no string could hold (a 200 MB string three times) is refused at the bound, not a RangeError; what is under the bound comes back as before", async () => {
    expect(await viaLocator(`() => { const s = "x".repeat(2e8); return [s, s, s]; }`)).toBe(`ERROR the value is more than ${BOUND} characters, over the ${BOUND} that are read`);
    // The world is left able to answer: the next read works.
    expect(await viaLocator(`(el) => el.textContent`)).toBe(`"para"`);
    // Data, strings and values that are not data come back as they did; the bound falls on the same character.
    const data = `{ a: [1, -2.5, null, true, "q\\"\\\\\\n\\u00e9\\ud83d\\ude00\\u0001"], b: { c: [[], {}], "k\\"ey": 1e21 } }`;
    expect(JSON.parse(await viaLocator(`() => (${data})`))).toEqual(new Function(`return ${data}`)());
    // Not data: as JSON writes it, the text that was measured being what crosses (a Date crossed as {} before).
    expect(await viaLocator(`() => ({ d: new Date(0), u: undefined, n: NaN })`)).toBe(`{"d":"1970-01-01T00:00:00.000Z","n":null}`);
    expect(await viaLocator(`() => "z".repeat(${BOUND})`, `v === "z".repeat(${BOUND})`)).toBe("true");
    expect(await viaLocator(`() => "z".repeat(${BOUND + 1})`)).toBe(`ERROR the value is ${BOUND + 1} characters, over the ${BOUND} that are read`);
    // An array whose JSON is exactly the bound comes back; one character more is refused.
    expect(await viaLocator(`() => ["a".repeat(${BOUND - 4})]`, `v[0].length`)).toBe(String(BOUND - 4));
    expect(await viaLocator(`() => ["a".repeat(${BOUND - 3})]`)).toStartWith("ERROR the value is ");
    expect(await viaLocator(`() => { const t = new Date(0); return { t }; }`)).toBe(`{"t":"1970-01-01T00:00:00.000Z"}`);
    // A locator's lists, bounded by the same writer.
    expect(await s.run(`return await page.locator("li").allTextContents()`, "node")).toMatchObject({ exitCode: 0, result: `["item","item","item"]` });
  }, 120_000);

  test("what crosses is the JSON that was measured: a getter, a toJSON or a Date's own property cannot bring more than the bound", async () => {
    // Each crossed whole before (5,000,008 characters and more): DevTools wrote the value again by its own rules.
    expect(await viaLocator(`() => { let n = 0; const s = "x".repeat(5e6); return { get a() { return n++ ? s : ""; } }; }`)).toBe(`{"a":""}`);
    expect(await viaLocator(`() => ({ toJSON() { return 1; }, big: "x".repeat(5e6) })`)).toBe(`1`);
    expect(await viaLocator(`() => { const o = Object.create({ toJSON() { return 1; } }); o.big = "x".repeat(5e6); return o; }`)).toBe(`1`);
    expect(await viaLocator(`() => { const d = new Date(0); d.big = "x".repeat(5e6); return { d }; }`)).toBe(`{"d":"1970-01-01T00:00:00.000Z"}`);
    // Values JSON writes itself are stopped at the bound too: a RangeError before, and 10^8 keys listed.
    for (const fn of [`() => { const s = "x".repeat(2e8); return [undefined, s, s, s]; }`, `() => new Uint8Array(1e8)`])
      expect(await viaLocator(fn)).toBe(`ERROR the value is more than ${BOUND} characters, over the ${BOUND} that are read`);
    // undefined is still undefined; a list comes back as before.
    expect(await viaLocator(`() => undefined`, `v === undefined`)).toBe("true");
    expect(await s.run(`return await page.locator("li").allInnerTexts()`, "node")).toMatchObject({ exitCode: 0, result: `["item","item","item"]` });
  }, 120_000);

  test("past the bound no more of the value is read: 100,000 getters of 100 characters, about 10,000 read", async () => {
    const got = await viaLocator(`() => {
      globalThis.__reads = 0;
      const v = {};
      for (let i = 0; i < 100000; i++) Object.defineProperty(v, "k" + i, { enumerable: true, get() { globalThis.__reads++; return "y".repeat(100); } });
      return v;
    }`);
    expect(got).toBe(`ERROR the value is more than ${BOUND} characters, over the ${BOUND} that are read`);
    const reads = Number(JSON.parse(await viaLocator(`() => globalThis.__reads`)));
    // JSON.stringify read all 100,000 (each entry is about 111 characters: some 9,020 fit in the bound).
    expect(reads).toBeGreaterThan(8_000);
    expect(reads).toBeLessThan(10_000);
    // Under the bound, as before: the same value of 9,000 entries comes back whole.
    const small = await viaLocator(`() => { globalThis.__reads = 0; const v = {}; for (let i = 0; i < 9000; i++) Object.defineProperty(v, "k" + i, { enumerable: true, get() { globalThis.__reads++; return "y".repeat(100); } }); return v; }`);
    expect(Object.keys(JSON.parse(small)).length).toBe(9000);
  }, 120_000);
});
