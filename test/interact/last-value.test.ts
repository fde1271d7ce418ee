/**
 * How browser code's last statement is found and returned (src/interact/sandbox/last-value.ts), run here with Bun's
 * own JavaScript parser as the judge (the sandbox page uses Chromium's; both follow the language's grammar): strings,
 * templates, comments and regular expressions are skipped, a statement ends where JavaScript ends it (a `;`, a
 * block's `}`, a line break where a semicolon is inserted) and nowhere else, and what is unsure is left as written.
 * The whole path, in Chromium, is in node-last-value.test.ts.
 */
import { describe, expect, test } from "bun:test";
import * as lastValue from "../../src/interact/sandbox/last-value.ts";

const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>;
let parsed = 0;
const parses = (body: string) => {
  parsed++;
  try {
    new AsyncFunction("page", "console", body);
    return true;
  } catch {
    return false;
  }
};
type Rewrite = { body: string; line: number; column: number; added: number } | null;
const rewrite = (code: string): Rewrite => new Function(`return (${lastValue.LAST_VALUE_REWRITE})`)()(code, parses);
/** What the code gives when run (with no page): the rewritten body's value, or the code's own. */
const valueOf = async (code: string) => new AsyncFunction("page", "console", rewrite(code)?.body ?? code)(undefined, console);

describe("the last statement's value", () => {
  test("an expression statement at the end is returned; any other statement gives nothing", async () => {
    const cases: [string, unknown][] = [
      ["1+1", 2],
      ["const x = 3; x * 2", 6],
      ["const t = 'a'\nt.toUpperCase()", "A"],
      ["return 5", 5],
      ["if (true) return 'early'; 'late'", "early"],
      ["const y = 1;", undefined],
      ["const x = 1\nif (x) { 5 }", undefined],
      ["let last = 0\nfor (let i = 0; i < 3; i++) { last = i }", undefined],
      ["function f() { return 1 }", undefined],
      // A declaration last gives nothing, and stays a declaration (hoisted: f() before it still works).
      ["f()\nfunction f() { return 'hoisted' }", undefined],
      ["f()\nfunction f() { return 'hoisted' }\nf()", "hoisted"],
      ["x = 5;;", 5],
      ["return\n5", undefined],
      ["await Promise.resolve(7)", 7],
      ["const o = { a: 1 }\no.a", 1],
      ["for (const a of [1]) {\n  a\n}\n'after the loop'", "after the loop"],
      ["if (true) {}\n[1, 2]", [1, 2]],
      ["const arrow = () => {}\n[0]", [0]],
      ["switch (1) { case 1: 2 }\n'after'", "after"],
      ["try { 1 } finally { 2 }\n'after'", "after"],
      ["label: for (;;) { break label }\n'after'", "after"],
    ];
    for (const [code, want] of cases) expect([code, await valueOf(code)]).toEqual([code, want]);
  });

  test("a statement continued on the next line is one statement, as JavaScript reads it", async () => {
    expect(await valueOf("const a = 2\nconst b = a\n  * 10\nb")).toBe(20);
    expect(await valueOf("const n = 1\nconst m = n\n-1\nm")).toBe(0);
    expect(await valueOf("let x = 1\nx\n++x")).toBe(2);
    expect(await valueOf("const s = [1, 2, 3]\n  .map((v) => v * 2)\n  .join(',')\ns")).toBe("2,4,6");
    // `{a: 1}` then `[0]` on the next line is one expression (a member of the object): nothing to return there.
    expect(rewrite("const o = {a: 1}\n[0]")).toBeNull();
    // `do … while (c)` then an expression: JavaScript ends the loop without a line break, so the break proves
    // nothing; the code runs as written.
    expect(rewrite("let i = 0\ndo { i++ } while (i < 3)\ni")).toBeNull();
  });

  test("strings, templates, comments and regular expressions are skipped", async () => {
    expect(await valueOf("const s = 'a;b' + \"c\\\";d\"\ns.length")).toBe(7);
    expect(await valueOf("const r = /[/;]}/g\nr.source")).toBe("[/;]}");
    expect(await valueOf("const t = `x;${`y;${1 + 1}}`}`\nt")).toBe("x;y;2}");
    expect(await valueOf("const v = 6 / 2 / 3; // a; comment\n/* ; } */ v")).toBe(1);
    expect(await valueOf("const half = { return: 4 }.return / 2; half")).toBe(2);
    expect(await valueOf("const a = [1]\nlet i = 0\ni++\n/1/.test('1')")).toBe(true);
  });

  test("the rewrite says where it put `return (`: a stack frame's column on that line is told back as the code's", () => {
    expect(rewrite("await page.title()")).toEqual({ body: "return (await page.title()\n);", line: 1, column: 0, added: 8 });
    expect(rewrite("const x = 3; x * 2")).toEqual({ body: "const x = 3;;return ( x * 2\n);", line: 1, column: 12, added: 9 });
    // After a line break the last statement keeps its own line and column.
    expect(rewrite("a()\r\nb()\nc()")).toMatchObject({ body: "a()\r\nb();return (\nc()\n);", line: 2, column: 3 });
  });

  test("what it cannot read is left as written, and the parses it makes are bounded", () => {
    expect(rewrite("'unterminated")).toBeNull();
    expect(rewrite("foo(")).toBeNull();
    expect(rewrite("")).toBeNull();
    parsed = 0;
    // Thousands of lines continuing one expression: each line break is a place to check, and the checks stop.
    expect(rewrite(`x = 0\n${Array.from({ length: 5000 }, (_, i) => `+ ${i}`).join("\n")}`)).toBeNull();
    expect(parsed).toBeLessThanOrEqual(lastValue.LAST_VALUE_MAX_PARSES);
  });
});
