/**
 * @module interact/sandbox/inspect
 * How JavaScript browser code's values are shown (`console.log`, its `result` when JSON cannot hold it, an error it
 * logs): as Node's `util.inspect` shows them with its default options, in the common cases, since the code is
 * written for Node and Playwright. Strings are quoted inside objects (`{ a: 'x' }`), `-0`, `NaN`, `Infinity`,
 * `undefined`, symbols and bigints are themselves, functions `[Function: name]`, classes `[class A]`, errors their
 * stack (the code's own frames, value-text.ts) or `[Error: message]`, `Map(1) { 1 => 2 }`, `Set(1) { 1 }`, a cycle
 * `<ref *1> { self: [Circular *1] }`; nesting below depth 2 is `[Object]`/`[Array]`, arrays show 100 items and
 * strings 10,000 characters; objects go on one line up to 80 columns and long arrays of short items in columns,
 * as Node lays them out. Getters are not called. What Node would show from engine internals the page cannot see
 * (a promise's state, a proxy's target) is left out: `Promise {}`, a proxy shown through its traps.
 *
 * Bounded, so that a huge value costs no more than what is shown: the depth limit bounds the recursion, and past
 * 1,000,000 characters no more entries are made (inspect-entries.ts; the text is then longer than that, and cut there
 * by what reads it: `…(cut)`, `resultTruncated`). Arrays, typed arrays and `String` objects are read by
 * index up to the items shown, never by listing their keys (a key a string: a `Uint8Array(1e8)` would make 10^8 of
 * them, gigabytes): their other own properties are shown only when they have at most {@link KEYED_LENGTH} items, and
 * the keys listed so in one value count against a budget. A sparse array is walked by its own keys (a run of holes
 * is probed one by one a short way, then skipped through them), not index by index: `a.length = 4e9; a[3e9] = 1` is
 * `[ <3000000000 empty items>, 1, <999999999 empty items> ]` at once. A prototype chain is followed a bounded way (a
 * proxy may give itself as its prototype).
 *
 * Plain JavaScript in a string (it runs in the sandbox page, inside prelude.ts's wrapper), so that neither the
 * TypeScript transpiler nor the binary's minifier changes it. It expects `codeStack(error)` (value-text.ts) in scope.
 * It is one function, whose statements are kept by concept in three files: this one (what a value is: its kind, its
 * name, and `value`, which shows it), inspect-text.ts (how Node writes primitives and lays entries out) and
 * inspect-entries.ts (a value's entries, read within the bounds above).
 */
import { INSPECT_ENTRIES } from "./inspect-entries.ts";
import { INSPECT_LAYOUT, INSPECT_QUOTING } from "./inspect-text.ts";

/** Items an array-like may have for its other own properties to be listed (listing them lists every index too). */
const KEYED_LENGTH = 100_000;

/** Keys listed for array-likes (their other properties, a sparse array's elements) in one value, at most. */
const KEYS_BUDGET = 1_000_000;

/** Prototypes followed to name an object's constructor. */
const MAX_PROTOTYPES = 1_000;

/**
 * An expression: the function `inspect(value, top, depth?)` (`top`: a string is shown as it is, as console.log's
 * arguments are; `depth`: how deep objects are shown, 2 unless told). One function, made of this file's statements
 * (its constants, key helpers, how a value's kind is named, and `value`, which shows one) and those of
 * inspect-text.ts (quoting, layout) and inspect-entries.ts (entries), in that order.
 */
