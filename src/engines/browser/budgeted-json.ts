/**
 * @module engines/browser/budgeted-json
 * Writing a value's JSON in the page only as far as crawlbox reads it: one in-page writer for every path that takes
 * a caller's value out of a page through its JSON: a script's value (script.ts: the `executeJavascript` action,
 * interact's `page.evaluate` and bash's `eval`), the sandbox's `result` and `%j` (interact/sandbox/value-text.ts), a
 * locator's `evaluate` and the other element reads (interact/isolated-world.ts `WorldElement.call`), and a locator's
 * lists (interact/sandbox/locate.ts `mapMatches`). `JSON.stringify` makes the whole text before its length can be
 * looked at: a value holding a 200 MB string cost its page another 200 MB and more (a value whose JSON is longer than
 * a string may be, the same string three times, threw `RangeError: Invalid string length` instead of being refused
 * or cut). Here, in engines/browser, since both the scrape's engine and interact use it; it imports nothing.
 *
 * Plain JavaScript in a string, evaluated in the page (or in crawlbox's isolated world of it): see
 * {@link JSON_WRITER}.
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
 * Source of a function expression `(v) => v` for crawlbox's isolated world: gives `v` back when its JSON (a string:
 * its length) is at most `maxChars` characters, and throws otherwise, before the value crosses the DevTools
 * connection; `subject` begins the message (`"the value is"`). The JSON is written by {@link JSON_WRITER} no further
 * than the bound; a value it does not write (not data) is measured with the world's `JSON.stringify`, whole, as
 * before. A value over the bound is told by its size when that is known (a string, a value that is not data), else
 * as "more than" the bound: the rest was never written.
 */
export function boundedSource(maxChars: number, subject: string): string {
  const over = (n: string) => `throw new Error(${JSON.stringify(`${subject} `)} + ${n} + " characters, over the ${maxChars} that are read")`;
  return `(v) => {
    if (typeof v === "string") { if (v.length > ${maxChars}) ${over("v.length")}; return v; }
    const json = ${JSON_WRITER}(JSON.stringify).jsonWithin(v, ${maxChars});
    if (json !== undefined) { if (json.length > ${maxChars}) ${over(`"more than ${maxChars}"`)}; return v; }
    const n = (JSON.stringify(v) || "").length;
    if (n > ${maxChars}) ${over("n")};
    return v;
  }`;
}
