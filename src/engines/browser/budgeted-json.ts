/**
 * @module engines/browser/budgeted-json
 * Writing a value's JSON in the page only as far as crawlbox reads it, for every path that takes a caller's value out
 * of a page through its JSON: {@link COUNTED_JSON} for a script's value (script.ts: the `executeJavascript` action,
 * interact's `page.evaluate` and bash's `eval`), a locator's `evaluate` ({@link BOUNDED_ANSWER} with functions taken
 * when its world was made, interact/code-world.ts), the element reads (interact/isolated-world.ts `WorldElement.call`)
 * and a locator's lists (interact/sandbox/locate.ts `mapMatches`);
 * {@link JSON_WRITER}, which can cut a text at the budget, for the sandbox's `result` and `%j`
 * (interact/sandbox/value-text.ts). `JSON.stringify` makes the whole text before its length can be
 * looked at: a value holding a 200 MB string cost its page another 200 MB and more (a value whose JSON is longer than
 * a string may be, the same string three times, threw `RangeError: Invalid string length` instead of being refused
 * or cut). Here, in engines/browser, since both the scrape's engine and interact use it; it imports nothing.
 *
 * Plain JavaScript in strings, evaluated in the page (or in an isolated world of it).
 */

/**
 * Source of a function expression `(quote) => ({ plainArray, jsonWithin })`, given the `JSON.stringify` to quote
 * strings with (taken by the caller where it trusts it):
 *
 * - `plainArray(x)`: whether an object is a plain array (true) or a plain object (false), as data holds them (its
 *   own prototype, no symbol key, and for an array of at most 100,000 items no hole or other property); undefined for
 *   anything else.
 * - `jsonWithin(v, budget)`: the JSON of a value made of data (null, booleans, strings, finite numbers, arrays and
 *   plain objects of them), as `JSON.stringify` writes it, but only up to `budget` characters: past them no more is
 *   looked at or written. The text is then longer than the budget (cut there by what reads it); it is longer than the
 *   budget exactly when the whole JSON would be. The part written is `JSON.stringify`'s text, character for character
 *   (a string is written from its first characters only, a few past the budget). Values are read as `JSON.stringify`
 *   reads them (`x[k]`: a getter runs, a Proxy's traps answer). Undefined when it meets anything else before the
 *   budget (a Date, a function, `undefined`, an object with a `toJSON`, its own or inherited: `JSON.stringify`
 *   writes those itself, and the caller falls back to it).
 */
export const JSON_WRITER = `((quote) => {
  const plainArray = (x) => {
    const proto = Object.getPrototypeOf(x);
    const array = Array.isArray(x);
    if (array ? proto !== Array.prototype || (x.length <= 100000 && Object.keys(x).length !== x.length) : proto !== Object.prototype) return undefined;
    return Object.getOwnPropertySymbols(x).length ? undefined : array;
  };
  const jsonWithin = (v, budget) => {
    const parts = [];
    let size = 0;
    const full = () => size > budget;
    const put = (t) => { parts.push(t); size += t.length; };
    const string = (t) => { const room = Math.max(0, budget - size + 2); put(quote(t.length > room ? t.slice(0, room) : t)); };
    const on = new Set();
    const item = (x, k, depth) => walk(x[k], depth + 1);
    const walk = (x, depth) => {
      if (x === null) return put("null"), true;
      if (typeof x === "boolean") return put(x ? "true" : "false"), true;
      if (typeof x === "string") return string(x), true;
      if (typeof x === "number") return Number.isFinite(x) && !Object.is(x, -0) && (put(String(x)), true);
      if (typeof x !== "object" || on.has(x) || depth > 1000 || "toJSON" in x) return false;
      const array = plainArray(x);
      if (array === undefined) return false;
      on.add(x);
      if (array) {
        put("[");
        for (let i = 0; i < x.length && !full(); i++) { if (i) put(","); if (!item(x, i, depth)) return false; }
        put("]");
      } else {
        put("{");
        let first = true;
        for (const k of Object.keys(x)) {
          if (full()) break;
          if (!first) put(",");
          first = false;
          string(k);
          put(":");
          if (!item(x, k, depth)) return false;
        }
        put("}");
      }
      on.delete(x);
      return true;
    };
    return walk(v, 0) ? parts.join("") : undefined;
  };
  return { plainArray: plainArray, jsonWithin: jsonWithin };
})`;

