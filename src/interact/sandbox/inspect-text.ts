/**
 * @module interact/sandbox/inspect-text
 * Two pieces of the in-page `inspect` (inspect.ts), on how Node's `util.inspect` writes text rather than what it
 * shows: {@link INSPECT_QUOTING}, a primitive's text (a string quoted as Node quotes it, its control characters
 * escaped, a long one cut at 10,000 characters and at its line breaks; `-0`, `10n`, `Symbol(s)`), and
 * {@link INSPECT_LAYOUT}, how the entries of an object or array are laid out (on one line up to 80 columns, long arrays
 * of short items in columns, else one entry a line), as Node's `reduceToSingleString` and `groupArrayElements` do.
 *
 * Statements of inspect.ts's one function, kept in strings (it runs in the sandbox page as one function, so that
 * neither the TypeScript transpiler nor the binary's minifier changes it): they use its constants (`MAX_ITEMS`,
 * `MAX_STRING`, `BREAK`, `MIN_LINE`) and the value's context (`ctx.indent`, `ctx.deepest`).
 */

/** Statements defining `hex`, `NAMED`, `quote`, `num`, `str(ctx, s)` and `primitive(ctx, v)`. */
export const INSPECT_QUOTING = `
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
  }`;

/** Statements defining `columns(ctx, out, v)` and `join(ctx, out, base, open, close, depth, isArray, v)`. */
export const INSPECT_LAYOUT = `
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
  }`;
