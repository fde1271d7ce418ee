/**
 * @module interact/sandbox/inspect-entries
 * The piece of the in-page `inspect` (inspect.ts) that makes the entries of a value, bounded so that a huge value costs
 * what is shown: a property (its getter not called), a Set's or Map's first items, a typed array's and an array's first
 * items by index, a run of an array's holes as one entry (`<3 empty items>`) found by its own keys rather than hole by
 * hole, and no more entries once {@link MAX_SHOWN_CHARS} characters were made.
 *
 * Statements of inspect.ts's one function, kept in a string (it runs in the sandbox page as one function, so that
 * neither the TypeScript transpiler nor the binary's minifier changes it): they use its constants (`MAX_ITEMS`,
 * `IDENT`), its `own`, `isIndex` and `value`, `quote` (inspect-text.ts), and the value's context (`ctx.size`,
 * `ctx.keysLeft`, `ctx.indent`).
 */

/**
 * Characters of one shown value after which no more entries are made: the length of the entries made so far, each
 * counted once (with its separator), so a value stops just past it, and is cut at 1,000,000 where it is read (a log
 * line, the result).
 */
const MAX_SHOWN_CHARS = 1_000_000;

/** Holes of an array probed one by one before its own keys are taken to skip them. */
const HOLE_PROBES = 1_000;

/**
 * Statements defining `property`, `full`, `add`, `more`, `empty`, `items`, `typedItems`, `nextOwn` and
 * `arrayItems`.
 */
export const INSPECT_ENTRIES = `
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
  }`;
