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
 * {@link MAX_SHOWN_CHARS} characters no more entries are made (the text is then longer than that, and cut there by
 * what reads it: `…(cut)`, `resultTruncated`). Arrays, typed arrays and `String` objects are read by
 * index up to the items shown, never by listing their keys (a key a string: a `Uint8Array(1e8)` would make 10^8 of
 * them, gigabytes): their other own properties are shown only when they have at most {@link KEYED_LENGTH} items, and
 * the keys listed so in one value count against a budget. A sparse array is walked by its own keys (a run of holes
 * is probed one by one a short way, then skipped through them), not index by index: `a.length = 4e9; a[3e9] = 1` is
 * `[ <3000000000 empty items>, 1, <999999999 empty items> ]` at once. A prototype chain is followed a bounded way (a
 * proxy may give itself as its prototype).
 *
 * Plain JavaScript in a string (it runs in the sandbox page, inside prelude.ts's wrapper), so that neither the
 * TypeScript transpiler nor the binary's minifier changes it. It expects `codeStack(error)` (value-text.ts) in scope.
 */

/**
 * Characters of one shown value after which no more entries are made: the length of the entries made so far, each
 * counted once (with its separator), so a value stops just past it, and is cut at 1,000,000 where it is read (a log
 * line, the result).
 */
const MAX_SHOWN_CHARS = 1_000_000;

/** Items an array-like may have for its other own properties to be listed (listing them lists every index too). */
const KEYED_LENGTH = 100_000;

/** Keys listed for array-likes (their other properties, a sparse array's elements) in one value, at most. */
const KEYS_BUDGET = 1_000_000;

/** Holes of an array probed one by one before its own keys are taken to skip them. */
const HOLE_PROBES = 1_000;

/** Prototypes followed to name an object's constructor. */
const MAX_PROTOTYPES = 1_000;

/**
 * An expression: the function `inspect(value, top, depth?)` (`top`: a string is shown as it is, as console.log's
 * arguments are; `depth`: how deep objects are shown, 2 unless told).
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
  };
  const hex = (c) => "\\\\x" + c.toString(16).toUpperCase().padStart(2, "0");
  const NAMED = { 8: "\\\\b", 9: "\\\\t", 10: "\\\\n", 11: "\\\\x0B", 12: "\\\\f", 13: "\\\\r" };
  // Quoted as Node quotes: single quotes, else double, else backticks, whichever the text does not hold.
  const quote = (s) => {
    let q = "'";
    if (s.includes("'")) { if (!s.includes('"')) q = '"'; else if (!s.includes("\`") && !s.includes("\${")) q = "\`"; }
    let out = "";
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || (c >= 0x7f && c <= 0x9f)) out += NAMED[c] || hex(c);
      else if (c === 92) out += "\\\\\\\\";
      else if (s[i] === q && q === "'") out += "\\\\'";
      else if (c >= 0xd800 && c <= 0xdbff && !(i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff)) out += "\\\\u" + c.toString(16);
      else if (c >= 0xdc00 && c <= 0xdfff && !(i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) out += "\\\\u" + c.toString(16);
      else out += s[i];
    }
    return q + out + q;
  };
  const num = (n) => Object.is(n, -0) ? "-0" : String(n);
  function str(ctx, s) {
    let more = "";
    if (s.length > MAX_STRING) { more = "... " + (s.length - MAX_STRING) + " more character" + (s.length - MAX_STRING > 1 ? "s" : ""); s = s.slice(0, MAX_STRING); }
    // A long string is cut at its line breaks, one quoted part a line, as Node does.
    if (s.length > MIN_LINE && s.length > BREAK - ctx.indent - 4) return s.split(/(?<=\\n)/).map(quote).join(" +\\n" + " ".repeat(ctx.indent + 2)) + more;
    return quote(s) + more;
  }
  function primitive(ctx, v) {
    switch (typeof v) {
      case "string": return str(ctx, v);
      case "number": return num(v);
      case "bigint": return v + "n";
      case "symbol": return String(v.toString());
      default: return String(v);
    }
  }
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
  }
  function property(ctx, v, depth, key, inArray) {
    const d = Object.getOwnPropertyDescriptor(v, key) || { value: v[key], enumerable: true };
    let shown;
    if (d.value !== undefined) { ctx.indent += 2; shown = value(ctx, d.value, depth); ctx.indent -= 2; }
    else shown = d.get ? (d.set ? "[Getter/Setter]" : "[Getter]") : d.set ? "[Setter]" : "undefined";
    if (inArray) return shown;
    const name = typeof key === "symbol" ? "[" + key.toString() + "]" : key === "__proto__" ? "['__proto__']" : d.enumerable === false ? "[" + key + "]" : IDENT.test(key) ? key : quote(key);
    return name + ": " + shown;
  }
  const full = (ctx) => ctx.size > ${MAX_SHOWN_CHARS};
  // An entry made by \`make\` and pushed to \`out\`: counted once, by its length and its separator's (what \`make\`
  // counted for its own entries while it ran is replaced), so that \`ctx.size\` never passes the text being made.
  const add = (ctx, out, make) => { const before = ctx.size; const shown = make(); ctx.size = before + shown.length + 2; out.push(shown); };
  const more = (n) => "... " + n + " more item" + (n > 1 ? "s" : "");
  const empty = (n) => "<" + n + " empty item" + (n > 1 ? "s" : "") + ">";
  // The first MAX_ITEMS of an iterable's \`size\` items (a Set's, a Map's entries), each as \`each\` shows it.
  function items(ctx, list, size, each) {
    const out = [];
    let i = 0;
    for (const x of list) {
      if (i >= MAX_ITEMS) break;
      if (full(ctx)) { out.push("..."); return out; }
      add(ctx, out, () => each(x));
      i++;
    }
    if (size > i) out.push(more(size - i));
    return out;
  }
  // A typed array's first MAX_ITEMS items, by index.
  function typedItems(ctx, v, length) {
    const out = [];
    const n = Math.min(length, MAX_ITEMS);
    for (let i = 0; i < n; i++) {
      if (full(ctx)) { out.push("..."); return out; }
      const x = v[i];
      add(ctx, out, () => typeof x === "bigint" ? x + "n" : num(x));
    }
    if (length > n) out.push(more(length - n));
    return out;
  }
  // The first own index of an array-like from \`i\` on (its length when there is none). A few holes are probed one by
  // one; past them the array's own keys are taken (once: \`st.keys\`), whose integer keys come first and in order
  // (OrdinaryOwnPropertyKeys), and searched: a sparse array's keys are as many as its elements, however long it is.
  function nextOwn(ctx, a, i, st) {
    if (!st.keys) {
      const stop = Math.min(st.length, i + ${HOLE_PROBES});
      for (let j = i; j < stop; j++) if (own(a, j)) return j;
      if (stop >= st.length) return st.length;
      st.keys = Object.keys(a);
      ctx.keysLeft -= st.keys.length;
    }
    const k = st.keys;
    if (st.indexes === undefined) { let n = 0; while (n < k.length && isIndex(k[n])) n++; st.indexes = n; }
    let lo = 0, hi = st.indexes;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (Number(k[mid]) < i) lo = mid + 1; else hi = mid; }
    const next = lo < st.indexes ? Number(k[lo]) : st.length;
    return next >= i && next <= st.length ? next : st.length;
  }
  // An array's first MAX_ITEMS entries, a run of holes one entry (\`<3 empty items>\`), as Node's
  // formatArray and formatSpecialArray make them; by index, its holes skipped by nextOwn.
  function arrayItems(ctx, a, depth, st) {
    const out = [];
    const max = Math.min(st.length, MAX_ITEMS);
    let i = 0;
    while (i < st.length && out.length < max) {
      if (full(ctx)) { out.push("..."); return out; }
      const next = nextOwn(ctx, a, i, st);
      if (next > i) {
        out.push(empty(next - i));
        i = next;
        if (i >= st.length || out.length >= max) break;
      }
      const key = String(i);
      add(ctx, out, () => property(ctx, a, depth, key, true));
      i++;
    }
    if (st.length > i) out.push(more(st.length - i));
    return out;
  }
  // Long arrays of short items in columns, as Node lays them out (util.inspect's groupArrayElements).
  function columns(ctx, out, v) {
    let total = 0, widest = 0;
    // Past MAX_ITEMS entries the last one is left out of the columns, as Node leaves it (groupArrayElements).
    const count = out.length > MAX_ITEMS ? out.length - 1 : out.length;
    const len = out.slice(0, count).map((s) => s.length);
    for (const l of len) { total += l + 2; if (l > widest) widest = l; }
    const cell = widest + 2;
    if (!(cell * 3 + ctx.indent < BREAK && (total / cell > 5 || widest <= 6))) return out;
    const bias = Math.sqrt(cell - total / out.length);
    const biased = Math.max(cell - 3 - bias, 1);
    const cols = Math.min(Math.round(Math.sqrt(2.5 * biased * count) / biased), Math.floor((BREAK - ctx.indent) / cell), 12, 15);
    if (cols <= 1) return out;
    const widths = [];
    for (let c = 0; c < cols; c++) { let w = 0; for (let j = c; j < out.length; j += cols) if (len[j] > w) w = len[j]; widths.push(w + 2); }
    let numeric = true;
    for (let i = 0; i < out.length && numeric; i++) numeric = typeof v[i] === "number" || typeof v[i] === "bigint";
    const rows = [];
    for (let i = 0; i < count; i += cols) {
      const last = Math.min(i + cols, count);
      let row = "";
      for (let j = i; j < last - 1; j++) row += numeric ? (out[j] + ", ").padStart(widths[j - i], " ") : (out[j] + ", ").padEnd(widths[j - i], " ");
      row += numeric ? out[last - 1].padStart(widths[last - 1 - i] - 2, " ") : out[last - 1];
      rows.push(row);
    }
    if (count < out.length) rows.push(out[count]);
    return rows;
  }
  function join(ctx, out, base, open, close, depth, isArray, v) {
    const entries = out.length;
    if (isArray && entries > 6) out = columns(ctx, out, v);
    if (ctx.deepest - depth < 3 && entries === out.length) {
      const start = out.length + ctx.indent + open.length + base.length + 10;
      let total = out.length + start;
      let fits = total + out.length <= BREAK;
      for (let i = 0; fits && i < out.length; i++) { total += out[i].length; if (total > BREAK) fits = false; }
      if (fits && !base.includes("\\n")) { const line = out.join(", "); if (!line.includes("\\n")) return (base ? base + " " : "") + open + " " + line + " " + close; }
    }
    const nl = "\\n" + " ".repeat(ctx.indent);
    return (base ? base + " " : "") + open + nl + "  " + out.join("," + nl + "  ") + nl + close;
  }
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
