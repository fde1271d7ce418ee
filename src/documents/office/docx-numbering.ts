/**
 * @module documents/office/docx-numbering
 * A DOCX's list numbering (word/numbering.xml), counted as Word counts it (ECMA-376 §17.9). A paragraph names a
 * numbering instance (`w:num`) and a level; each instance points to an abstract definition (`w:abstractNum`) whose
 * levels say the format (bullet, decimal, letters, roman…), the start value, and when the level restarts
 * (`w:lvlRestart`). The running count belongs to the abstract definition, not to the instance: instances of one
 * definition go on counting from each other, which is how a list carries on after a paragraph, a table or a
 * heading between its items. An instance that overrides a level's start (`w:lvlOverride/w:startOverride`, Word's
 * "Restart numbering" and "Set numbering value") restarts that level where it is first used.
 */
import type { ListNumberFormat } from "../layout/model.ts";
import { MAX_LABEL_CHARS } from "./doc-lists.ts";
import type { DocxStyles } from "./docx-styles.ts";
import { child, children, intAttr, MAX_LIST_DEPTH, type XmlElement } from "./xml.ts";

/** One level of a list definition. */
interface Level {
  format: string;
  start: number;
  /** The level (1-based) whose use restarts this one, 0 for never; undefined: any shallower level does. */
  restart?: number;
  /** The number as shown, `%1.%2.` standing for the levels' counts (read for numbered headings). */
  text: string;
}

/** A numbering instance: its abstract definition, the levels it overrides and the starts it restarts at. */
interface Instance {
  abstractId: string;
  levels: Level[];
  starts: Map<number, number>;
}

/** One numbered paragraph, as counting gives it. */
export interface ListNumber {
  /** Numbered (decimal, letters, roman…) rather than a bullet, at this paragraph's level. */
  ordered: boolean;
  /** Its number at its level. */
  number: number;
  /** Its level's letters or roman numerals (`w:numFmt` lowerLetter, upperLetter, lowerRoman, upperRoman); digits without. */
  format?: ListNumberFormat;
  /** Letters past z repeat one letter, as Word writes them (item 28 is "bb"): set for the letter formats. */
  letterSync?: boolean;
  /** The list it belongs to: the abstract definition whose count it goes on. */
  list: string;
  /** Whether it starts its level again (a start override used for the first time). */
  restarted: boolean;
  /**
   * The number as the document shows it (`2.1.`, at most {@link MAX_LABEL_CHARS} characters), when asked for (a
   * numbered heading's); "" otherwise, and for a bullet or no number.
   */
  label: string;
  /**
   * Whether the paragraph shows a number or a bullet at all: a level of format "none" with no text is how a list
   * holds an unnumbered paragraph (a clause's second paragraph), which reads as a paragraph.
   */
  shown: boolean;
}

/** Largest start value kept; Word's own limit is 32767. */
const MAX_START = 32_767;
/**
 * Longest `w:lvlText` read: Word's dialog takes a few characters (`%1.%2.%3.`); a crafted 5,000 `%1`s, each a count
 * written in letters, made every item's label megabytes of work.
 */
const MAX_LEVEL_TEXT_CHARS = 64;
/** Most definitions one abstract list may redirect through (`w:numStyleLink` → style → `w:num` → …). */
const MAX_LINKS = 5;

const BULLET = new Set(["bullet", "none"]);

/** The `w:numFmt` values numbered in letters or roman numerals, as the renderer shows them. */
const FORMATS = new Map<string, ListNumberFormat>([
  ["lowerLetter", "a"],
  ["upperLetter", "A"],
  ["lowerRoman", "i"],
  ["upperRoman", "I"],
]);

function readLevel(lvl: XmlElement, base?: Level): Level {
  const val = (name: string) => child(lvl, name)?.getAttribute("w:val") ?? undefined;
  const restart = val("w:lvlRestart");
  return {
    format: val("w:numFmt") ?? base?.format ?? "decimal",
    // Word reads a missing start as 0; documents always write it, and a list counting from 0 would surprise.
    start: intAttr(val("w:start"), 0, MAX_START, base?.start ?? 1),
    restart: restart === undefined ? base?.restart : intAttr(restart, 0, MAX_LIST_DEPTH + 1, 0),
    text: (val("w:lvlText") ?? base?.text ?? "").slice(0, MAX_LEVEL_TEXT_CHARS),
  };
}

function readLevels(parent: XmlElement): Level[] {
  const out: Level[] = [];
  for (const lvl of children(parent, "w:lvl")) out[intAttr(lvl.getAttribute("w:ilvl"), 0, MAX_LIST_DEPTH, 0)] ??= readLevel(lvl);
  return out;
}

/** Counts the numbered paragraphs of one document, in the order they come. */
export class DocxNumbering {
  private readonly abstracts = new Map<string, { levels: Level[]; link?: string }>();
  private readonly instances = new Map<string, Instance | null>();
  private readonly nums = new Map<string, XmlElement>();
  /** The counts of each abstract definition, by level (undefined: not counted since it last restarted). */
  private readonly counts = new Map<string, (number | undefined)[]>();
  /** The instances already met (their start overrides apply once). */
  private readonly met = new Set<string>();

  constructor(
    numbering: XmlElement | undefined,
    private readonly styles: DocxStyles,
  ) {
    if (!numbering) return;
    for (const a of children(numbering, "w:abstractNum")) {
      const link = child(a, "w:numStyleLink")?.getAttribute("w:val") ?? undefined;
      this.abstracts.set(a.getAttribute("w:abstractNumId") ?? "", { levels: readLevels(a), link });
    }
    for (const n of children(numbering, "w:num")) this.nums.set(n.getAttribute("w:numId") ?? "", n);
  }

