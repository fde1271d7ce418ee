/**
 * @module documents/office/number-format-layout
 * How one section of a spreadsheet number format lays a number out (ECMA-376 Part 1 §18.8.31), as Excel does; the
 * section's tokens are number-format-tokens.ts's, which section applies is number-format.ts's concern.
 *
 * - **Digit placeholders.** `0` shows a digit or a zero, `#` a digit or nothing, `?` a digit or a space. The integer
 *   part's placeholders are filled from the right across the whole section, literal text between them staying where
 *   it is, and the leftmost takes every digit left over: Zip+4 `00000-0000` shows 981011234 as `98101-1234` and 2134
 *   as `00000-2134`, SSN `000-00-0000` 123456789 as `123-45-6789`. Decimals fill from the left; past the last
 *   significant one `0` pads and `#` drops (`0.0#`: 2 is `2.0`). A comma between integer placeholders groups
 *   thousands; commas after the last placeholder divide by 1,000 each (`#,##0,"K"`: 1234567 is `1,235K`). Each `%`
 *   multiplies by 100.
 * - **Scientific notation** (`E+`, `E-`): the count of integer placeholders is the exponent's multiple, as in Excel:
 *   `0.00E+00` keeps one digit before the point (12345 is `1.23E+04`), engineering notation's `##0.0E+0` three
 *   (12345 is `12.3E+3`, 1234567 `1.2E+6`). The mantissa is never padded with leading zeros (`00.00E+0` shows 12345
 *   as `1.23E+4`, not `01.23E+4`).
 * - **Literals** show as they are. A section with no placeholder shows its text (`[=1]"one"`; an empty one, nothing).
 *   `General` inside a section is the number as General shows it (number-format-general.ts: `"Total: "General`).
 */
import { DOUBLE_DIGITS, generalNumber, meaningfulDecimals, padDecimals } from "./number-format-general.ts";
import { tokenize, type Token } from "./number-format-tokens.ts";

/**
 * Most digits a format may ask for in one place (decimals, integer zeros, exponent digits): Excel's own limit for
 * decimals. `toFixed` and `toExponential` throw past 100, and a crafted format asking for a thousand zeros would
 * otherwise put them in every cell it styles.
 */
const MAX_PLACES = 30;

/** A section read once (formats are few, cells many): its tokens and what they ask of the number. */
export interface SectionLayout {
  tokens: Token[];
  /** The token indices of the integer part's placeholders, left to right, and of the fraction's. */
  integer: number[];
  fraction: number[];
  /** The exponent's token index (`E+`), -1 when none, and its digit count. */
  exponentAt: number;
  exponentDigits: number;
  /** Thousands separators; divisions by 1,000; multiplications by 100. */
  group: boolean;
  scale: number;
  percents: number;
  /** The first placeholder's index (-1: none, the section is text): a comma before it is literal text. */
  firstDigit: number;
  /** Whether the section holds `General`. */
  general: boolean;
}

