/**
 * A script's value (the `executeJavascript` action; interact's `page.evaluate` and bash's `eval` run the same
 * code, engines/browser/script.ts) is measured in the page as a trusted copy of `JSON.stringify` writes it, a
 * counting replacer stopping it past the caller's bound (engines/browser/budgeted-json.ts `COUNTED_JSON`), with real
 * Chromium and local pages. Before, the page made the value's whole JSON
 * with `JSON.stringify` to learn its length: a value whose JSON no string can hold (a 200 MB string three times)
 * failed with `RangeError: Invalid string length` after filling the string limit, and every getter of a large value
 * was read. A value within the bound comes back as it did, the bound falls on the same character, and what the page
 * did to the builtins the writer calls does not change a value that comes back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { evaluateScript, OversizedResult } from "../../src/engines/browser/script.ts";
import { TRUSTED_JSON_SOURCE } from "../../src/engines/browser/trusted-json.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { closeAndAssertNoChromium, scrape } from "./helpers.ts";

const BOUND = 1_000_000;
/** The same 200 MB string three times: 600 MB of JSON, more than a string may hold. */
const THREE_TIMES = `const s = "x".repeat(2e8); [s, s, s]`;

const html = (body: string, head = "") => new Response(`<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });

let site: ReturnType<typeof Bun.serve>;
let base: string;
let gate: EgressGate;
let browser: Browser;
let page: Page;
let h: Harness;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      // A page that replaces what a writer in its world would call: every object would be written as `1`.
      if (path === "/builtins") return html(`<p>builtins</p>`, `<script>Object.keys = () => []; Array.prototype.join = function () { return "1"; };</script>`);
      // A page whose Object.keys, Array.isArray and String.prototype.slice lie: 200,000 keys for any object.
      if (path === "/keys")
        return html(
          `<p>keys</p>`,
          `<script>const K = Object.keys; Object.keys = (o) => K(o).length ? Array(200000).fill(K(o)[0]) : []; Array.isArray = () => false; String.prototype.slice = function () { return "y".repeat(2e6); };</script>`,
        );
      return html(`<p id="p">para</p>`);
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  page = await browser.newPage();
  // As engines/browser/setup.ts does for every page of the pool.
  await page.evaluateOnNewDocument(TRUSTED_JSON_SOURCE);
  await page.goto(`${base}/p`);
  h = await createHarness({ maxPageBytes: BOUND });
  if (!h.services.engines.pool) throw new Error("these tests need Chromium (apt-get install chromium)");
});
afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

/** What evaluateScript gives for `script` under the bound, or the error it throws. */
const bounded = (script: string, maxChars = BOUND) => evaluateScript(page, script, maxChars).catch((err: unknown) => err);

describe("a script's value is bounded without making its whole JSON", () => {
  test("[s, s, s] of a 200 MB string is refused as more than the bound, not a RangeError, each way a script runs; a string by its size", async () => {
    // Way 1 (an expression), way 2 (top-level await: REPL mode), way 3 (a top-level return).
    for (const script of [THREE_TIMES, `await null; ${THREE_TIMES}`, `const s = "x".repeat(2e8); return [s, s, s];`]) {
      const err = await bounded(script);
      expect(err).toBeInstanceOf(OversizedResult);
      expect({ size: (err as OversizedResult).size, exact: (err as OversizedResult).exact, message: (err as Error).message }).toEqual({
        size: BOUND + 1,
        exact: false,
        message: `a result of more than ${BOUND} characters`,
      });
    }
    // The page answers the next script.
    expect(await evaluateScript(page, `document.querySelector("#p").textContent`, BOUND)).toEqual({ type: "string", value: "para" });
    // A string is refused by its JSON's size, known from its length (nothing to escape), without being written...
    const plain = (await bounded(`"x".repeat(2e8)`)) as OversizedResult;
    expect([plain.size, plain.exact, plain.message]).toEqual([200_000_002, true, "a result of 200000002 characters"]);
    // ...or, when it has characters that may need escaping, as at least its length and quotes (its JSON is longer).
    const escaped = (await bounded(`"\\n".repeat(${2 * BOUND})`)) as OversizedResult;
    expect([escaped.size, escaped.exact, escaped.message]).toEqual([2 * BOUND + 2, false, `a result of more than ${2 * BOUND + 1} characters`]);
  }, 120_000);

  test("past the bound no more of the value is read: 100,000 getters of 100 characters, about 10,000 read", async () => {
    const getters = (n: number) =>
      `globalThis.__reads = 0; const v = {}; for (let i = 0; i < ${n}; i++) Object.defineProperty(v, "k" + i, { enumerable: true, get() { globalThis.__reads++; return "y".repeat(100); } }); v`;
    expect(await bounded(getters(100_000))).toBeInstanceOf(OversizedResult);
    const reads = (await evaluateScript(page, "globalThis.__reads")).value as number;
    // JSON.stringify read all 100,000 (each entry is about 111 characters: some 9,020 fit in the bound).
    expect(reads).toBeGreaterThan(8_000);
    expect(reads).toBeLessThan(10_000);
    // Under the bound the value comes back whole, each getter read once (it was twice: by the writer, then the copy).
    const small = await evaluateScript(page, getters(9_000), BOUND);
    expect(Object.keys(small.value as object).length).toBe(9_000);
    expect((await evaluateScript(page, "globalThis.__reads")).value).toBe(9_000);
    // So a getter cannot answer the measure small and the text large: "" then 5 MB comes back as "".
    expect(await bounded(`let n = 0; const s = "x".repeat(5e6); ({ get a() { return n++ ? s : ""; } })`)).toEqual({ type: "object", value: { a: "" } });
  }, 120_000);

  test("values within the bound come back as without one; the bound falls on the same character; a page's builtins change nothing", async () => {
    const values = [
      `({ a: [1, -2.5, null, true, "q\\"\\\\\\n\\u00e9\\ud83d\\ude00\\u0001\\ud800x"], b: { c: [[], {}], "k\\"ey": 1e21, 2: "two", 1: "one" } })`,
      `[0.1, 1e-7, -0, NaN, Infinity, undefined, () => 1, Symbol("s"), [1, , 3]]`,
      `({ u: undefined, d: new Date(0), m: new Map([[1, 2]]), t: new Uint8Array([1, 2]), j: { toJSON() { return "J"; } } })`,
      `({ get g() { return [1, 2]; }, [Symbol("k")]: 1, n: 1, p: new Proxy({ a: 1 }, {}), o: Object.assign(Object.create(null), { z: 1 }) })`,
      `(() => { let o = []; for (let i = 0; i < 1500; i++) o = [o]; return o; })()`,
      `document.body`, `10n ** 20n`, `null`, `undefined`, `true`, `42`, `"plain"`, `"tab\\tquote\\"\\ud800"`,
    ];
    for (const v of values) expect({ v, got: await evaluateScript(page, v, BOUND) }).toEqual({ v, got: await evaluateScript(page, v) });
    // An array whose JSON is exactly the bound comes back; one character more is refused (written whole: its size).
    expect(((await evaluateScript(page, `["a".repeat(${BOUND - 4})]`, BOUND)).value as string[])[0]!.length).toBe(BOUND - 4);
    expect(await bounded(`["a".repeat(${BOUND - 3})]`)).toMatchObject({ size: BOUND + 1, exact: true });
    expect(await bounded(`"a".repeat(${BOUND - 2})`)).toMatchObject({ value: "a".repeat(BOUND - 2) });
    expect(await bounded(`"a".repeat(${BOUND - 1})`)).toMatchObject({ size: BOUND + 1, exact: true });
    // A cycle is still an error that names why; a value with a Date past the bound is stopped there too (it was
    // measured whole: 1,000,031 characters).
    expect(String(await bounded(`const o = {}; o.self = o; o`))).toContain("cannot be turned into JSON: Converting circular structure");
    expect(await bounded(`[new Date(0), "y".repeat(${BOUND})]`)).toMatchObject({ size: BOUND + 1, exact: false });
    // A page whose Object.keys and Array.prototype.join would make the writer answer `1` for every object.
    await page.goto(`${base}/builtins`);
    expect(await evaluateScript(page, `({ a: [1, "x"], b: { c: null } })`, BOUND)).toEqual({ type: "object", value: { a: [1, "x"], b: { c: null } } });
    // The trusted copy's count tells, whatever the page did to them (the writer could not be trusted there, and the
    // whole JSON was measured: 1,000,004 characters).
    expect(await bounded(`["a".repeat(${BOUND})]`)).toMatchObject({ size: BOUND + 1, exact: false });
    await page.goto(`${base}/p`);
  }, 120_000);

  test("a page whose Object.keys gives 200,000 keys (and whose Array.isArray and slice lie) changes no result: ({a: 1}) comes back", async () => {
    await page.goto(`${base}/keys`);
    try {
      // The writer in the page's world believed its Object.keys, wrote past the bound and refused ({a: 1}) as too large.
      expect(await bounded(`({ a: 1 })`)).toEqual({ type: "object", value: { a: 1 } });
      expect(await bounded(`[{ a: "hi" }, [1, 2]]`)).toEqual({ type: "array", value: [{ a: "hi" }, [1, 2]] });
      expect(await bounded(`["a".repeat(${BOUND - 4})]`)).toMatchObject({ type: "array" });
      expect(await bounded(`["a".repeat(${BOUND - 3})]`)).toMatchObject({ size: BOUND + 1, exact: true });
      expect(await bounded(`["a".repeat(${BOUND})]`)).toMatchObject({ size: BOUND + 1, exact: false });
    } finally {
      await page.goto(`${base}/p`);
    }
  }, 120_000);

  test("values JSON.stringify writes itself are stopped at the bound too, not a RangeError: [undefined, s, s, s], -0, NaN, a Date, a method, a typed array of 10^8", async () => {
    const s = `const s = "x".repeat(2e8);`;
    const scripts = [
      `${s} [undefined, s, s, s]`,
      `${s} [-0, s, s, s]`,
      `${s} [NaN, s, s, s]`,
      `${s} [new Date(0), s, s, s]`,
      `${s} ({ f() {}, a: s, b: s, c: s })`,
      // 10^8 keys for JSON to list: 35 s, then an error; now refused by its length before they are listed.
      `new Uint8Array(1e8)`,
    ];
    for (const script of scripts) {
      const err = await bounded(script);
      expect({ script, err: err instanceof OversizedResult ? { size: err.size, exact: err.exact } : String(err) }).toEqual({ script, err: { size: BOUND + 1, exact: false } });
    }
    // Within the bound they come back as JSON writes them, as without a bound.
    for (const v of [`[undefined, -0, NaN, new Date(0), "s"]`, `({ f() {}, a: "s" })`, `new Uint8Array(3)`, `new Float64Array([NaN, 1.5])`])
      expect({ v, got: await evaluateScript(page, v, BOUND) }).toEqual({ v, got: await evaluateScript(page, v) });
  }, 300_000);

  test("an executeJavascript action giving [s, s, s] is refused as too large, naming the action; small values come back as before", async () => {
    const { status, body } = await scrape(h, { url: `${base}/p`, maxAge: 0, actions: [{ type: "executeJavascript", script: THREE_TIMES }] });
    expect({ status, code: body.code }).toEqual({ status: 500, code: "SCRAPE_RESPONSE_TOO_LARGE" });
    // Only what was written is known: a lower bound, said as one.
    expect(body.error).toMatch(/^Action 0 \(executeJavascript\) produced more than \d+ bytes/);
    expect(body.error).not.toContain("Invalid string length");
    const ok = await scrape(h, {
      url: `${base}/p`,
      maxAge: 0,
      actions: [
        { type: "executeJavascript", script: `({ n: 2, list: [1, "a\\n", null], when: new Date(0), s: "\\ud83d\\ude00" })` },
        { type: "executeJavascript", script: `await Promise.resolve([1, { k: true }])` },
        { type: "executeJavascript", script: `return "r".repeat(3)` },
        { type: "executeJavascript", script: `10n ** 20n` },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.actions.javascriptReturns).toEqual([
      { type: "object", value: { n: 2, list: [1, "a\n", null], when: "1970-01-01T00:00:00.000Z", s: "😀" } },
      { type: "array", value: [1, { k: true }] },
      { type: "string", value: "rrr" },
      { type: "bigint", value: "100000000000000000000" },
    ]);
  }, 120_000);
});
