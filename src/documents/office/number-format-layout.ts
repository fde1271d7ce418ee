/**
 * @module documents/office/number-format-layout
 * How one section of a spreadsheet number format lays a number out (ECMA-376 Part 1 §18.8.31), as Excel does; which
 * section applies is number-format.ts's concern.
 *
 * - **Digit placeholders.** `0` shows a digit or a zero, `#` a digit or nothing, `?` a digit or a space. The integer
 *   part's placeholders are filled from the right across the whole section, literal text between them staying where
 *   it is, and the leftmost takes every digit left over: Zip+4 `00000-0000` shows 981011234 as `98101-1234` and 2134
 *   as `00000-2134`, SSN `000-00-0000` 123456789 as `123-45-6789`. Decimals fill from the left; past the last
 *   significant one `0` pads and `#` drops (`0.0#`: 2 is `2.0`). A comma between integer placeholders groups
 *   thousands; commas after the last placeholder divide by 1,000 each (`#,##0,"K"`: 1234567 is `1,235K`). Each `%`
 *   multiplies by 100; `E+`/`E-` write scientific notation.
 * - **Literals.** Quoted text, `\x` escapes, currency brackets (`[$€-407]` is `€`), other characters as they are;
 *   colours, locales and conditions (`[Red]`, `[$-409]`, `[<0]`) show nothing, nor do `_x` (a space as wide as `x`)
 *   and `*x` (a fill). A section with no placeholder shows its text (`[=1]"one"`; an empty one, nothing). `General`
 *   inside a section is the number as General shows it ({@link generalNumber}: `"Total: "General`).
 *
 * Not followed (the caller shows the number as General does): fractions (`# ?/?`), a text placeholder (`@`), and a
 * section without placeholders whose letters are unquoted (a locale's codes such as Japanese weekdays, `aaa`).
 */

/**
 * Most digits a format may ask for in one place (decimals, integer zeros, exponent digits): Excel's own limit for
 * decimals. `toFixed` and `toExponential` throw past 100, and a crafted format asking for a thousand zeros would
 * otherwise put them in every cell it styles.
 */
const MAX_PLACES = 30;

/** Integer digits past which General writes a number in scientific notation (`1.23457E+11`), as Excel does. */
const GENERAL_MAX_DIGITS = 11;

/** One piece of a section. */
type Token =
  | { kind: "digit"; ch: string }
  | { kind: "point" | "comma" | "percent" | "general" }
  | { kind: "exponent"; text: string }
  | { kind: "literal"; text: string };

/** A section read once: its tokens and what they ask of the number. */
export interface SectionLayout {
  tokens: Token[];
  /** The integer part's placeholders, left to right, and the fraction's. */
  integer: Token[];
  fraction: Token[];
  /** The exponent's index (`E+`), -1 when none, and its digit count. */
  exponentAt: number;
  exponentDigits: number;
  /** Thousands separators; divisions by 1,000; multiplications by 100. */
  group: boolean;
  scale: number;
  percents: number;
  /** The first placeholder's index: a comma before it is literal text. */
  firstDigit: number;
}

/** The end of the run opened at `i` by a quote or bracket, closed by `close` (the text's end when it is not). */
export function endOf(code: string, i: number, close: string): number {
  const end = code.indexOf(close, i + 1);
  return end < 0 ? code.length : end;
}

