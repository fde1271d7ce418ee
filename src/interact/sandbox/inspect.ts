/**
 * @module interact/sandbox/inspect
 * How JavaScript browser code's values are shown (`console.log`, its `result` when JSON cannot hold it, an error it
 * logs): as Node's `util.inspect` shows them with its default options, in the common cases, since the code is
 * written for Node and Playwright. Strings are quoted inside objects (`{ a: 'x' }`), `-0`, `NaN`, `Infinity`,
 * `undefined`, symbols and bigints are themselves, functions `[Function: name]`, classes `[class A]`, errors their
 * stack (the code's own frames, prelude.ts) or `[Error: message]`, `Map(1) { 1 => 2 }`, `Set(1) { 1 }`, a cycle
 * `<ref *1> { self: [Circular *1] }`; nesting below depth 2 is `[Object]`/`[Array]`, arrays show 100 items and
 * strings 10,000 characters; objects go on one line up to 80 columns and long arrays of short items in columns,
 * as Node lays them out. Getters are not called. What Node would show from engine internals the page cannot see
 * (a promise's state, a proxy's target) is left out: `Promise {}`, a proxy shown through its traps.
 *
 * Bounded: the depth limit bounds the recursion, and past {@link MAX_SHOWN_CHARS} characters no more entries are
 * made (the rest is `...`), so a huge object costs no more than what is shown.
 *
 * Plain JavaScript in a string (it runs in the sandbox page, inside prelude.ts's wrapper), so that neither the
 * TypeScript transpiler nor the binary's minifier changes it. It expects `codeStack(error)` (prelude.ts) in scope.
 */

/**
 * Characters of one shown value after which no more entries are made (a log line is cut at 1,000,000 anyway); each
 * entry counts with its nested ones, so a deep value stops sooner.
 */
const MAX_SHOWN_CHARS = 1_000_000;

/**
 * An expression: the function `inspect(value, top, depth?)` (`top`: a string is shown as it is, as console.log's
 * arguments are; `depth`: how deep objects are shown, 2 unless told).
 */
