/**
 * @module interact/sandbox/last-value
 * Why browser `code` in `language: "node"` gives its last expression's value as `result` (`await page.title()` is
 * the title, as in Node's REPL and as upstream documents `result`), though it runs as the body of an async function
 * (interact/sandbox/prelude.ts), where only `return` gives a value.
 *
 * The body is rewritten, in the sandbox page and before anything of it runs, so that its last statement, when it is
 * an expression statement, is returned: `const x = 3; x * 2` runs as `const x = 3;;return ( x * 2\n);`. That is
 * what Node's REPL does with code that awaits at its top level (its `await` wrapper returns the last expression
 * statement only): a last `if`, `for`, declaration or other statement gives nothing, and a `return` anywhere keeps
 * working as it did. The code still runs as an async function body given `page` and `console`, in the same sandbox
 * and through the same channel as before, and its value goes back the same way: only which value it returns changes.
 *
 * Not CDP's REPL mode (the `executeJavascript` action's way to keep the completion value, engines/browser/script.ts):
 * there the value crosses the DevTools connection whole before anything bounds it, and code's value must never reach
 * crawlbox but through the sandbox's outcome, cut in crawlbox's isolated world (interact/sandbox/channel.ts).
 *
 * Where the last statement begins is found by a light scan of the code's tokens (strings, templates, comments and
 * regular expressions skipped, brackets counted) for the places a top-level statement may begin (after `;`, after
 * `}`, on a new line), checked from the last one backwards with the page's own JavaScript parser as the judge:
 * after `}` a statement begins if a label may stand there (`{a: 1}` followed by `[0]` is one expression); on a new
 * line, if the code no longer parses with the line break taken out (automatic semicolon insertion put one there).
 * The rewritten body must parse too. Whatever is unsure leaves the code as it is (no value, as before), never runs
 * it otherwise. At most {@link LAST_VALUE_MAX_PARSES} parses are made.
 *
 * Plain JavaScript in a string, for the same reason as the prelude's: the binary's minifier must not change it.
 */

/** Parses the search may make before it gives up (the code then gives no value): a few, for nearly all code. */
export const LAST_VALUE_MAX_PARSES = 64;

/**
 * A JavaScript function expression, `(code, parses) => rewrite | null`: `parses(body)` tells whether `body` parses
 * as the body of an async function. The rewrite is `{body, line, column, added}`: the body to run instead, and where
 * `added` characters were put into the code (1-based line, 0-based column), so that a stack frame's column on that
 * line can be told as the code's own. `null`: run the code as it is.
 */
