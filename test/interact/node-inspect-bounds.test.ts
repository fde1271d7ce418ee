/**
 * JavaScript browser code's values shown within bounds, and its wrapper kept working whatever the code changes
 * (src/interact/sandbox/inspect.ts, value-text.ts, prelude.ts), against real Chromium. Before: a large typed array was
 * shown by listing its every index as a key (`Uint8Array(1e8)`: its sandbox page past 2 GB, killed; `3e7`: 2.7 s); a
 * proxy answering itself as its prototype hung the code to its time limit; a sparse array was scanned hole by hole
 * (23.6 s for `a.length = 4e9`) and its element hidden; code that replaced `setTimeout` ran to its time limit with
 * its value lost; a listener of the code's own that took an unhandled rejection (`preventDefault`) was ignored; a
 * value's size was counted twice (a 300,000-key object cut at 424,000 characters, its `result` not flagged); and an
 * `arguments` object had no `[Arguments]` prefix. The expected texts are Node 20's own for the same values.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const run = (code: string, timeout?: number) => s.run(code, "node", timeout);

beforeAll(async () => {
  tb = await startCodeTestbed({});
  s = await tb.session();
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

describe("huge and hostile values are shown at once, as Node shows them", () => {
  test("a large typed array is read by index: its first 100 items, in milliseconds", async () => {
    // Timed in the sandbox itself: the array's own allocation is not the formatter's.
    const r = await run("const u = new Uint8Array(3e7); u[1] = 7; const t = performance.now(); console.log(u); console.log(performance.now() - t < 500)", 30);
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    const [shown, fast] = r.stdout.split("\n]\n");
    expect(shown).toStartWith("Uint8Array(30000000) [\n  0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,");
    expect(shown).toEndWith("\n  ... 29999900 more items");
    expect(fast).toBe("true\n");
    // Short ones still show the other properties they were given.
    expect((await run("const u = new Uint8Array(3); u.foo = 1; console.log(u)")).stdout).toBe("Uint8Array(3) [ 0, 0, 0, foo: 1 ]\n");
  }, 60_000);

  test("a sparse array is walked by its own keys: its element shown, at once", async () => {
    const r = await run("const a = []; a.length = 4e9; a[3e9] = 1; const t = performance.now(); console.log(a); console.log(performance.now() - t < 500)", 10);
    expect(r).toMatchObject({ exitCode: 0, stdout: "[ <3000000000 empty items>, 1, <999999999 empty items> ]\ntrue\n" });
    expect((await run("const b = new Array(3000); b[2500] = 'x'; b[2999] = 2; console.log(b)")).stdout).toBe("[ <2500 empty items>, 'x', <498 empty items>, 2 ]\n");
  }, 60_000);

  test("a proxy whose prototype is itself is shown as Node shows it ({}), not looped on", async () => {
    const r = await run("const p = new Proxy({}, { getPrototypeOf() { return p; } }); console.log(p); 'done'", 10);
    expect(r).toMatchObject({ exitCode: 0, stdout: "{}\n", result: "done" });
  }, 60_000);

  test("an arguments object has Node's [Arguments] prefix", async () => {
    const r = await run("console.log((function () { return arguments; })(1, 'a'))");
    expect(r.stdout).toBe("[Arguments] { '0': 1, '1': 'a' }\n");
  }, 60_000);

  test("a value is shown up to 1,000,000 characters, each entry counted once: a result cut there is flagged", async () => {
    // Nested, so that its entries were counted at each level (a function, so that it is not JSON).
    const r = await run("const big = {}; for (let i = 0; i < 300000; i++) big['k' + i] = 'v'.repeat(10); ({ big, f() {} })", 30);
    expect(r.exitCode).toBe(0);
    expect([r.resultTruncated, r.result.length, r.result.startsWith("{\n  big: {\n    k0: 'vvvvvvvvvv',\n"), r.result.endsWith(" …(cut)")]).toEqual([true, 1_000_007, true, true]);
  }, 60_000);
});

describe("the wrapper does not depend on what the code can change", () => {
  test("code that replaces setTimeout still gives its value", async () => {
    expect(await run("globalThis.setTimeout = (f) => 0;\n'value'", 10)).toMatchObject({ exitCode: 0, killed: false, result: "value" });
    // page.waitForURL waits with the wrapper's own timer too.
    expect(await run("window.setTimeout = () => 0;\nawait page.waitForURL('about:blank', { timeout: 2000 });\n'waited'", 10)).toMatchObject({ exitCode: 0, result: "waited" });
  }, 60_000);

  test("a listener of the code's own that calls preventDefault keeps it going, as a Node handler does; without one it still ends", async () => {
    const handled = await run(
      [
        "addEventListener('unhandledrejection', (e) => { e.preventDefault(); console.log('handled', e.reason.message); });",
        "Promise.reject(new Error('taken'));",
        "await new Promise((r) => setTimeout(r, 100));",
        "'still running'",
      ].join("\n"),
    );
    expect(handled).toMatchObject({ exitCode: 0, stdout: "handled taken\n", stderr: "", result: "still running" });
    const caught = await run("addEventListener('error', (e) => e.preventDefault());\nsetTimeout(() => { throw new Error('in a timer'); }, 0);\nawait new Promise((r) => setTimeout(r, 100));\n'on'");
    expect(caught).toMatchObject({ exitCode: 0, stderr: "", result: "on" });
    // A listener that only looks does not keep it going.
    const looked = await run("addEventListener('unhandledrejection', () => console.log('seen'));\nPromise.reject(new Error('fatal'));\n1");
    expect(looked).toMatchObject({ exitCode: 1, stdout: "seen\n", result: "", stderr: "Error: fatal\n    at <code>:2:16\n" });
  }, 60_000);
});