/** A section's tokens; undefined for what is not followed (see the module's notes). */
function tokenize(section: string): Token[] | undefined {
  const out: Token[] = [];
  let bareLetters = false;
  let digits = false;
  let point = false;
  for (let i = 0; i < section.length; i++) {
    const c = section[i]!;
    if (c === '"') {
      const end = endOf(section, i, '"');
      out.push({ kind: "literal", text: section.slice(i + 1, end) });
      i = end;
    } else if (c === "\\") out.push({ kind: "literal", text: section[++i] ?? "" });
    else if (c === "_" || c === "*") i++;
    else if (c === "[") {
      const end = endOf(section, i, "]");
      const currency = /^\$([^-]*)/.exec(section.slice(i + 1, end));
      if (currency) out.push({ kind: "literal", text: currency[1]! });
      i = end;
    } else if (c === "0" || c === "#" || c === "?") {
      out.push({ kind: "digit", ch: c });
      digits = true;
    } else if (c === "." && !point) {
      out.push({ kind: "point" });
      point = true;
    } else if (c === ",") out.push({ kind: "comma" });
    else if (c === "%") out.push({ kind: "percent" });
    else if ((c === "E" || c === "e") && digits && /^[+-][0#?]/.test(section.slice(i + 1, i + 3))) {
      out.push({ kind: "exponent", text: section.slice(i, i + 2) });
      i++;
    } else if (/^general/i.test(section.slice(i, i + 7))) {
      out.push({ kind: "general" });
      i += 6;
    } else if (c === "/" || c === "@") return undefined;
    else {
      bareLetters ||= /\p{L}/u.test(c);
      out.push({ kind: "literal", text: c });
    }
  }
  return digits || !bareLetters ? out : undefined;
}

/** Reads a section once (formats are few, cells many); undefined when it is not one this reader follows. */
export function compileSection(section: string): SectionLayout | undefined {
  const tokens = tokenize(section);
  if (!tokens) return undefined;
  const exponentAt = tokens.findIndex((t) => t.kind === "exponent");
  const mantissaEnd = exponentAt < 0 ? tokens.length : exponentAt;
  const pointAt = tokens.findIndex((t, i) => t.kind === "point" && i < mantissaEnd);
  const integerEnd = pointAt < 0 ? mantissaEnd : pointAt;
  const layout: SectionLayout = { tokens, integer: [], fraction: [], exponentAt, exponentDigits: 0, group: false, scale: 0, percents: 0, firstDigit: -1 };
  let lastIntegerDigit = -1;
  let lastDigit = -1;
  tokens.forEach((t, i) => {
    if (t.kind === "percent") layout.percents++;
    if (t.kind !== "digit") return;
    if (i > mantissaEnd) layout.exponentDigits++;
    else {
      (i < integerEnd ? layout.integer : layout.fraction).push(t);
      if (layout.firstDigit < 0) layout.firstDigit = i;
      if (i < integerEnd) lastIntegerDigit = i;
      lastDigit = i;
    }
  });
  // A comma between integer placeholders groups thousands; after the mantissa's last placeholder it scales.
  tokens.forEach((t, i) => {
    if (t.kind !== "comma" || layout.firstDigit < 0 || i < layout.firstDigit || i > mantissaEnd) return;
    if (i < lastIntegerDigit) layout.group = true;
    else if (i > lastDigit) layout.scale++;
  });
  return layout;
}

/** `value` (not negative) laid out by section `s`; undefined past what can be written (scaled past 1e21). */
export function layOut(value: number, s: SectionLayout): string | undefined {
  const literal = (t: Token) => ("text" in t ? t.text : t.kind === "percent" ? "%" : "");
  if (s.tokens.some((t) => t.kind === "general")) return s.tokens.map((t) => (t.kind === "general" ? generalNumber(value) : literal(t))).join("");
  if (s.firstDigit < 0) return s.tokens.map((t) => (t.kind === "comma" ? "," : t.kind === "point" ? "." : literal(t))).join("");
  const scaled = (value * 100 ** s.percents) / 1000 ** s.scale;
  if (!Number.isFinite(scaled)) return undefined;
  const decimals = Math.min(MAX_PLACES, s.fraction.length);
  let digits: string;
  let exponent = "";
  if (s.exponentAt >= 0) {
    const kept = Math.min(decimals, 14); // one digit before the point, 14 after: a double's 15
    const [m, e] = scaled.toExponential(kept).split("e");
    digits = padDecimals(m!, kept, decimals);
    const code = (s.tokens[s.exponentAt] as { text: string }).text;
    const sign = Number(e) < 0 ? "-" : code.endsWith("+") ? "+" : "";
    exponent = `${code[0]}${sign}${String(Math.abs(Number(e))).padStart(Math.min(MAX_PLACES, s.exponentDigits), "0")}`;
  } else {
    if (scaled >= 1e21) return undefined; // toFixed would write it in exponent notation
    const kept = meaningfulDecimals(scaled, decimals);
    digits = padDecimals(scaled.toFixed(kept), kept, decimals);
  }
  const [intDigits, fracDigits = ""] = digits.split(".") as [string, string?];
  const shown = new Map([...fillInteger(s.integer, intDigits === "0" ? "" : intDigits, s.group), ...fillFraction(s.fraction, fracDigits)]);
  return s.tokens
    .map((t, i) => {
      if (t.kind === "digit") return shown.get(t) ?? "";
      if (t.kind === "exponent") return i === s.exponentAt ? exponent : "";
      // No integer placeholder (`.00`): the integer's digits still show, before the point.
      if (t.kind === "point") return `${s.integer.length === 0 && intDigits !== "0" ? intDigits : ""}.`;
      if (t.kind === "comma") return i < s.firstDigit ? "," : "";
      return literal(t);
    })
    .join("");
}

/** What a placeholder shows where the number has no digit for it. */
const PAD: Record<string, string> = { "0": "0", "#": "", "?": " " };

/**
 * The integer placeholders' texts: `digits` from the right, one each, the leftmost taking all that are left; the
 * rightmost {@link MAX_PLACES} placeholders only (a crafted `0` × 200 pads to 30 digits, not 200).
 */
function fillInteger(placeholders: Token[], digits: string, group: boolean): [Token, string][] {
  const active = placeholders.slice(-MAX_PLACES);
  const texts: string[] = new Array(active.length);
  let left = digits.length;
  for (let j = active.length - 1; j >= 0; j--) {
    const from = j === 0 ? 0 : Math.max(0, left - 1);
    texts[j] = digits.slice(from, left) || PAD[(active[j] as { ch: string }).ch]!;
    left = from;
  }
  if (group) {
    // Thousands separators between the digits shown, counted from the right whatever placeholder holds them.
    let count = 0;
    for (let j = texts.length - 1; j >= 0; j--) {
      let text = "";
      for (let k = texts[j]!.length - 1; k >= 0; k--) {
        const c = texts[j]![k]!;
        const digit = c >= "0" && c <= "9";
        text = (digit && count > 0 && count % 3 === 0 ? `${c},` : c) + text;
        if (digit) count++;
      }
      texts[j] = text;
    }
  }
  return active.map((t, j) => [t, texts[j]!]);
}

/** The fraction placeholders' texts: `digits` from the left; past the last significant one, `0` pads and `#` drops. */
function fillFraction(placeholders: Token[], digits: string): [Token, string][] {
  const significant = digits.replace(/0+$/, "").length;
  return placeholders.map((t, i) => [t, i >= MAX_PLACES ? "" : i < significant ? digits[i]! : PAD[(t as { ch: string }).ch]!]);
}

/**
 * `digits` (a number's text, from toFixed or toExponential) with its decimals written to `wanted` places from the
 * `kept` it was written with: a double holds 15 significant digits, and Excel shows zeros past them, not the
 * binary expansion (1234567.891 to 30 places is 1234567.891000…, not 1234567.891000000061467…).
 */
function padDecimals(digits: string, kept: number, wanted: number): string {
  if (wanted === kept) return digits;
  return (kept === 0 ? `${digits}.` : digits) + "0".repeat(wanted - kept);
}

/** Decimals of `value` (not negative) that fall within a double's 15 significant digits, at most `wanted`. */
function meaningfulDecimals(value: number, wanted: number): number {
  const integerDigits = value > 0 ? Math.floor(Math.log10(value)) + 1 : 1;
  return Math.max(0, Math.min(wanted, 15 - integerDigits));
}

/**
 * A number as Excel's General format shows it: without float noise (`0.1 + 0.2` is stored as 0.30000000000000004
 * and shown as 0.3), to 15 significant digits; in scientific notation (six significant digits, a two-digit exponent
 * at least) when its integer part takes more than {@link GENERAL_MAX_DIGITS} digits (123456789012 is `1.23457E+11`)
 * or it is below 0.0001 (0.000000123 is `1.23E-07`), where Excel switches too.
 */
export function generalNumber(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const rounded = Number(n.toPrecision(15));
  const magnitude = Number(rounded.toExponential().split("e")[1]);
  if (magnitude < GENERAL_MAX_DIGITS && magnitude >= -4) return String(rounded);
  const [mantissa, exp] = rounded.toExponential(5).split("e");
  const e = Number(exp);
  return `${mantissa!.replace(/\.?0+$/, "")}E${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}
