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
 * Fractions (`# ?/?`) and a text placeholder (`@`) in a number section are not followed: {@link formatNumber} says
 * so, and the caller shows the number as General does (number-format-layout.ts `generalNumber`).
 */
import { compileSection, endOf, layOut, type SectionLayout } from "./number-format-layout.ts";

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

/** A section's condition: `[<=9999999]` is `{ op: "<=", value: 9999999 }`. */
interface Condition {
  op: string;
  value: number;
}

const CONDITION = /\[(<=|>=|<>|<|>|=)\s*([+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*\]/;

function conditionOf(section: string): Condition | undefined {
  const m = CONDITION.exec(section.replace(/"[^"]*"|\\./g, ""));
  return m ? { op: m[1]!, value: Number(m[2]) } : undefined;
}

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
const isTextSection = (s: string) => s.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "").includes("@");

/** A format code read once: its number sections and their conditions. */
interface CompiledFormat {
  sections: string[];
  conditions: (Condition | undefined)[];
  layouts: Map<string, SectionLayout | undefined>;
}

/**
 * Formats read, by code. A workbook has a few dozen and a million cells; a crafted code of 255 characters costs its
 * reading once, not once per cell. Cleared when full: the worker converts one document after another.
 */
const compiled = new Map<string, CompiledFormat>();
const MAX_COMPILED_FORMATS = 512;

function compile(code: string): CompiledFormat {
  let format = compiled.get(code);
  if (format) return format;
  let sections = formatSections(code).slice(0, 4);
  if (sections.length === 4 || (sections.length > 1 && isTextSection(sections.at(-1)!))) sections = sections.slice(0, -1);
  format = { sections, conditions: sections.map(conditionOf), layouts: new Map() };
  if (compiled.size >= MAX_COMPILED_FORMATS) compiled.clear();
  compiled.set(code, format);
  return format;
}

/** The section of `code` that shows `n`, and whether `n`'s minus sign is shown before it; undefined when none does. */
function sectionFor(code: string, n: number): { section: string; signed: boolean; format: CompiledFormat } | undefined {
  const format = compile(code);
  const { sections, conditions } = format;
  const pick = (i: number, signed: boolean) => ({ section: sections[i]!, signed, format });
  if (conditions[0] || conditions[1]) {
    for (const i of [0, 1]) {
      const c = conditions[i];
      if (c && holds(c, n)) return pick(i, n < 0 && !onlyNegatives(c));
    }
    const rest = sections.findIndex((_, i) => i <= 2 && !conditions[i]);
    return rest < 0 ? undefined : pick(rest, n < 0);
  }
  if (n < 0 && sections.length > 1) return pick(1, false);
  if (n === 0 && sections.length > 2) return pick(2, false);
  return pick(0, n < 0);
}

/**
 * The number `n` shown with format `code` (its number sections), or undefined when the format is not one this reader
 * follows or no section shows `n` (conditions that all fail): the caller then shows the number as General does.
 */
export function formatNumber(n: number, code: string): string | undefined {
  const chosen = sectionFor(code, n);
  if (!chosen) return undefined;
  const { layouts } = chosen.format;
  if (!layouts.has(chosen.section)) layouts.set(chosen.section, compileSection(chosen.section));
  const layout = layouts.get(chosen.section);
  const text = layout && layOut(Math.abs(n), layout);
  if (text === undefined) return undefined;
  // A number that rounds to zero shows no sign (-0.001 with 0.00 is 0.00).
  const sign = chosen.signed && /[1-9]/.test(text.replace(/E[+-]?\d+$/i, "")) ? "-" : "";
  return (sign + text).trim();
}