export const INSPECT = `(() => {
  const DEPTH = 2, MAX_ITEMS = 100, MAX_STRING = 10000, BREAK = 80, MIN_LINE = 16;
  const IDENT = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
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
  function constructorOf(v) {
    let o = v;
    while (o) {
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
  const push = (ctx, out, shown) => { ctx.size += shown.length + 2; out.push(shown); };
  // The first MAX_ITEMS of an iterable's \`size\` items (a Set's, a Map's entries, a typed array's), each as \`each\` shows it.
  function items(ctx, list, size, each) {
    const out = [];
    let i = 0;
    for (const x of list) {
      if (i >= MAX_ITEMS) break;
      if (full(ctx)) { out.push("..."); return out; }
      push(ctx, out, each(x));
      i++;
    }
    if (size > i) out.push("... " + (size - i) + " more item" + (size - i > 1 ? "s" : ""));
    return out;
  }
  function arrayItems(ctx, a, depth) {
    const out = [];
    const n = Math.min(a.length, MAX_ITEMS);
    let i = 0;
    for (; i < n && out.length < MAX_ITEMS; i++) {
      if (full(ctx)) { out.push("..."); return out; }
      if (!Object.prototype.hasOwnProperty.call(a, i)) {
        let j = i; while (j < a.length && !Object.prototype.hasOwnProperty.call(a, j)) j++;
        out.push("<" + (j - i) + " empty item" + (j - i > 1 ? "s" : "") + ">"); i = j - 1;
      } else push(ctx, out, property(ctx, a, depth, String(i), true));
    }
    if (a.length > i) out.push("... " + (a.length - i) + " more item" + (a.length - i > 1 ? "s" : ""));
    return out;
  }
  // Long arrays of short items in columns, as Node lays them out (util.inspect's groupArrayElements).
  function columns(ctx, out, v) {
    let total = 0, widest = 0;
    const count = out.length - (v.length > MAX_ITEMS ? 1 : 0);
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
    if (v.length > MAX_ITEMS) rows.push(out[count]);
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
    if (typeof v !== "object" && typeof v !== "function") { const s = primitive(ctx, v); ctx.size += s.length; return s; }
    if (ctx.seen.includes(v)) {
      if (!ctx.circular.has(v)) ctx.circular.set(v, ctx.circular.size + 1);
      return "[Circular *" + ctx.circular.get(v) + "]";
    }
    const ctor = constructorOf(v);
    let tag = v[Symbol.toStringTag];
    tag = typeof tag === "string" && tag !== ctor ? tag : "";
    let keys = Object.keys(v).concat(Object.getOwnPropertySymbols(v).filter((s) => Object.prototype.propertyIsEnumerable.call(v, s)));
    let base = "", open = "{", close = "}", entries = null, isArray = false;
    const kind = Object.prototype.toString.call(v);
    if (Array.isArray(v)) {
      keys = keys.filter((k) => typeof k === "symbol" || !/^(0|[1-9][0-9]*)$/.test(k) || Number(k) >= 4294967295);
      open = (ctor !== "Array" || tag ? prefix(ctor, tag, "Array", "(" + v.length + ")") : "") + "[";
      close = "]";
      if (v.length === 0 && keys.length === 0) return open + "]";
      isArray = true;
      entries = () => arrayItems(ctx, v, depth);
    } else if (v instanceof Set || kind === "[object Set]") {
      open = prefix(ctor, tag, "Set", "(" + v.size + ")") + "{";
      if (v.size === 0 && keys.length === 0) return open + "}";
      entries = () => { ctx.indent += 2; const out = items(ctx, v, v.size, (x) => value(ctx, x, depth)); ctx.indent -= 2; return out; };
    } else if (v instanceof Map || kind === "[object Map]") {
      open = prefix(ctor, tag, "Map", "(" + v.size + ")") + "{";
      if (v.size === 0 && keys.length === 0) return open + "}";
      entries = () => { ctx.indent += 2; const out = items(ctx, v, v.size, (kv) => value(ctx, kv[0], depth) + " => " + value(ctx, kv[1], depth)); ctx.indent -= 2; return out; };
    } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      keys = keys.filter((k) => typeof k === "symbol" || !/^(0|[1-9][0-9]*)$/.test(k));
      open = prefix(ctor, tag, "TypedArray", "(" + v.length + ")") + "[";
      close = "]";
      if (v.length === 0 && keys.length === 0) return open + "]";
      isArray = true;
      entries = () => items(ctx, v, v.length, (x) => typeof x === "bigint" ? x + "n" : num(x));
    } else if (typeof v === "function") {
      base = functionBase(v, ctor, tag);
      if (keys.length === 0) return base;
    } else if (v instanceof RegExp || kind === "[object RegExp]") {
      base = RegExp.prototype.toString.call(v);
      if (keys.length === 0) return base;
    } else if (v instanceof Date || kind === "[object Date]") {
      base = Number.isNaN(Date.prototype.getTime.call(v)) ? "Invalid Date" : Date.prototype.toISOString.call(v);
      if (keys.length === 0) return base;
    } else if (v instanceof Error || kind === "[object Error]") {
      base = errorBase(ctx, v, ctor, tag, keys);
      if (keys.length === 0) return base;
    } else if (kind === "[object Number]" || kind === "[object String]" || kind === "[object Boolean]" || kind === "[object BigInt]" || kind === "[object Symbol]") {
      const type = kind.slice(8, -1);
      const inner = v.valueOf();
      if (type === "String") keys = keys.filter((k) => typeof k === "symbol" || !/^(0|[1-9][0-9]*)$/.test(k) || Number(k) >= inner.length);
      base = "[" + type + (ctor === null ? " (null prototype)" : ctor !== type ? " (" + ctor + ")" : "") + ": " + primitive({ indent: 0 }, inner) + "]";
      if (keys.length === 0) return base;
    } else if (kind === "[object Promise]") {
      open = prefix(ctor, tag, "Promise") + "{";
      if (keys.length === 0) return open + "}";
    } else if (kind === "[object WeakSet]" || kind === "[object WeakMap]") {
      return prefix(ctor, tag, kind.slice(8, -1)) + "{ <items unknown> }";
    } else {
      open = (ctor === "Object" && !tag ? "" : prefix(ctor, tag, "Object")) + "{";
      if (keys.length === 0) return open + "}";
    }
    if (depth > ctx.limit) return ctor === null ? "[Object: null prototype]" : "[" + prefix(ctor, tag, "Object").slice(0, -1) + "]";
    depth += 1;
    ctx.seen.push(v);
    ctx.deepest = depth;
    const out = entries ? entries() : [];
    for (const k of keys) { if (full(ctx)) { out.push("..."); break; } push(ctx, out, property(ctx, v, depth, k, false)); }
    ctx.seen.pop();
    const ref = ctx.circular.get(v);
    if (ref !== undefined) base = base ? "<ref *" + ref + "> " + base : "<ref *" + ref + ">";
    const shown = join(ctx, out, base, open, close, depth, isArray, v);
    ctx.size += open.length + close.length;
    return shown;
  }
  return (v, top, depth) => typeof v === "string" && top ? v : value({ indent: 0, seen: [], circular: new Map(), deepest: 0, size: 0, limit: depth === undefined ? DEPTH : depth }, v, 0);
})()`;
