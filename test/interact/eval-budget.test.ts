/**
 * bash's `agent-browser eval` and JavaScript's `page.evaluate` (interact/page-ops.ts `evaluateBounded`, which runs
 * the `executeJavascript` action's code, engines/browser/script.ts) measure a value in the page by writing its JSON no
 * further than the 1,000,000 characters that are read (engines/browser/budgeted-json.ts, the writer a locator's
 * `evaluate` and the sandbox's `result` use too), with real Chromium. Before, the page made the value's whole JSON to
 * learn its length: a value whose JSON no string can hold (a 200 MB string three times) failed with `RangeError:
 * Invalid string length` after filling the string limit, and every getter of a large value was read. What is under
 * the bound comes back as before; a string is still refused by its size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const BOUND = 1_000_000;
const THREE_TIMES = `(() => { const s = "x".repeat(2e8); return [s, s, s]; })()`;
const OVER = `a result of more than ${BOUND} characters, over the ${BOUND} that are read`;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/p": `<html><head><title>P</title></head><body><p id="p">para</p></body></html>` });
  s = await tb.session();
  expect(await s.run(`agent-browser open ${tb.base}/p`, "bash")).toMatchObject({ exitCode: 0 });
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

/** bash's `eval` of `script` (given to bash in single quotes). */
const bashEval = (script: string) => s.run(`agent-browser eval '${script}'`, "bash", 60);
/** What `page.evaluate` of `script` gives the code, as its JSON, or the message of the error it throws. */
const pageEvaluate = async (script: string) => {
  const r = await s.run(`try { return JSON.stringify(await page.evaluate(${JSON.stringify(script)})); } catch (e) { return "ERROR " + e.message; }`, "node", 60);
  expect(r).toMatchObject({ exitCode: 0, stderr: "" });
  return r.result as string;
};

describe("eval and page.evaluate are bounded without making the value's whole JSON", () => {
  test("[s, s, s] of a 200 MB string is refused as more than the bound, not a RangeError; small values and strings as before", async () => {
    expect(await bashEval(THREE_TIMES)).toMatchObject({ exitCode: 1, stdout: "", stderr: `✗ ${OVER}\n` });
    expect(await pageEvaluate(THREE_TIMES)).toBe(`ERROR ${OVER}`);
    // The page answers the next script; data comes back as it did, printed as JSON.
    expect(await bashEval(`document.querySelector("#p").textContent`)).toMatchObject({ exitCode: 0, stdout: "para\n" });
    const data = `({ a: [1, -2.5, null, true, "q\\u00e9\\ud83d\\ude00\\n"], b: { c: [[], {}], k: 1e21, d: new Date(0) } })`;
    const json = `{"a":[1,-2.5,null,true,"qé😀\\n"],"b":{"c":[[],{}],"k":1e+21,"d":"1970-01-01T00:00:00.000Z"}}`;
    expect(await bashEval(data)).toMatchObject({ exitCode: 0, stdout: `${json}\n`, stderr: "" });
    expect(await pageEvaluate(data)).toBe(json);
    // A string is refused by its JSON's size, as before; an array whose JSON is exactly the bound comes back.
    expect(await bashEval(`"x".repeat(2e8)`)).toMatchObject({ exitCode: 1, stderr: `✗ a result of 200000002 characters, over the ${BOUND} that are read\n` });
    expect(await pageEvaluate(`["a".repeat(${BOUND - 4})][0].length`)).toBe(String(BOUND - 4));
    expect(JSON.parse(await pageEvaluate(`["a".repeat(${BOUND - 4})]`))[0].length).toBe(BOUND - 4);
    // One character more was written whole (the count stopped nothing), so its size is known.
    expect(await pageEvaluate(`["a".repeat(${BOUND - 3})]`)).toBe(`ERROR a result of ${BOUND + 1} characters, over the ${BOUND} that are read`);
  }, 120_000);

  test("past the bound no more of the value is read: 100,000 getters of 100 characters, about 10,000 read", async () => {
    const getters = `globalThis.__reads = 0; const v = {}; for (let i = 0; i < 100000; i++) Object.defineProperty(v, "k" + i, { enumerable: true, get() { globalThis.__reads++; return "y".repeat(100); } }); v`;
    expect(await bashEval(getters)).toMatchObject({ exitCode: 1, stderr: `✗ ${OVER}\n` });
    const reads = Number((await bashEval(`globalThis.__reads`)).stdout);
    // JSON.stringify read all 100,000 (each entry is about 111 characters: some 9,020 fit in the bound).
    expect(reads).toBeGreaterThan(8_000);
    expect(reads).toBeLessThan(10_000);
  }, 120_000);
});
