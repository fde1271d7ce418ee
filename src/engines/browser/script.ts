/**
 * @module engines/browser/script
 * Runs a client's script in the page (the `executeJavascript` action, interact's `evaluate`) and returns its value
 * as upstream does, `{type, value}`. Three ways, tried in this order, each for what the one before cannot run:
 *
 * 1. A classic script through direct `eval`: its value is the last expression statement's, a promise is awaited.
 *    The eval runs in a function of its own that declares nothing, so a script may declare any name (`var v`,
 *    `let out`) and its `let`/`const` never meet the page's own top-level ones.
 * 2. Top-level `await` (which eval refuses): CDP `Runtime.evaluate` in REPL mode, which allows it and still gives the
 *    completion value (`await Promise.resolve(7)` is 7). The script is a block there, so that its `let`, `const`
 *    and `class` end with it: at a REPL script's top level they are the page's globals, and kept what they held after
 *    the call (`await null; const big = …` of a 200 MB string kept 200 MB of the page, each new name 200 MB more), and
 *    a name the page declared was refused. Not the first way: its `var` and functions are still the page's globals,
 *    and a string result crosses the DevTools connection before its size can be checked.
 * 3. A top-level `return` (or top-level `await` with a `var` of a name the page declared with `let`): the script is
 *    the body of an async function, made by the async function constructor from its text, whose return value is the
 *    result.
 *
 * A value whose JSON is longer than the caller's bound is refused in the page, before it crosses the DevTools
 * connection: a copy of `JSON.stringify` the page's scripts cannot replace writes it, and is stopped once a count
 * kept as it writes passes the bound (budgeted-json.ts `COUNTED_JSON`; a primitive from way 2 is checked on arrival).
 */
import type { Page, Protocol } from "puppeteer-core";
import { COUNTED_JSON } from "./budgeted-json.ts";
import { TRUSTED_JSON_NAME } from "./trusted-json.ts";

/**
 * Marks a page-side refusal of an oversized result, followed by its size in characters, or by `>` and a size it is
 * more than (the rest of its JSON was never written).
 */
const TOO_LARGE_MARK = "crawlbox:too-large:";
/** A string needing more than its quotes in JSON (an escape, or a surrogate that may be a lone one, escaped). */
const MAY_ESCAPE = String.raw`/["\\\u0000-\u001f\ud800-\udfff]/`;

/**
 * A result refused for its size before it was taken. `exact`: `size` is what it would have been, in characters (a
 * string's is known from its length); otherwise it is at least `size` (more than `size - 1`): the bound, for a value
 * whose JSON was stopped past it, or a string's length and one quote, for one JSON may write longer than its length.
 */
export class OversizedResult extends Error {
  constructor(
    readonly size: number,
    readonly exact = true,
  ) {
    super(exact ? `a result of ${size} characters` : `a result of more than ${size - 1} characters`);
  }
}

/** The result of a script, as upstream's `javascriptReturns` entries. */
export interface ScriptResult {
  type: string;
  value: unknown;
}

/** The SyntaxError of a top-level `return` in a classic script or in REPL mode. */
const TOP_LEVEL_RETURN = /Illegal return|Unexpected token 'return'/;
/** The SyntaxError of a top-level `await` outside an async function. */
const TOP_LEVEL_AWAIT = /await is only valid/;
/** The SyntaxError of a REPL-mode declaration refused for a name the page's own scripts declared (a `var` of their `let`). */
const REPL_REDECLARED = /^SyntaxError: Identifier '.*' has already been declared/;
/** The CDP object group of REPL-mode results, released after each script. */
const OBJECT_GROUP = "crawlbox-script";

/**
 * Page-side statements that turn `v` (the awaited value) into `{type, json}`, the value as JSON text made with the
 * page's `JSON.stringify` as it was before the page's scripts ran (trusted-json.ts; the page's current one where
 * that copy is missing), and refuse it when that text is longer than `cap` characters (`cap` < 0: no bound). Only
 * the text crosses the DevTools connection, so its measured length is what crosses, whatever the page redefined
 * (a replaced `JSON.stringify` could report a tiny size for a value of gigabytes). A bigint is its digits; a value
 * JSON cannot hold (a cycle) is an error naming why. Runs in the wrapper's scope, never in the script's.
 *
 * Under a bound, that copy writes the text with a replacer that counts a lower bound of it as it goes and stops it
 * past the bound (budgeted-json.ts {@link COUNTED_JSON}, given the copy's `Array.isArray` too): a value holding
 * 200 MB of strings cost the page all of its JSON more (600 MB of it, `[s, s, s]`, was a `RangeError`), and is now
 * refused having written about the bound, said as "more than" it. Nothing the page's scripts can redefine is called,
 * the text is the copy's own, byte for byte, and each getter is read once. A string longer than the bound is refused
 * by its length, without being written: its JSON is its length and quotes when it has nothing to escape, else longer;
 * a shorter one is written whole, and its exact size told when that is over.
 */
