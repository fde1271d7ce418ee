/**
 * @module interact/sandbox/value-text
 * How what JavaScript browser code gives, logs and throws becomes text, in its sandbox page (prelude.ts's wrapper):
 * a log line (`console.log`'s arguments, as Node's `util.format` joins them, each value as inspect.ts shows it), the
 * `result` (a string as it is, data as JSON, anything else as `console.log` shows it) and an error's stack (the
 * code's own frames only, at its own lines). None of it may throw: a value that cannot be read is said so, since an
 * exception here would leave the code no outcome, and it would run to its time limit.
 *
 * Plain JavaScript in a string (statements of the wrapper, before the code runs), for the same reason as the prelude.
 * It defines `cut`, `quoteJson`, `toText`, `shape`, `codeStack`, `thrownText`, `inspect`, `plainArray`, `jsonWithin`,
 * `isData`, `dataJson`, `show` and `format`. A value's JSON is written within a budget ({@link MAX_TEXT_CHARS}) by the
 * writer every path out of a page shares (engines/browser/budgeted-json.ts): what is not shown is not made.
 */
import { JSON_WRITER } from "../../engines/browser/budgeted-json.ts";
import { INSPECT } from "./inspect.ts";

/** Characters of a log line or a result sent back; a value's JSON is written no further than this (and cut there). */
const MAX_TEXT_CHARS = 1_000_000;

