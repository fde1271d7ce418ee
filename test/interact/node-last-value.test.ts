/**
 * Browser code in `language: "node"` gives its last expression's value as `result` (src/interact/sandbox/last-value.ts),
 * as Node's REPL does with code that awaits at its top level and as upstream documents `result` ("last expression
 * value for Node.js"; the firecrawl CLI's `browser execute --node 'await page.title()'` prints it): through the
 * official SDK's `browserExecute` and `interact`, with real Chromium. `return` keeps working, code ending with a
 * statement (a declaration, an `if`, a `for`) or with an action gives nothing, values are shown as a returned one is,
 * and an error's stack still names the code's own lines and columns.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

const PAGE = `<!doctype html><html><head><title>Kettle shop</title></head><body>
<button id="buy" onclick="document.getElementById('out').textContent = 'bought'">Buy</button><p id="out"></p></body></html>`;

let tb: CodeTestbed;
let s: CodeSession;
const run = (code: string) => s.run(code, "node");
const resultOf = async (code: string) => {
  const r = await run(code);
  expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: "" });
  return r.result;
};

beforeAll(async () => {
  tb = await startCodeTestbed({ "/shop": PAGE });
  s = await tb.session();
  await run(`await page.goto("${tb.base}/shop")`);
});
afterAll(async () => {
  await s?.end();
  await tb.close();
});

describe("the last expression's value is the result", () => {
  test("an expression, alone or after statements, with or without semicolons; return still works", async () => {
    expect(await resultOf("await page.title()")).toBe("Kettle shop");
    expect(await resultOf("1+1")).toBe("2");
    expect(await resultOf("const x = 3; x * 2")).toBe("6");
    expect(await resultOf("const t = await page.title()\nt.toUpperCase()")).toBe("KETTLE SHOP");
    expect(await resultOf("const n = await page\n  .locator('button')\n  .count();")).toBe("");
    expect(await resultOf("const n = await page\n  .locator('button')\n  .count();\nn + 1;")).toBe("2");
    expect(await resultOf("return 5")).toBe("5");
    expect(await resultOf("if (true) return 'early'; 'late'")).toBe("early");
    // An expression split over lines is one statement, as JavaScript reads it (no semicolon goes in on its own).
    expect(await resultOf("const a = 2\nconst b = a\n  * 10\nb")).toBe("20");
  }, 60_000);

  test("values are shown as a returned value is: a string as it is, anything else as JSON, undefined as nothing", async () => {
    expect(await resultOf("'plain text'")).toBe("plain text");
    expect(await resultOf("({ a: 1, b: [true, null] })")).toBe('{"a":1,"b":[true,null]}');
    expect(await resultOf("[1, 'two']")).toBe('[1,"two"]');
    expect(await resultOf("null")).toBe("null");
    expect(await resultOf("undefined")).toBe("");
    expect(await resultOf("await page.evaluate(() => document.querySelectorAll('button').length)")).toBe("1");
  }, 60_000);

  test("code ending with a statement or an action gives no value (as Node's REPL for code that awaits at its top level)", async () => {
    expect(await resultOf("const y = 1;")).toBe("");
    const logged = await run("console.log('hi')");
    expect(logged).toMatchObject({ exitCode: 0, stdout: "hi\n", result: "" });
    // A last `if` or `for` gives nothing, whatever its branch's value.
    expect(await resultOf("const x = await page.title()\nif (x) { 5 }")).toBe("");
    expect(await resultOf("let last = 0\nfor (let i = 0; i < 3; i++) { last = i }")).toBe("");
    expect(await resultOf("function f() { return 1 }")).toBe("");
    // Actions answer nothing, as Playwright's: a script ending with one has no value; nor has evaluate of nothing.
    expect(await resultOf("await page.click('#buy')")).toBe("");
    expect(await resultOf("await page.locator('#buy').click()")).toBe("");
    expect(await resultOf("await page.waitForTimeout(10)")).toBe("");
    expect(await resultOf("await page.evaluate(() => { document.title = 'Kettle shop'; })")).toBe("");
    expect(await resultOf("await page.textContent('#out')")).toBe("bought");
  }, 60_000);

  test("an error in the last expression still names the code's own lines and columns", async () => {
    expect(await resultOf("const g = () => 7; g()")).toBe("7");
    const code = "const f = () => { throw new Error('x') }; f()";
    const r = await run(code);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`Error: x\n    at f <code>:1:${code.indexOf("new Error") + 1}\n    at <code>:1:${code.lastIndexOf("f()") + 1}\n`);
    const two = await run("const a = 1\nnull.boom");
    expect(two.stderr).toStartWith("TypeError: Cannot read properties of null (reading 'boom')\n    at <code>:2:6\n");
    expect((await run("this is not javascript")).exitCode).toBe(1);
  }, 60_000);

  test("interact's node code on a scrape gives its last expression's value too", async () => {
    const doc: any = await tb.app.scrape(`${tb.base}/shop`, { formats: ["markdown"], maxAge: 0 });
    const id = doc.metadata.scrapeId;
    const r: any = await tb.app.interact(id, { code: "await page.title()", language: "node" });
    expect(r).toMatchObject({ success: true, exitCode: 0, result: "Kettle shop" });
    await tb.app.stopInteraction(id);
  }, 60_000);
});