/** Reads a section; undefined when it is not one this reader follows (number-format-tokens.ts {@link tokenize}). */
export function compileSection(section: string): SectionLayout | undefined {
  const tokens = tokenize(section);
  if (!tokens) return undefined;
  const exponentAt = tokens.findIndex((t) => t.kind === "exponent");
  const mantissaEnd = exponentAt < 0 ? tokens.length : exponentAt;
  const pointAt = tokens.findIndex((t, i) => t.kind === "point" && i < mantissaEnd);
  const integerEnd = pointAt < 0 ? mantissaEnd : pointAt;
  const layout: SectionLayout = { tokens, integer: [], fraction: [], exponentAt, exponentDigits: 0, group: false, scale: 0, percents: 0, firstDigit: -1, general: false };
  let lastIntegerDigit = -1;
  let lastDigit = -1;
  tokens.forEach((t, i) => {
    if (t.kind === "percent") layout.percents++;
    if (t.kind === "general") layout.general = true;
    if (t.kind !== "digit") return;
    if (i > mantissaEnd) layout.exponentDigits++;
    else {
      (i < integerEnd ? layout.integer : layout.fraction).push(i);
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

/** A token's literal text. */
const literal = (t: Token) => ("text" in t ? t.text : t.kind === "percent" ? "%" : "");

/** `value` (not negative) laid out by section `s`; undefined past what can be written (scaled past 1e21). */
export function layOut(value: number, s: SectionLayout): string | undefined {
  if (s.general) return s.tokens.map((t) => (t.kind === "general" ? generalNumber(value) : literal(t))).join("");
  if (s.firstDigit < 0) return s.tokens.map((t) => (t.kind === "comma" ? "," : t.kind === "point" ? "." : literal(t))).join("");
  const scaled = (value * 100 ** s.percents) / 1000 ** s.scale;
  if (!Number.isFinite(scaled)) return undefined;
  const decimals = Math.min(MAX_PLACES, s.fraction.length);
  const shown: string[] = new Array(s.tokens.length).fill("");
  let intDigits: string;
  if (s.exponentAt >= 0) {
    const m = mantissa(scaled, Math.max(1, Math.min(MAX_PLACES, s.integer.length)), decimals);
    intDigits = m.integer;
    fillInteger(shown, s, m.integer === "0" ? "" : m.integer, m.integer === "0");
    fillFraction(shown, s, m.fraction);
    const code = (s.tokens[s.exponentAt] as { text: string }).text;
    const sign = m.exponent < 0 ? "-" : code.endsWith("+") ? "+" : "";
    shown[s.exponentAt] = `${code[0]}${sign}${String(Math.abs(m.exponent)).padStart(Math.min(MAX_PLACES, s.exponentDigits), "0")}`;
  } else {
    if (scaled >= 1e21) return undefined; // toFixed would write it in exponent notation
    const kept = meaningfulDecimals(scaled, decimals);
    const [int, frac = ""] = padDecimals(scaled.toFixed(kept), kept, decimals).split(".") as [string, string?];
    intDigits = int;
    fillInteger(shown, s, int === "0" ? "" : int, true);
    fillFraction(shown, s, frac);
  }
  let out = "";
  for (let i = 0; i < s.tokens.length; i++) {
    const t = s.tokens[i]!;
    if (t.kind === "digit" || t.kind === "exponent") out += shown[i];
    // No integer placeholder (`.00`): the integer's digits still show, before the point.
    else if (t.kind === "point") out += `${s.integer.length === 0 && intDigits !== "0" ? intDigits : ""}.`;
    else if (t.kind === "comma") out += i < s.firstDigit ? "," : "";
    else out += literal(t);
  }
  return out;
}

/**
 * `value` (not negative) in scientific notation whose exponent is a multiple of `multiple` (the integer
 * placeholders' count), with `decimals` places: the mantissa's integer and fraction digits and the exponent. The
 * mantissa is rounded to its places, and a rounding that carries (999.96 to `##0.0E+0`) moves to the next power.
 */
function mantissa(value: number, multiple: number, decimals: number): { integer: string; fraction: string; exponent: number } {
  const block = (e: number) => Math.floor(e / multiple) * multiple;
  const magnitude = Number(value.toExponential().split("e")[1]);
  // Digits the mantissa shows: its integer digits (1 to `multiple`) and its decimals; a double holds 15.
  const wanted = magnitude - block(magnitude) + 1 + decimals;
  const [m, e] = value.toExponential(Math.min(wanted, DOUBLE_DIGITS) - 1).split("e");
  const exponent = Number(e);
  const integerDigits = exponent - block(exponent) + 1;
  // After a carry the rounded value is a power of ten: the zeros padded are exact.
  const digits = m!.replace(".", "").padEnd(integerDigits + decimals, "0");
  return { integer: digits.slice(0, integerDigits), fraction: digits.slice(integerDigits, integerDigits + decimals), exponent: block(exponent) };
}

/** What a placeholder shows where the number has no digit for it. */
const PAD: Record<string, string> = { "0": "0", "#": "", "?": " " };

/** The placeholder character (`0`, `#`, `?`) of section `s`'s token `at`. */
const placeholderOf = (s: SectionLayout, at: number) => (s.tokens[at] as { ch: string }).ch;

/**
 * The integer placeholders' texts, into `shown` by token index: `digits` from the right, one each, the leftmost
 * taking all that are left; the rightmost {@link MAX_PLACES} placeholders only (a crafted `0` × 200 pads to 30
 * digits, not 200). Without `zeros`, a `0` placeholder with no digit shows nothing (a scientific mantissa).
 */
function fillInteger(shown: string[], s: SectionLayout, digits: string, zeros: boolean): void {
  const active = s.integer.slice(-MAX_PLACES);
  const texts: string[] = new Array(active.length);
  let left = digits.length;
  for (let j = active.length - 1; j >= 0; j--) {
    const from = j === 0 ? 0 : Math.max(0, left - 1);
    const ch = placeholderOf(s, active[j]!);
    texts[j] = digits.slice(from, left) || (ch === "0" && !zeros ? "" : PAD[ch]!);
    left = from;
  }
  if (s.group) {
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
  active.forEach((at, j) => (shown[at] = texts[j]!));
}

/** The fraction placeholders' texts, into `shown`: `digits` from the left; past the last significant one, `0` pads and `#` drops. */
function fillFraction(shown: string[], s: SectionLayout, digits: string): void {
  let significant = digits.length;
  while (significant > 0 && digits[significant - 1] === "0") significant--;
  s.fraction.forEach((at, i) => (shown[at] = i >= MAX_PLACES ? "" : i < significant ? digits[i]! : PAD[placeholderOf(s, at)]!));
}
