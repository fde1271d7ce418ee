/**
 * @module documents/office/number-format
 * A number through the number sections of a spreadsheet format code (ECMA-376 Part 1 §18.8.31; the codes Excel's
 * Number, Currency, Accounting, Percentage, Scientific, Special and Custom categories write), as Excel lays it out:
 *
 * - **Sections.** Up to four, split at `;` outside quotes and escapes: positive (and, with two sections, zero);
 *   negative (shown without its sign, which the section's own text carries: `(1,234.50)`); zero; text. An empty
 *   section shows nothing (`0;-0;;@` hides zeros). A section with a condition (`[<=9999999]`, `[>100]`, `[=1]`) shows
 *   the numbers it holds for, the first two tried in turn and the next one without a condition taking the rest:
 *   Excel's Special "Phone Number" is `[<=9999999]###-####;(###) ###-####`. A negative number shown by a section
 *   picked by a condition keeps its minus sign, unless the condition admits only negative numbers (`[<0]`).
 * - **Layout.** The chosen section lays the number out: digit placeholders filled from the right across literal
 *   text (Zip+4 `00000-0000`: `98101-1234`), thousands, scaling, percentages, scientific notation
 *   (number-format-layout.ts).
 *
 * A code is read once ({@link compileFormat}: its sections, conditions and layouts) and then lays out any number of
 * cells; the caller keeps what it compiled for as long as the codes are used (a workbook: xlsx-values.ts).
 * Fractions (`# ?/?`) and a text placeholder (`@`) in a number section are not followed: {@link formatNumber} says
 * so, and the caller shows the number as General does (number-format-general.ts).
 */
import { compileSection, layOut, type SectionLayout } from "./number-format-layout.ts";
import { formatSections, unquoted } from "./number-format-tokens.ts";

/** A section's condition: `[<=9999999]` is `{ op: "<=", value: 9999999 }`. */
interface Condition {
  op: string;
  value: number;
}

/**
 * A condition in a section's text (quotes and escapes removed): `[`, a comparison, a number (`9999999`, `-1.5`,
 * `1e6`), `]`. Every quantifier is followed by a character it cannot match, so a failed match does not backtrack.
 */
const CONDITION = /\[(<=|>=|<>|<|>|=)\s*([+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*\]/;

/** The condition of section `section`, if it has one: the first bracket that is a comparison (not `[Red]`, `[$-409]`). */
function conditionOf(section: string): Condition | undefined {
  const m = CONDITION.exec(unquoted(section, false));
  return m ? { op: m[1]!, value: Number(m[2]) } : undefined;
}

/** Whether number `n` meets condition `c` (`=` and `<>` compare exactly, as Excel does: `[=1]` is 1, not 0.9999999). */
function holds(c: Condition, n: number): boolean {
  switch (c.op) {
    case "<": return n < c.value;
    case "<=": return n <= c.value;
    case ">": return n > c.value;
    case ">=": return n >= c.value;
    case "=": return n === c.value;
    default: return n !== c.value;
  }
}

/** Whether only negative numbers meet `c` (`[<0]`): its section then carries the sign itself. */
const onlyNegatives = (c: Condition) => (c.op === "<" && c.value <= 0) || (c.op === "<=" && c.value < 0) || (c.op === "=" && c.value < 0);

/** Whether a section holds an unquoted `@`: the text section, which numbers never use. */
const isTextSection = (s: string) => unquoted(s, true).includes("@");

/** A format code read once: its number sections, their conditions and layouts (undefined: one not followed). */
export interface CompiledFormat {
  sections: string[];
  conditions: (Condition | undefined)[];
  layouts: (SectionLayout | undefined)[];
}

/**
 * Reads format code `code` once for all the cells it styles: its number sections (at most three; a fourth, or a
 * last one holding `@`, is the text section numbers never use), their conditions, and their layouts. Linear in the
 * code's length (number-format-tokens.ts).
 */
export function compileFormat(code: string): CompiledFormat {
  let sections = formatSections(code).slice(0, 4);
  if (sections.length === 4 || (sections.length > 1 && isTextSection(sections.at(-1)!))) sections = sections.slice(0, -1);
  return { sections, conditions: sections.map(conditionOf), layouts: sections.map(compileSection) };
}

/** The index of the section of `format` that shows `n`, and whether `n`'s minus sign is shown before it; undefined when none does. */
function sectionFor(format: CompiledFormat, n: number): { index: number; signed: boolean } | undefined {
  const { sections, conditions } = format;
  if (conditions[0] || conditions[1]) {
    for (const index of [0, 1]) {
      const c = conditions[index];
      if (c && holds(c, n)) return { index, signed: n < 0 && !onlyNegatives(c) };
    }
    const rest = sections.findIndex((_, i) => i <= 2 && !conditions[i]);
    return rest < 0 ? undefined : { index: rest, signed: n < 0 };
  }
  if (n < 0 && sections.length > 1) return { index: 1, signed: false };
  if (n === 0 && sections.length > 2) return { index: 2, signed: false };
  return { index: 0, signed: n < 0 };
}

/** Whether laid-out `text` shows a digit other than zero before a trailing exponent (`0.00` and `0.00E+05` do not). */
function showsNonZero(text: string): boolean {
  const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
  let end = text.length;
  while (isDigit(text[end - 1])) end--;
  const e = end < text.length && (text[end - 1] === "+" || text[end - 1] === "-") ? end - 1 : end;
  end = end < text.length && (text[e - 1] === "E" || text[e - 1] === "e") ? e - 1 : text.length;
  for (let i = 0; i < end; i++) if (isDigit(text[i]) && text[i] !== "0") return true;
  return false;
}

/**
 * The number `n` shown with format `format` (compiled by {@link compileFormat}), or undefined when the format is not
 * one this reader follows or no section shows `n` (conditions that all fail): the caller then shows the number as
 * General does.
 */
export function formatNumber(n: number, format: CompiledFormat): string | undefined {
  const chosen = sectionFor(format, n);
  if (!chosen) return undefined;
  const layout = format.layouts[chosen.index];
  const text = layout && layOut(Math.abs(n), layout);
  if (text === undefined) return undefined;
  // A number that rounds to zero shows no sign (-0.001 with 0.00 is 0.00).
  return ((chosen.signed && showsNonZero(text) ? "-" : "") + text).trim();
}