/** The statements; see the module comment. */
export const VALUE_TEXT = `
  // What goes back to crawlbox is cut here first (crawlbox also stops a script that sends too much in all).
  const cut = (s) => s.length > ${MAX_TEXT_CHARS} ? s.slice(0, ${MAX_TEXT_CHARS}) + " …(cut)" : s;
  // JSON.stringify as it was before the code ran: strings of JSON text are quoted with it. A value is shown as the
  // JSON.stringify of the page at the time writes it, as before: code that replaced it gets its own's text (dataJson is
  // not used then, see show).
  const quoteJson = JSON.stringify;
  // Turning what the code gave or threw into text must not throw in its turn (an object without a prototype has no
  // toString, a getter may throw): an exception here would leave no outcome, and the code would run to its time limit.
  const toText = (v, fallback) => { try { return String(v); } catch (_) { return fallback; } };
  // An error's stack as the caller's code: its message, then its own frames only, at its own lines (the function
  // crawlbox makes of the code adds two lines before its first; \`shape.moved\`: where the body run differs from the
  // code as written, last-value.ts, for the columns), the prelude's frames left out.
  const shape = { moved: null };
  const frame = /^\\s+at (async )?(\\S+) \\(eval at .*, <anonymous>:(\\d+):(\\d+)\\)$/;
  const codeStack = (e) => {
    const raw = e.stack;
    if (!raw) return Error.prototype.toString.call(e);
    let message = true;
    return String(raw).split("\\n").flatMap((l) => {
      if (message && !/^\\s+at /.test(l)) return [l];
      message = false;
      const f = frame.exec(l);
      if (!f) return [];
      const line = Number(f[3]) - 2;
      const m = shape.moved;
      const column = m && line === m.line && Number(f[4]) - 1 >= m.column ? Number(f[4]) - m.added : Number(f[4]);
      return ["    at " + (f[1] || "") + (f[2] === "eval" ? "" : f[2] + " ") + "<code>:" + line + ":" + column];
    }).join("\\n");
  };
  // What is shown of a value thrown, uncaught: its stack, else its text (what cannot be read is said so).
  const thrownText = (e) => {
    let stack;
    try { stack = e && e.stack ? codeStack(e) : undefined; } catch (_) { stack = undefined; }
    return stack !== undefined ? stack : toText(e, "Uncaught (unprintable value)");
  };
  const inspect = ${INSPECT};
  // Whether an object is a plain array or object as data holds them (plainArray), and a value's JSON written no
  // further than a budget (jsonWithin): engines/browser/budgeted-json.ts, the writer every path out of a page shares.
  const { plainArray, jsonWithin } = ${JSON_WRITER}(quoteJson);
  // A value JSON holds as it is: null, booleans, strings, finite numbers (not -0), and arrays and plain objects of
  // them (no cycle, getter, hole or symbol key, nor another property on an array of at most 100,000 items: a longer
  // one's are not looked for, since listing its keys lists every index); past 100,000 objects or 1,000,000 values,
  // whatever JSON.stringify takes.
  const isData = (v) => {
    let objects = 0, values = 0;
    const enough = () => objects > 100000 || values > 1000000;
    const on = new Set();
    const item = (x, k, depth) => {
      const d = Object.getOwnPropertyDescriptor(x, k);
      return !!d && "value" in d && walk(d.value, depth + 1);
    };
    const walk = (x, depth) => {
      if (++values > 1000000) return true;
      if (x === null || typeof x === "boolean" || typeof x === "string") return true;
      if (typeof x === "number") return Number.isFinite(x) && !Object.is(x, -0);
      if (typeof x !== "object" || on.has(x) || depth > 1000) return false;
      if (++objects > 100000) return true;
      const array = plainArray(x);
      if (array === undefined) return false;
      on.add(x);
      if (array) {
        for (let i = 0; i < x.length && !enough(); i++) if (!item(x, i, depth)) return false;
      } else {
        for (const k of Object.keys(x)) { if (enough()) break; if (!item(x, k, depth)) return false; }
      }
      on.delete(x);
      return true;
    };
    return walk(v, 0);
  };
  // The JSON of a value made of what isData takes for data, as JSON.stringify writes it, but only up to \`budget\`
  // characters (jsonWithin, above): a value of 200 MB costs what is shown, where JSON.stringify made all of its text
  // first. Undefined when it meets anything else before the budget, or when the code replaced JSON.stringify: the
  // value is then written by the page's JSON.stringify as it is.
  const dataJson = (v, budget) => (JSON.stringify !== quoteJson ? undefined : jsonWithin(v, budget));
  // A value returned: a string as it is, data as JSON, anything else as Node's util.inspect shows it (inspect.ts).
  const show = (v) => {
    if (typeof v === "string") return v;
    try {
      if (isData(v)) {
        const json = dataJson(v, ${MAX_TEXT_CHARS});
        if (json !== undefined) return json;
        const whole = JSON.stringify(v);
        if (typeof whole === "string") return whole;
      }
    } catch (_) { /* shown as inspect shows it */ }
    try { return inspect(v, false); } catch (_) { return "(unprintable value)"; }
  };
  // console.log's arguments as Node's util.format joins them: %s %d %i %f %j %o %O %c in a first string, the rest
  // each as inspect shows it (a string as it is).
  const format = (args) => {
    const each = (v) => { try { return inspect(v, true); } catch (_) { return "(unprintable value)"; } };
    const first = args[0];
    if (typeof first !== "string" || args.length < 2 || !first.includes("%")) return args.map(each).join(" ");
    let out = "", last = 0, next = 1;
    for (let i = 0; i < first.length - 1; i++) {
      if (first[i] !== "%") continue;
      const c = first[i + 1];
      let piece;
      if (c === "%") piece = "%";
      else if (next < args.length && "sdifjoOc".includes(c)) {
        const a = args[next++];
        try {
          piece = c === "s" ? (typeof a === "string" ? a : typeof a === "object" && a !== null ? inspect(a, true, 0) : inspect(a, true))
            : c === "d" ? (typeof a === "bigint" ? a + "n" : typeof a === "symbol" ? "NaN" : inspect(Number(a), true))
            : c === "i" ? (typeof a === "bigint" ? a + "n" : typeof a === "symbol" ? "NaN" : inspect(parseInt(a), true))
            : c === "f" ? (typeof a === "symbol" ? "NaN" : inspect(parseFloat(a), true))
            : c === "j" ? (() => { try { const json = dataJson(a, ${MAX_TEXT_CHARS}); return json !== undefined ? json : String(JSON.stringify(a)); } catch (_) { return "[Circular]"; } })()
            : c === "o" ? inspect(a, false, 4)
            : c === "O" ? inspect(a, false)
            : "";
        } catch (_) { piece = "(unprintable value)"; }
      } else continue;
      out += first.slice(last, i) + piece;
      last = i + 2;
      i++;
    }
    if (last === 0) return args.map(each).join(" ");
    return [out + first.slice(last)].concat(args.slice(next).map(each)).join(" ");
  };
`;