/**
 * Source of a function expression `(stringify, isArray, viewLength) => (v, cap) => ({json} | {over: true})`: `v`'s
 * JSON text as `stringify(v)` writes it, byte for byte, or `{over: true}` once it is known to be longer than `cap`
 * characters, without the rest having been written. `stringify` and `isArray` are `JSON.stringify` and
 * `Array.isArray` as the caller trusts them, `viewLength` a typed array's length (-1 for anything else; in a page's
 * main world, the copies taken before its scripts ran: trusted-json.ts).
 *
 * `stringify` is given a replacer that returns each value unchanged (so the text is what it would be without one)
 * and keeps a lower bound of the text written so far: a string `x.length + 2`, another primitive 1, a member of an
 * object that is written `key.length + 3` (its quoted key and colon), an element of an array 1. It throws a private
 * mark past `cap`, caught here alone; a typed array of n items (at least `"i":0,` each) as soon as 5n more would pass
 * it, before JSON lists its n keys (10^8 of them took 20 s). Only the caller's two functions and operators are used, nothing a page can
 * redefine: a page making `Object.keys` answer 200,000 keys changes nothing. JSON's own rules hold throughout (each
 * getter read once, `toJSON` and a `Date` as JSON writes them, a typed array by its indices), so a value no string
 * could hold (`[undefined, s, s, s]` of a 200 MB `s`, a `Uint8Array` of 10^8) is refused having written about
 * `cap`. The text may still be longer than `cap` (escapes count as one character here): the caller checks.
 */
export const COUNTED_JSON = `((stringify, isArray, viewLength) => (v, cap) => {
  const stop = {};
  let size = 0, root = true;
  const replacer = function (k, x) {
    const t = typeof x;
    if (root) root = false;
    else if (isArray(this)) size += 1;
    else if (t !== "undefined" && t !== "function" && t !== "symbol") size += k.length + 3;
    if (t === "string") size += x.length + 2;
    else if (t === "number" || t === "boolean" || t === "bigint" || x === null) size += 1;
    else if (t === "object" && size + 5 * viewLength(x) > cap) throw stop;
    if (size > cap) throw stop;
    return x;
  };
  try { return { json: stringify(v, replacer) }; } catch (e) { if (e === stop) return { over: true }; throw e; }
})`;

/**
 * Source of a function expression `(stringify, isArray, viewLength) => (v, maxChars, subject) => answer`: `v` made
 * ready to cross the DevTools connection within `maxChars` characters, the three functions as {@link COUNTED_JSON}
 * takes them. The answer is `v` itself for a string within the bound, `{json}` for any other value within it (its
 * JSON text, undefined when JSON has none, as for `undefined` or a function), or `{over}`, the message of a refusal
 * (`subject` begins it: "the value is 5000000 characters, over the 1000000 that are read", or "more than" the bound
 * when the rest of the JSON was never written). It throws nothing of its own (a getter's or `toJSON`'s exception, or
 * JSON's on a cycle, goes through), and calls nothing but the three functions and operators: given functions taken
 * when a world was made, code run in that world later cannot change what it measures (interact/code-world.ts).
 */
export const BOUNDED_ANSWER = `((stringify, isArray, viewLength) => {
  const counted = ${COUNTED_JSON}(stringify, isArray, viewLength);
  return (v, maxChars, subject) => {
    const over = (n) => ({ over: subject + " " + n + " characters, over the " + maxChars + " that are read" });
    if (typeof v === "string") return v.length > maxChars ? over(v.length) : v;
    const r = counted(v, maxChars);
    if (r.over) return over("more than " + maxChars);
    if (typeof r.json === "string" && r.json.length > maxChars) return over(r.json.length);
    return { json: r.json };
  };
})`;

/**
 * Source of a function expression `(v) => answer` for crawlbox's isolated world, whose builtins neither the page nor
 * a caller's code can reach (a locator's `evaluate` runs in a world of its own, interact/code-world.ts): `v` made
 * ready to cross the DevTools connection within `maxChars` characters, or an error thrown before it crosses;
 * `subject` begins the message (`"the value is"`). A string crosses as itself, bounded by its length. Any other
 * value crosses as `{json}`, its JSON text (undefined when JSON has none, as for `undefined` or a function), bounded
 * by that text's length and made by {@link COUNTED_JSON}, which stops writing past the bound: the caller parses it
 * ({@link fromBounded}). The text, not the value, crosses, so what is measured is what crosses: returning the value
 * made DevTools serialise it again by its own rules (no `toJSON`, a `Date`'s other properties, getters read again),
 * and a 5 MB value passed a 1 MB bound. A value over it is told by its size when that is known (a string, a text
 * written whole), else as "more than" the bound ({@link BOUNDED_ANSWER}).
 */
export function boundedSource(maxChars: number, subject: string): string {
  return `(v) => {
    const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
    const viewLength = (x) => { if (!ArrayBuffer.isView(x)) return -1; try { return typedLength.call(x); } catch (_) { return -1; } };
    const a = ${BOUNDED_ANSWER}(JSON.stringify, Array.isArray, viewLength)(v, ${maxChars}, ${JSON.stringify(subject)});
    if (typeof a === "object" && typeof a.over === "string") throw new Error(a.over);
    return a;
  }`;
}

/** The value a {@link boundedSource} answer stands for, as crawlbox gets it over `returnByValue`. */
export function fromBounded(answer: unknown): unknown {
  if (typeof answer === "string") return answer;
  const json = (answer as { json?: unknown } | null | undefined)?.json;
  return typeof json === "string" ? (JSON.parse(json) as unknown) : undefined;
}
