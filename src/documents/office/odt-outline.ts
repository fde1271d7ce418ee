/**
 * @module documents/office/odt-outline
 * The numbers an ODT's headings show (ODF 1.2 §16.34 `text:outline-style`): a document whose chapters are
 * numbered `1.`, `1.1.` keeps them in its headings, `# 1. Scope`, as the DOCX and RTF readers keep a numbered
 * heading's number (a reference to "section 1.1" must still find it). Each heading counts at its outline level,
 * deeper levels starting again after it; a level whose format is empty shows nothing, `text:display-levels` shows
 * the numbers of the levels above it too, `text:restart-numbering` with `text:start-value` sets the count, and a
 * heading marked `text:is-list-header` is not numbered.
 */
import { MAX_LIST_NUMBER } from "./odt-styles.ts";
import { child, children, intAttr, type XmlElement } from "./xml.ts";

/** Outline levels ODF defines. */
const MAX_OUTLINE_LEVEL = 10;

/** Largest number written in Roman numerals (there is no symbol for 5,000): larger ones are written in digits. */
const MAX_ROMAN = 3999;

const ROMAN: [number, string][] = [
  [1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"],
  [50, "l"], [40, "xl"], [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"],
];

/** One outline level's number: its format (`1`, `a`, `A`, `i`, `I`; empty shows none), its prefix and suffix. */
interface OutlineLevel {
  format: string;
  prefix: string;
  suffix: string;
  /** How many levels' numbers it shows, its own last (`1.2.` shows two). */
  display: number;
  start: number;
}

/** `n` in the number format `format`: letters (a … z, aa …), Roman numerals, or digits. */
function formatNumber(n: number, format: string): string {
  if ((format === "a" || format === "A") && n > 0) {
    // LibreOffice's alphabetic numbering repeats the letter: 27 is aa, 28 bb.
    const letter = String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.min(Math.ceil(n / 26), 10));
    return format === "A" ? letter.toUpperCase() : letter;
  }
  if ((format === "i" || format === "I") && n > 0 && n <= MAX_ROMAN) {
    let out = "";
    for (const [value, numeral] of ROMAN) for (; n >= value; n -= value) out += numeral;
    return format === "I" ? out.toUpperCase() : out;
  }
  return String(n);
}

/** The headings' numbering of one document, counted as its headings come. */
export class OdtOutline {
  private readonly levels = new Map<number, OutlineLevel>();
  private readonly counters: number[] = [];

  /** From `styles.xml`'s root (its `office:styles` holds the outline style); none: headings are not numbered. */
  constructor(styles: XmlElement | undefined) {
    const outline = child(child(styles, "office:styles"), "text:outline-style");
    if (!outline) return;
    for (const l of children(outline, "text:outline-level-style")) {
      const level = intAttr(l.getAttribute("text:level"), 1, MAX_OUTLINE_LEVEL, 1);
      this.levels.set(level, {
        format: l.getAttribute("style:num-format") ?? "",
        prefix: l.getAttribute("style:num-prefix") ?? "",
        suffix: l.getAttribute("style:num-suffix") ?? "",
        display: intAttr(l.getAttribute("text:display-levels"), 1, MAX_OUTLINE_LEVEL, 1),
        start: intAttr(l.getAttribute("text:start-value"), 0, MAX_LIST_NUMBER, 1),
      });
    }
  }

  /** The number heading `h` shows (`1.2.`), counted; "" when its level shows none. */
  label(h: XmlElement): string {
    if (this.levels.size === 0 || h.getAttribute("text:is-list-header") === "true") return "";
    const level = intAttr(h.getAttribute("text:outline-level"), 1, MAX_OUTLINE_LEVEL, 1);
    const counters = this.counters;
    if (counters.length > level) counters.length = level;
    const restart = h.getAttribute("text:restart-numbering") === "true";
    const own = this.levels.get(level);
    const start = restart ? intAttr(h.getAttribute("text:start-value"), 0, MAX_LIST_NUMBER, own?.start ?? 1) : undefined;
    counters[level - 1] = Math.min(start ?? (counters[level - 1] === undefined ? (own?.start ?? 1) : counters[level - 1]! + 1), MAX_LIST_NUMBER);
    if (!own?.format) return "";
    const numbers: string[] = [];
    for (let l = Math.max(1, level - own.display + 1); l <= level; l++) {
      numbers.push(formatNumber(counters[l - 1] ?? this.levels.get(l)?.start ?? 1, this.levels.get(l)?.format || "1"));
    }
    return `${own.prefix}${numbers.join(".")}${own.suffix}`;
  }
}