function resultStatements(cap: number): string {
  const tooLarge = (size: string) => `throw new Error(${JSON.stringify(TOO_LARGE_MARK)} + ${size})`;
  return (
    `const T = window[${JSON.stringify(TRUSTED_JSON_NAME)}];` +
    ` const type = v === null ? "null" : (T ? T.isArray : Array.isArray)(v) ? "array" : typeof v;` +
    ` let json, over; try {` +
    ` if (typeof v === "bigint") json = '"' + v + '"'; else if (v === undefined) json = "null";` +
    ` else if (${cap} >= 0 && typeof v === "string" && v.length > ${cap}) over = ${MAY_ESCAPE}.test(v) ? ">" + (v.length + 1) : "" + (v.length + 2);` +
    ` else if (${cap} >= 0 && typeof v !== "string") { const r = ${COUNTED_JSON}(T ? T.stringify : JSON.stringify.bind(JSON), T ? T.isArray : Array.isArray, T ? T.viewLength : () => -1)(v, ${cap});` +
    ` if (r.over) over = ">" + ${cap}; else json = r.json; }` +
    ` else json = T ? T.stringify(v) : JSON.stringify(v); }` +
    ` catch (e) { throw new Error("the script's value cannot be turned into JSON: " + (e && e.message)); }` +
    ` if (over !== undefined) ${tooLarge("over")};` +
    ` if (typeof json !== "string") json = "null";` +
    ` if (${cap} >= 0 && json.length > ${cap}) ${tooLarge("json.length")};` +
    ` return { type, json };`
  );
}

/** The value of a page-side `{type, json}` (see {@link resultStatements}). */
function fromPage(answer: unknown): ScriptResult {
  const r = answer as { type?: unknown; json?: unknown } | undefined;
  if (!r || typeof r.json !== "string") return { type: "undefined", value: null };
  return { type: String(r.type), value: JSON.parse(r.json) as unknown };
}

/**
 * Evaluates `script` in the page's main world (see the module comment for how) and returns `{type, value}`.
 * @param maxChars - longest JSON of the value accepted; a longer one throws {@link OversizedResult}. @default Infinity
 */
export async function evaluateScript(page: Page, script: string, maxChars = Infinity): Promise<ScriptResult> {
  try {
    return await evaluateAnyWay(page, script, maxChars);
  } catch (err) {
    const reason = messageOf(err).split("\n")[0]!.replace(/^Error: /, "");
    const size = reason.startsWith(TOO_LARGE_MARK) ? /^(>?)(\d+)$/.exec(reason.slice(TOO_LARGE_MARK.length)) : null;
    if (!size) throw err;
    throw size[1] ? new OversizedResult(Number(size[2]) + 1, false) : new OversizedResult(Number(size[2]));
  }
}

async function evaluateAnyWay(page: Page, script: string, maxChars: number): Promise<ScriptResult> {
  const cap = Number.isFinite(maxChars) ? Math.max(0, Math.floor(maxChars)) : -1;
  // The inner arrow is eval's variable scope: `var v` in the script lands there, away from the wrapper's `v`.
  const classic = `(async () => { const v = await (() => eval(${JSON.stringify(script)}))(); ${resultStatements(cap)} })()`;
  try {
    return fromPage(await page.evaluate(classic));
  } catch (err) {
    const reason = messageOf(err);
    if (TOP_LEVEL_AWAIT.test(reason)) {
      try {
        return await evaluateInReplMode(page, script, cap);
      } catch (replErr) {
        // A `return` too, or a `var` the page declared with `let` (a global in REPL mode): way 3, as before REPL mode.
        if (!TOP_LEVEL_RETURN.test(messageOf(replErr)) && !REPL_REDECLARED.test(messageOf(replErr))) throw replErr;
      }
    } else if (!TOP_LEVEL_RETURN.test(reason)) {
      throw err;
    }
  }
  // The body is handed to the async function constructor as data, never pasted into the wrapper: pasted, a script
  // could close the function around it and return from the wrapper itself, past the bound (20 MB came back).
  // Called on the page's global object, as the arrow it used to be pasted into had it (not undefined under "use strict").
  const body = `(async () => { const v = await (async () => {}).constructor(${JSON.stringify(script)}).call(window); ${resultStatements(cap)} })()`;
  return fromPage(await page.evaluate(body));
}

