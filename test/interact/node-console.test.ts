/**
 * How JavaScript browser code's values come out (src/interact/sandbox/inspect.ts, prelude.ts), against real Chromium:
 * `console.log`/`console.error` and a `result` JSON cannot hold are shown as Node's util.inspect shows them (the
 * expected texts are Node 20's own output for the same code); an error from a `page` call names the code's line; an
 * exception in a callback and an unhandled rejection end the code with exit code 1, as they end a Node script, while
 * a rejection handled in the same turn does not. Before, these printed `{}`, `null`, `undefined` or
 * `[object Object]`, and asynchronous errors vanished with exit code 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const run = (code: string, timeout?: number) => s.run(code, "node", timeout);

beforeAll(async () => {
  tb = await startCodeTestbed({ "/form": `<html><head><title>Form</title></head><body><button id="go">Go</button></body></html>` });
  s = await tb.session();
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

describe("console.log and console.error show values as Node does", () => {
  test("numbers, functions, symbols, undefined; strings as they are at the top, quoted inside", async () => {
    const r = await run(
      [
        "console.log(NaN, Infinity, -0)",
        "console.log(() => 1, function named() {}, Symbol('s'), undefined, null, 10n)",
        "console.log('a', 'b', { s: 'x', n: [1, 'two'] })",
        "console.log('%s is %d years, %i%%, %j', 'Al', 41.5, 7.9, { a: 1 }, 'extra')",
        "class Point { constructor() { this.x = 1; this.y = 2; } }",
        "console.log(new Point(), new Date(0), /re/g, [undefined, , 3])",
      ].join("\n"),
    );
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toBe(
      [
        "NaN Infinity -0",
        "[Function (anonymous)] [Function: named] Symbol(s) undefined null 10n",
        "a b { s: 'x', n: [ 1, 'two' ] }",
        "Al is 41.5 years, 7%, {\"a\":1} extra",
        "Point { x: 1, y: 2 } 1970-01-01T00:00:00.000Z /re/g [ undefined, <1 empty item>, 3 ]",
        "",
      ].join("\n"),
    );
  }, 60_000);

  test("cycles, Map and Set, depth and long arrays laid out as Node lays them out", async () => {
    const r = await run(
      [
        "const o = {}; o.self = o; console.log(o)",
        "console.log(new Map([[1, 2]]), new Set(['a']))",
        "console.log({ a: { b: { c: { d: 1 } } } })",
        "console.log([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])",
      ].join("\n"),
    );
    expect(r.stdout).toBe("<ref *1> { self: [Circular *1] }\nMap(1) { 1 => 2 } Set(1) { 'a' }\n{ a: { b: { c: [Object] } } }\n[\n  1, 2, 3, 4,  5,\n  6, 7, 8, 9, 10\n]\n");
  }, 60_000);

  test("an error logged is its stack, at the code's own lines; one from a page call names the line that made it", async () => {
    const own = await run("const a = 1;\nconsole.log(new Error('plain'))");
    expect(own.stdout).toBe("Error: plain\n    at <code>:2:13\n");
    const code = `await page.goto("${tb.base}/form");\ntry { await page.click("#nope", { timeout: 300 }); } catch (e) { console.error(e); console.log(e.message); }`;
    const caught = await run(code);
    expect(caught).toMatchObject({ exitCode: 0, stdout: "no element matches #nope after 300 ms\n" });
    expect(caught.stderr).toBe(`Error: no element matches #nope after 300 ms\n    at <code>:2:${code.split("\n")[1]!.indexOf("click(") + 1}\n`);
    // Uncaught, the same stack ends the code.
    const thrown = await run(`await page.goto("${tb.base}/form");\n\nawait page.click("#nope", { timeout: 300 });`);
    expect(thrown).toMatchObject({ exitCode: 1, stderr: "Error: no element matches #nope after 300 ms\n    at <code>:3:12\n" });
  }, 60_000);

  test("a huge value is shown bounded, in its time", async () => {
    const t0 = performance.now();
    const r = await run("console.log(Array.from({ length: 1000000 }, (_, i) => i)); const big = {}; for (let i = 0; i < 300000; i++) big['k' + i] = 'v'.repeat(10); console.log(big)");
    expect(r.exitCode).toBe(0);
    const [arr, obj] = r.stdout.split("\n]\n") as [string, string];
    // (Booleans, not the texts: a failure should not print a megabyte.)
    expect(arr.endsWith("  ... 999900 more items")).toBe(true);
    // The object is shown up to 1,000,000 characters (each entry counted once), so stdout is full and flagged.
    expect([r.truncated, r.stdout.length, obj.startsWith("{\n  k0: 'vvvvvvvvvv',\n")]).toEqual([true, 1_000_000, true]);
    expect(performance.now() - t0).toBeLessThan(20_000);
  }, 60_000);
});

describe("the result", () => {
  test("data stays JSON; a value JSON cannot hold is shown as console.log shows it", async () => {
    expect((await run("({ a: 1, b: [true, null] })")).result).toBe('{"a":1,"b":[true,null]}');
    expect((await run("[1, 'two']")).result).toBe('[1,"two"]');
    expect((await run("const o = {}; o.self = o; o")).result).toBe("<ref *1> { self: [Circular *1] }");
    expect((await run("return new Error('x')")).result).toBe("Error: x\n    at <code>:1:8");
    expect((await run("new Map([[1, { n: NaN }]])")).result).toBe("Map(1) { 1 => { n: NaN } }");
    expect((await run("-0")).result).toBe("-0");
    expect((await run("undefined")).result).toBe("");
  }, 60_000);
});

describe("asynchronous errors end the code as they end a Node script", () => {
  test("an exception in a timer: exit code 1, its stack, and nothing after it runs", async () => {
    const r = await run("setTimeout(() => { throw new Error('async boom'); }, 10);\nawait new Promise((r) => setTimeout(r, 500));\nconsole.log('after');\n'after'");
    expect(r).toMatchObject({ exitCode: 1, stdout: "", result: "", stderr: "Error: async boom\n    at <code>:1:26\n" });
  }, 60_000);

  test("an unhandled rejection: exit code 1 with its stack, also when the code ends in the same turn", async () => {
    const r = await run("Promise.reject(new Error('x'));\n7");
    expect(r).toMatchObject({ exitCode: 1, result: "", stderr: "Error: x\n    at <code>:1:16\n" });
    const late = await run("Promise.reject(new Error('later'));\nawait new Promise((r) => setTimeout(r, 300));\nconsole.log('after')");
    expect(late).toMatchObject({ exitCode: 1, stdout: "" });
    const why = await run("Promise.reject('why');\n1");
    expect(why.exitCode).toBe(1);
    expect(why.stderr).toContain('The promise rejected with the reason "why".');
  }, 60_000);

  test("a rejection the code handles in the same turn is no error", async () => {
    const r = await run("const p = Promise.reject(new Error('x'));\nawait null;\np.catch(() => {});\n7");
    expect(r).toMatchObject({ exitCode: 0, stderr: "", result: "7" });
    const caught = await run(`const p = page.click("#nope", { timeout: 200 });\nawait p.catch((e) => console.log('handled:', e.message));\n'ok'`);
    expect(caught).toMatchObject({ exitCode: 0, result: "ok", stdout: "handled: no element matches #nope after 200 ms\n" });
  }, 60_000);
});