  /** The instance `numId` resolved: its definition (through numbering styles), its overridden levels and starts. */
  private instance(numId: string): Instance | undefined {
    const known = this.instances.get(numId);
    if (known !== undefined) return known ?? undefined;
    const num = this.nums.get(numId);
    let abstractId = child(num, "w:abstractNumId")?.getAttribute("w:val") ?? "";
    let abstract = this.abstracts.get(abstractId);
    // A list style: the abstract definition only names a numbering style, whose own instance holds the levels.
    for (let hops = 0; abstract?.link !== undefined && hops < MAX_LINKS; hops++) {
      const linked = this.nums.get(this.styles.numberingStyleNumId(abstract.link) ?? "");
      const id = child(linked, "w:abstractNumId")?.getAttribute("w:val") ?? "";
      if (!linked || !this.abstracts.has(id)) break;
      [abstractId, abstract] = [id, this.abstracts.get(id)];
    }
    if (!num || !abstract) {
      this.instances.set(numId, null);
      return undefined;
    }
    const levels = [...abstract.levels];
    const starts = new Map<number, number>();
    for (const o of children(num, "w:lvlOverride")) {
      const ilvl = intAttr(o.getAttribute("w:ilvl"), 0, MAX_LIST_DEPTH, 0);
      const lvl = child(o, "w:lvl");
      if (lvl) levels[ilvl] = readLevel(lvl, levels[ilvl]);
      const start = child(o, "w:startOverride")?.getAttribute("w:val");
      if (start != null) starts.set(ilvl, intAttr(start, 0, MAX_START, 1));
      else if (lvl && child(lvl, "w:start")) starts.set(ilvl, levels[ilvl]!.start);
    }
    const out = { abstractId, levels, starts };
    this.instances.set(numId, out);
    return out;
  }

  /**
   * Counts the paragraph numbered by instance `numId` at level `ilvl`, with its label when `withLabel` (a numbered
   * heading's: a list item's number is the list's own); undefined when the document defines no such instance (numId 0
   * is Word's "no numbering").
   */
  next(numId: string, ilvl: number, withLabel = false): ListNumber | undefined {
    const inst = numId === "0" ? undefined : this.instance(numId);
    if (!inst) return undefined;
    let counts = this.counts.get(inst.abstractId);
    if (!counts) this.counts.set(inst.abstractId, (counts = []));
    let restarted = false;
    if (!this.met.has(numId)) {
      this.met.add(numId);
      for (const [level, start] of inst.starts) {
        counts[level] = start - 1;
        if (level === ilvl) restarted = true;
      }
    }
    const level = inst.levels[ilvl];
    const number = (counts[ilvl] ?? (level?.start ?? 1) - 1) + 1;
    counts[ilvl] = number;
    // Deeper levels start again under this one, unless their lvlRestart names a shallower level (or 0, never).
    for (let deeper = ilvl + 1; deeper < counts.length; deeper++) {
      const r = inst.levels[deeper]?.restart;
      if (r === undefined || ilvl < r) counts[deeper] = undefined;
    }
    const ordered = level !== undefined && !BULLET.has(level.format);
    const label = ordered && withLabel ? formatLabel(level.text, inst.levels, counts) : "";
    const shown = level?.format !== "none" || formatLabel(level.text, inst.levels, counts).trim() !== "";
    const format = ordered ? FORMATS.get(level?.format ?? "") : undefined;
    const letterSync = format === "a" || format === "A";
    return { ordered, number, ...(format ? { format } : {}), ...(letterSync ? { letterSync } : {}), list: inst.abstractId, restarted, label, shown };
  }
}

/** `text` with each `%N` replaced by level N's count in that level's format, cut at {@link MAX_LABEL_CHARS}. */
function formatLabel(text: string, levels: Level[], counts: (number | undefined)[]): string {
  let out = "";
  for (const m of text.matchAll(/%([1-9])|[^%]+|%/g)) {
    if (m[1] === undefined) out += m[0];
    else {
      const i = Number(m[1]) - 1;
      const level = levels[i];
      out += formatNumber(counts[i] ?? level?.start ?? 1, level?.format ?? "decimal");
    }
    if (out.length >= MAX_LABEL_CHARS) break;
  }
  return out.slice(0, MAX_LABEL_CHARS);
}

/** `n` written in the list format `format` (decimal for the formats not spelled out here). */
export function formatNumber(n: number, format: string): string {
  switch (format) {
    case "none":
    case "bullet":
      return "";
    case "lowerLetter":
    case "upperLetter": {
      // a…z, then aa…zz (Word repeats the letter), no longer than a label: 32767 is 1,261 letters.
      const times = Math.min(Math.floor((Math.max(1, n) - 1) / 26) + 1, MAX_LABEL_CHARS);
      const letter = String.fromCharCode(97 + ((Math.max(1, n) - 1) % 26)).repeat(times);
      return format === "upperLetter" ? letter.toUpperCase() : letter;
    }
    case "lowerRoman":
    case "upperRoman": {
      const roman = toRoman(n);
      return format === "upperRoman" ? roman : roman.toLowerCase();
    }
    case "decimalZero":
      return n < 10 ? `0${n}` : String(n);
    default:
      return String(n);
  }
}

function toRoman(n: number): string {
  if (n <= 0 || n >= 4000) return String(n);
  const units: [number, string][] = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];
  let out = "";
  for (const [value, digits] of units) for (; n >= value; n -= value) out += digits;
  return out;
}