export const INSPECT = `(() => {
  const DEPTH = 2, MAX_ITEMS = 100, MAX_STRING = 10000, BREAK = 80, MIN_LINE = 16;
  const IDENT = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const INDEX = /^(0|[1-9][0-9]*)$/;
  const isIndex = (k) => typeof k === "string" && INDEX.test(k) && Number(k) < 4294967295;
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  // \`instanceof\`, false where the prototype chain cannot be walked (a proxy whose prototype is itself: V8 throws).
  const is = (v, C) => { try { return v instanceof C; } catch (_) { return false; } };
  const symbols = (v) => Object.getOwnPropertySymbols(v).filter((s) => Object.prototype.propertyIsEnumerable.call(v, s));
  // Whether an array-like of \`length\` items may have its keys listed (and so its other properties shown): short
  // enough, and within the value's budget, which it is charged.
  const keyed = (ctx, length) => {
    if (!(length <= ${KEYED_LENGTH}) || length > ctx.keysLeft) return false;
    ctx.keysLeft -= length;
    return true;
  };${INSPECT_QUOTING}
  // The name Node gives an object's kind: its first prototype's own constructor with a name (null: no prototype).
  // Followed ${MAX_PROTOTYPES} prototypes at most: a proxy's getPrototypeOf may answer itself, or a new proxy each time.
  function constructorOf(v) {
    let o = v;
    for (let n = 0; o && n < ${MAX_PROTOTYPES}; n++) {
      const d = Object.getOwnPropertyDescriptor(o, "constructor");
      if (d && typeof d.value === "function" && typeof d.value.name === "string" && d.value.name !== "") return d.value.name;
      o = Object.getPrototypeOf(o);
    }
    return Object.getPrototypeOf(v) === null ? null : "Object";
  }
  const prefix = (ctor, tag, fallback, size) => ctor === null ? "[" + fallback + (size || "") + ": null prototype] " : ctor + (size || "") + (tag && ctor !== tag ? " [" + tag + "]" : "") + " ";
  function functionBase(v, ctor, tag) {
    const src = Function.prototype.toString.call(v);
    const name = typeof v.name === "string" ? v.name : "";
    if (src.startsWith("class") && src.endsWith("}")) {
      const parent = Object.getPrototypeOf(v);
      return "[class " + (name || "(anonymous)") + (parent && parent.name ? " extends " + parent.name : "") + "]";
    }
    const type = ctor === "AsyncFunction" || ctor === "GeneratorFunction" || ctor === "AsyncGeneratorFunction" ? ctor : "Function";
    return "[" + type + (ctor === null ? " (null prototype)" : "") + (name === "" ? " (anonymous)" : ": " + name) + "]" + (ctor !== type && ctor !== null ? " " + ctor : "") + (tag && ctor !== tag ? " [" + tag + "]" : "");
  }
  function errorBase(ctx, e, ctor, tag, keys) {
    const name = e.name != null ? String(e.name) : "Error";
    let stack = codeStack(e);
    for (const k of ["name", "message", "stack"]) { const i = keys.indexOf(k); if (i >= 0 && typeof e[k] === "string" && stack.includes(e[k])) keys.splice(i, 1); }
    if ("cause" in e && !keys.includes("cause")) keys.push("cause");
    if (Array.isArray(e.errors) && !keys.includes("errors")) keys.push("errors");
    // A class of its own that kept the name "Error" is named by both, as Node does (\`MyError [Error]: …\`).
    if (ctor !== null && name.endsWith("Error") && stack.startsWith(name) && (stack.length === name.length || stack[name.length] === ":" || stack[name.length] === "\\n")) {
      const p = prefix(ctor, tag, "Error").slice(0, -1);
      if (name !== p) stack = p.includes(name) ? p + stack.slice(name.length) : p + " [" + name + "]" + stack.slice(name.length);
    }
    const at = e.message ? stack.indexOf(String(e.message)) : -1;
    if (stack.indexOf("\\n    at", at === -1 ? -1 : at + String(e.message).length) === -1) stack = "[" + stack + "]";
    return ctx.indent ? stack.replace(/\\n/g, "\\n" + " ".repeat(ctx.indent)) : stack;
  }${INSPECT_ENTRIES}${INSPECT_LAYOUT}
  function value(ctx, v, depth) {
    if (v === null) return "null";
    if (typeof v !== "object" && typeof v !== "function") return primitive(ctx, v);
    if (ctx.seen.includes(v)) {
      if (!ctx.circular.has(v)) ctx.circular.set(v, ctx.circular.size + 1);
      return "[Circular *" + ctx.circular.get(v) + "]";
    }
    const ctor = constructorOf(v);
    let tag = v[Symbol.toStringTag];
    tag = typeof tag === "string" && tag !== ctor ? tag : "";
    const kind = Object.prototype.toString.call(v);
    // A String object (not anything whose tag says String): its characters are its first own keys.
    let boxedString = false;
    if (kind === "[object String]") try { String.prototype.valueOf.call(v); boxedString = true; } catch (_) { /* an object tagged String */ }
    // The own enumerable keys shown after the entries. An array-like's are listed only when it is short (\`keyed\`):
    // listing them lists every index.
    let keys = Array.isArray(v) || boxedString || (ArrayBuffer.isView(v) && !is(v, DataView)) ? null : Object.keys(v).concat(symbols(v));
    let base = "", open = "{", close = "}", entries = null, isArray = false, later = null;
    if (keys === null && Array.isArray(v)) {
      const n = Number(v.length);
      const length = n > 0 ? Math.min(Math.floor(n), 4294967295) : 0;
      // A sparse array's keys, taken to skip its holes (arrayItems), list its other properties too.
      const st = { length: length, keys: keyed(ctx, length) ? Object.keys(v) : null, indexes: undefined };
      later = () => (st.keys ? st.keys.filter((k) => !isIndex(k)) : []).concat(symbols(v));
      open = (ctor !== "Array" || tag ? prefix(ctor, tag, "Array", "(" + length + ")") : "") + "[";
      close = "]";
      if (length === 0 && later().length === 0) return open + "]";
      isArray = true;
      entries = () => arrayItems(ctx, v, depth, st);
    } else if (keys === null && !boxedString) {
      const n = Number(v.length);
      const length = n > 0 ? Math.min(Math.floor(n), 4294967295) : 0;
      keys = (keyed(ctx, length) ? Object.keys(v).filter((k) => !isIndex(k)) : []).concat(symbols(v));
      open = prefix(ctor, tag, "TypedArray", "(" + length + ")") + "[";
      close = "]";
      if (length === 0 && keys.length === 0) return open + "]";
      isArray = true;
      entries = () => typedItems(ctx, v, length);
    } else if (is(v, Set) || kind === "[object Set]") {
      open = prefix(ctor, tag, "Set", "(" + v.size + ")") + "{";
      if (v.size === 0 && keys.length === 0) return open + "}";
      entries = () => { ctx.indent += 2; const out = items(ctx, v, v.size, (x) => value(ctx, x, depth)); ctx.indent -= 2; return out; };
    } else if (is(v, Map) || kind === "[object Map]") {
      open = prefix(ctor, tag, "Map", "(" + v.size + ")") + "{";
      if (v.size === 0 && keys.length === 0) return open + "}";
      entries = () => { ctx.indent += 2; const out = items(ctx, v, v.size, (kv) => value(ctx, kv[0], depth) + " => " + value(ctx, kv[1], depth)); ctx.indent -= 2; return out; };
    } else if (typeof v === "function") {
      base = functionBase(v, ctor, tag);
      if (keys.length === 0) return base;
    } else if (is(v, RegExp) || kind === "[object RegExp]") {
      base = RegExp.prototype.toString.call(v);
      if (keys.length === 0) return base;
    } else if (is(v, Date) || kind === "[object Date]") {
      base = Number.isNaN(Date.prototype.getTime.call(v)) ? "Invalid Date" : Date.prototype.toISOString.call(v);
      if (keys.length === 0) return base;
    } else if (is(v, Error) || kind === "[object Error]") {
      base = errorBase(ctx, v, ctor, tag, keys);
      if (keys.length === 0) return base;
    } else if (kind === "[object Number]" || kind === "[object String]" || kind === "[object Boolean]" || kind === "[object BigInt]" || kind === "[object Symbol]") {
      const type = kind.slice(8, -1);
      const inner = boxedString ? String.prototype.valueOf.call(v) : v.valueOf();
      if (boxedString) keys = (keyed(ctx, inner.length) ? Object.keys(v).filter((k) => !isIndex(k) || Number(k) >= inner.length) : []).concat(symbols(v));
      base = "[" + type + (ctor === null ? " (null prototype)" : ctor !== type ? " (" + ctor + ")" : "") + ": " + primitive({ indent: 0 }, inner) + "]";
      if (keys.length === 0) return base;
    } else if (kind === "[object Promise]") {
      open = prefix(ctor, tag, "Promise") + "{";
      if (keys.length === 0) return open + "}";
    } else if (kind === "[object WeakSet]" || kind === "[object WeakMap]") {
      return prefix(ctor, tag, kind.slice(8, -1)) + "{ <items unknown> }";
    } else {
      // Node names an arguments object so: \`[Arguments] { '0': 1 }\`.
      open = (kind === "[object Arguments]" && ctor === "Object" && !tag ? "[Arguments] " : ctor === "Object" && !tag ? "" : prefix(ctor, tag, "Object")) + "{";
      if (keys.length === 0) return open + "}";
    }
    if (depth > ctx.limit) return ctor === null ? "[Object: null prototype]" : "[" + prefix(ctor, tag, "Object").slice(0, -1) + "]";
    depth += 1;
    ctx.seen.push(v);
    ctx.deepest = depth;
    const out = entries ? entries() : [];
    if (later) keys = later();
    for (const k of keys) { if (full(ctx)) { out.push("..."); break; } add(ctx, out, () => property(ctx, v, depth, k, false)); }
    ctx.seen.pop();
    const ref = ctx.circular.get(v);
    if (ref !== undefined) base = base ? "<ref *" + ref + "> " + base : "<ref *" + ref + ">";
    return join(ctx, out, base, open, close, depth, isArray, v);
  }
  return (v, top, depth) => typeof v === "string" && top ? v : value({ indent: 0, seen: [], circular: new Map(), deepest: 0, size: 0, keysLeft: ${KEYS_BUDGET}, limit: depth === undefined ? DEPTH : depth }, v, 0);
})()`;