/** Way 2: REPL mode (top-level `await`), on a CDP session of its own that is detached afterwards. */
async function evaluateInReplMode(page: Page, script: string, cap: number): Promise<ScriptResult> {
  const session = await page.createCDPSession();
  try {
    const { result, exceptionDetails } = await session.send("Runtime.evaluate", {
      // A block keeps the script's `let`/`const`/`class` from the page's globals (the module comment); its completion
      // value is the script's. Its directive prologue (`"use strict"`) stays before the block, where it is one. The
      // newlines end a `// comment` it may end with.
      expression: inBlock(script),
      replMode: true,
      awaitPromise: true,
      returnByValue: false,
      objectGroup: OBJECT_GROUP,
    });
    if (exceptionDetails) throw new Error(exceptionText(exceptionDetails));
    if (result.objectId) {
      // An object (a promise too: awaited there) is described in the page, and bounded before it crosses.
      const described = await session.send("Runtime.callFunctionOn", {
        objectId: result.objectId,
        functionDeclaration: `async function () { const v = await this; ${resultStatements(cap)} }`,
        awaitPromise: true,
        returnByValue: true,
      });
      if (described.exceptionDetails) throw new Error(exceptionText(described.exceptionDetails));
      return fromPage(described.result.value);
    }
    return primitiveResult(result, cap);
  } finally {
    await session.send("Runtime.releaseObjectGroup", { objectGroup: OBJECT_GROUP }).catch(() => {});
    await session.detach().catch(() => {});
  }
}

/**
 * `script` as a block, its directive prologue (the string statements it starts with, `"use strict"`) kept before
 * it: inside a block a directive is a string statement that does nothing, and a strict script ran sloppy.
 */
export function inBlock(script: string): string {
  const end = prologueEnd(script);
  return end === 0 ? `{\n${script}\n}` : `${script.slice(0, end)};\n{\n${script.slice(end)}\n}`;
}

/** What, after a string statement and a new line, goes on with it (no semicolon is inserted there): not a directive. */
const GOES_ON = /[.[(`+\-*/%,?=<>&|^!~]|in(?:stanceof)?(?![\w$])/y;
/** A blank, a line's end or a comment. */
const BLANK = /[^\S\n\r\u2028\u2029]+|[\n\r\u2028\u2029]|\/\/[^\n\r\u2028\u2029]*|\/\*[\s\S]*?\*\//y;
/** A string literal on one line (a line continuation, `\` and a line's end, ends the prologue: rare, and kept as it was). */
const STRING = /"(?:[^"\\\n\r]|\\[^\n\r])*"|'(?:[^'\\\n\r]|\\[^\n\r])*'/y;

/**
 * Where `script`'s directive prologue ends (0: it has none): after its last string statement that is whole, ended by
 * `;`, by the script's end, or by a new line that nothing after continues. What may not be one (`"use strict".length`,
 * a string and a new line that an operator continues) ends it before it, so it stays in the block as it was.
 */
function prologueEnd(script: string): number {
  let i = 0;
  let end = 0;
  /** Skips blanks and comments from `i`; whether a line ended among them. */
  const skip = (): boolean => {
    let newline = false;
    for (let m; (BLANK.lastIndex = i), (m = BLANK.exec(script)); i += m[0].length) if (/[\n\r\u2028\u2029]/.test(m[0])) newline = true;
    return newline;
  };
  for (;;) {
    skip();
    STRING.lastIndex = i;
    const literal = STRING.exec(script);
    if (!literal) return end;
    const after = (i += literal[0].length);
    const newline = skip();
    GOES_ON.lastIndex = i;
    if (script[i] === ";") end = ++i;
    else if (i >= script.length) return after;
    else if (newline && !GOES_ON.test(script)) end = after;
    else return end;
  }
}

/** `{type, value}` of a primitive REPL-mode result, as the page-side statements would give it. */
function primitiveResult(r: Protocol.Runtime.RemoteObject, cap: number): ScriptResult {
  let out: ScriptResult;
  if (r.type === "undefined") out = { type: "undefined", value: null };
  else if (r.subtype === "null") out = { type: "null", value: null };
  // NaN, ±Infinity and -0 are null in JSON (as a page-side `returnByValue` gives them); a bigint is its digits.
  else if (r.unserializableValue !== undefined) out = { type: r.type, value: r.type === "bigint" ? r.unserializableValue.replace(/n$/, "") : null };
  else out = { type: r.type, value: r.value ?? null };
  const n = (JSON.stringify(out.value) ?? "").length;
  if (cap >= 0 && n > cap) throw new Error(`${TOO_LARGE_MARK}${n}`);
  return out;
}

/** The first line of a thrown exception's description (`ReferenceError: x is not defined`), as puppeteer gives it. */
function exceptionText(d: Protocol.Runtime.ExceptionDetails): string {
  return String(d.exception?.description ?? d.exception?.value ?? d.text).split("\n")[0]!;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