export const LAST_VALUE_REWRITE = `function (code, parses) {
  const n = code.length;
  const isBreak = (c) => c === "\\n" || c === "\\r" || c === "\\u2028" || c === "\\u2029";
  const isSpace = (c) => c === " " || c === "\\t" || c === "\\v" || c === "\\f" || c === "\\ufeff" || (c > "\\u007f" && /\\s/.test(c));
  const isWord = (c) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c === "_" || c === "$" || c === "\\\\" || (c > "\\u007f" && !/\\s/.test(c));
  // After these words an expression follows, so a "/" begins a regular expression.
  const beforeExpression = /^(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await|extends)$/;
  // Open brackets ("(", "[", "{", and "\${" inside a template): only the top level is looked at.
  const open = [];
  // Where a top-level statement may begin: the token's start, the end of the token before (-1: none) and why.
  const places = [];
  let i = 0, prevEnd = -1, prev = "", prevKind = "", lineBreak = false, semicolons = -1;
  const token = (kind, text, start) => {
    prevKind = kind;
    prev = text;
    prevEnd = i;
    // The run of top-level ";" the code ends with, if it does: taken off the returned expression.
    if (kind === "punct" && text === ";" && open.length === 0) { if (semicolons < 0) semicolons = start; } else semicolons = -1;
  };
  // A template's characters from j: [index after it, whether it stopped at "\${"], or null when it never ends.
  const template = (j) => {
    for (;;) {
      if (j >= n) return null;
      const c = code[j];
      if (c === "\\\\") j += 2;
      else if (c === "\`") return [j + 1, false];
      else if (c === "$" && code[j + 1] === "{") return [j + 2, true];
      else j++;
    }
  };
  const afterTemplate = (r, start) => {
    i = r[0];
    if (r[1]) { open.push("\${"); token("punct", "{", start); } else token("lit", "\`", start);
  };
  while (i < n) {
    const c = code[i];
    if (isBreak(c)) { lineBreak = true; i++; continue; }
    if (isSpace(c)) { i++; continue; }
    if (c === "/" && code[i + 1] === "/") { while (i < n && !isBreak(code[i])) i++; continue; }
    if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return null;
      for (let k = i + 2; k < end; k++) if (isBreak(code[k])) { lineBreak = true; break; }
      i = end + 2;
      continue;
    }
    const start = i;
    const brokeLine = lineBreak;
    lineBreak = false;
    if (open.length === 0 && c !== ";") {
      if (prevEnd < 0) places.push({ start: start, prevEnd: -1, why: "first" });
      else if (prevKind === "punct" && prev === ";") places.push({ start: start, prevEnd: prevEnd, why: ";" });
      else if (prevKind === "punct" && prev === "}") places.push({ start: start, prevEnd: prevEnd, why: "}", lineBreak: brokeLine });
      else if (brokeLine) places.push({ start: start, prevEnd: prevEnd, why: "line" });
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      for (;;) {
        if (j >= n || code[j] === "\\n" || code[j] === "\\r") return null;
        if (code[j] === "\\\\") j += code[j + 1] === "\\r" && code[j + 2] === "\\n" ? 3 : 2;
        else if (code[j] === c) break;
        else j++;
      }
      i = j + 1;
      token("lit", c, start);
    } else if (c === "\`") {
      const r = template(i + 1);
      if (!r) return null;
      afterTemplate(r, start);
    } else if (c === "/") {
      const regex = prevKind === "" || (prevKind === "id" && beforeExpression.test(prev)) || (prevKind === "punct" && prev !== ")" && prev !== "]");
      if (regex) {
        let j = i + 1, inClass = false;
        for (;;) {
          if (j >= n || isBreak(code[j])) return null;
          const d = code[j];
          if (d === "\\\\") j += 2;
          else if (d === "[") { inClass = true; j++; }
          else if (d === "]") { inClass = false; j++; }
          else if (d === "/" && !inClass) break;
          else j++;
        }
        j++;
        while (j < n && isWord(code[j])) j++;
        i = j;
        token("lit", "/", start);
      } else {
        i++;
        token("punct", "/", start);
      }
    } else if (c === "(" || c === "[" || c === "{") {
      open.push(c);
      i++;
      token("punct", c, start);
    } else if (c === ")" || c === "]" || c === "}") {
      const top = open.pop();
      if (top === undefined) return null;
      if (c === "}" && top === "\${") {
        const r = template(i + 1);
        if (!r) return null;
        afterTemplate(r, start);
      } else {
        i++;
        token("punct", c, start);
      }
    } else if (isWord(c)) {
      let j = i + 1;
      while (j < n && isWord(code[j])) j++;
      const word = code.slice(i, j);
      i = j;
      // A number, or a property's name (x.return), is a value: a "/" after it divides.
      token((c >= "0" && c <= "9") || (prevKind === "punct" && prev === ".") ? "lit" : "id", word, start);
    } else if ((c === "+" || c === "-") && code[i + 1] === c) {
      // x++ on the same line is still a value; ++x begins one.
      const postfix = !brokeLine && (prevKind === "lit" || prevKind === "id" || (prevKind === "punct" && (prev === ")" || prev === "]")));
      i += 2;
      token(postfix ? "lit" : "punct", c + c, start);
    } else {
      i++;
      token("punct", c, start);
    }
  }
  if (open.length > 0 || places.length === 0) return null;
  let budget = ${LAST_VALUE_MAX_PARSES};
  const judge = (body) => budget-- > 0 && parses(body);
  for (let k = places.length - 1; k >= 0; k--) {
    const p = places[k];
    let begins = p.why === "first" || p.why === ";";
    if (!begins && budget <= 0) return null;
    // A statement may follow a "}" that ends one: a label may then stand there (not after an object's "}").
    if (p.why === "}") begins = judge(code.slice(0, p.prevEnd) + " __crawlbox_label: " + code.slice(p.prevEnd));
    // A line break ends a statement where the code no longer parses without it.
    if (!begins && (p.why === "line" || p.lineBreak)) begins = budget > 0 && !judge(code.slice(0, p.prevEnd) + " " + code.slice(p.start));
    if (!begins) continue;
    // p.start begins the last statement: returned when it is an expression. What parses as one but is not an
    // expression statement (a block, a function or class declaration) is left alone.
    const end = semicolons >= p.start ? semicolons : n;
    const expression = code.slice(p.start, end);
    if (/^(?:\\{|function\\b|class\\b|async\\s+function\\b|let\\s*\\[)/.test(expression)) return null;
    // What comes before must be whole statements (a scan gone wrong would not be).
    if (p.prevEnd >= 0 && !judge(code.slice(0, p.start))) return null;
    const at = p.prevEnd < 0 ? 0 : p.prevEnd;
    const added = p.prevEnd < 0 ? "return (" : ";return (";
    const body = code.slice(0, at) + added + code.slice(at, end) + "\\n);" + code.slice(end < n ? end + 1 : n);
    if (!judge(body)) return null;
    let line = 1, lineStart = 0;
    for (let q = 0; q < at; q++) {
      const d = code[q];
      if (d === "\\n" || d === "\\u2028" || d === "\\u2029" || (d === "\\r" && code[q + 1] !== "\\n")) { line++; lineStart = q + 1; }
    }
    return { body: body, line: line, column: at - lineStart, added: added.length };
  }
  return null;
}`;
