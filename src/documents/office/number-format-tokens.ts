/**
 * @module documents/office/number-format-tokens
 * Reads a spreadsheet number format code (ECMA-376 Part 1 §18.8.31) into its sections and each section into tokens:
 * digit placeholders (`0`, `#`, `?`), the decimal point, commas, `%`, an exponent (`E+`), `General`, and literal
 * text. Literal text is quoted (`"kg"`), escaped (`\-`), a currency bracket (`[$€-407]` is `€`) or any other
 * character as it is; colours, locales and conditions (`[Red]`, `[$-409]`, `[<0]`) show nothing, nor do `_x` (a
 * space as wide as `x`) and `*x` (a fill). Adjacent literal text is one token.
 *
 * The code is scanned once, by index: each character is looked at once, quotes and brackets skipped with `indexOf`.
 * (Slicing and regex-testing at every character made reading a 255-character code cost ten times a cell's layout,
 * and a workbook cycling through 2,000 such codes spent seconds reading them.)
 */

/** One piece of a section. */
export type Token =
  | { kind: "digit"; ch: "0" | "#" | "?" }
  | { kind: "point" | "comma" | "percent" | "general" }
  | { kind: "exponent"; text: string }
  | { kind: "literal"; text: string };

/** The end of the run opened at `i` by a quote or bracket, closed by `close` (the text's end when it is not). */
function endOf(code: string, i: number, close: string): number {
  const end = code.indexOf(close, i + 1);
  return end < 0 ? code.length : end;
}

/** The sections of a format code, split at `;` outside quotes, `\` escapes and brackets. */
export function formatSections(code: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "\\" || c === "_" || c === "*") i++;
    else if (c === '"') i = endOf(code, i, '"');
    else if (c === "[") i = endOf(code, i, "]");
    else if (c === ";") {
      out.push(code.slice(start, i));
      start = i + 1;
    }
  }
  out.push(code.slice(start));
  return out;
}

/** `section` without its quoted text, escapes and (with `brackets`) bracketed codes: what is left to look for codes in. */
export function unquoted(section: string, brackets: boolean): string {
  let out = "";
  for (let i = 0; i < section.length; i++) {
    const c = section[i]!;
    if (c === "\\") i++;
    else if (c === '"') i = endOf(section, i, '"');
    else if (c === "[" && brackets) i = endOf(section, i, "]");
    else out += c;
  }
  return out;
}

/** Whether `c` is a letter (ASCII without a regex; others through `\p{L}`). */
function isLetter(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return /\p{L}/u.test(c);
}

const isPlaceholder = (c: string | undefined) => c === "0" || c === "#" || c === "?";

/**
 * The tokens without text, one object each, shared by every section: a workbook keeps thousands of sections read
 * (xlsx-values.ts), and a 255-placeholder section of fresh objects took 13 KB.
 */
const DIGITS: Record<string, Token> = { "0": { kind: "digit", ch: "0" }, "#": { kind: "digit", ch: "#" }, "?": { kind: "digit", ch: "?" } };
const POINT: Token = { kind: "point" };
const COMMA: Token = { kind: "comma" };
const PERCENT: Token = { kind: "percent" };
const GENERAL: Token = { kind: "general" };

/**
 * A section's tokens; undefined for what is not followed: fractions (`# ?/?`), a text placeholder (`@`), and a
 * section without placeholders whose letters are unquoted (a locale's codes such as Japanese weekdays, `aaa`).
 */
export function tokenize(section: string): Token[] | undefined {
  const out: Token[] = [];
  let literal = "";
  const push = (t: Token) => {
    if (literal) out.push({ kind: "literal", text: literal });
    literal = "";
    out.push(t);
  };
  let bareLetters = false;
  let digits = false;
  let point = false;
  for (let i = 0; i < section.length; i++) {
    const c = section[i]!;
    if (c === '"') {
      const end = endOf(section, i, '"');
      literal += section.slice(i + 1, end);
      i = end;
    } else if (c === "\\") literal += section[++i] ?? "";
    else if (c === "_" || c === "*") i++;
    else if (c === "[") {
      const end = endOf(section, i, "]");
      // `[$€-407]`: the currency sign before the locale; `[$-409]` (a locale alone) shows nothing.
      if (section[i + 1] === "$") {
        const dash = section.indexOf("-", i + 2);
        literal += section.slice(i + 2, dash >= 0 && dash < end ? dash : end);
      }
      i = end;
    } else if (isPlaceholder(c)) {
      push(DIGITS[c]!);
      digits = true;
    } else if (c === "." && !point) {
      push(POINT);
      point = true;
    } else if (c === ",") push(COMMA);
    else if (c === "%") push(PERCENT);
    else if (c === "/" || c === "@") return undefined;
    else if ((c === "E" || c === "e") && digits && (section[i + 1] === "+" || section[i + 1] === "-") && isPlaceholder(section[i + 2])) {
      push({ kind: "exponent", text: c + section[i + 1] });
      i++;
    } else if ((c === "G" || c === "g") && section.slice(i, i + 7).toLowerCase() === "general") {
      push(GENERAL);
      i += 6;
    } else {
      bareLetters ||= isLetter(c);
      literal += c;
    }
  }
  if (literal) out.push({ kind: "literal", text: literal });
  return digits || !bareLetters ? out : undefined;
}
