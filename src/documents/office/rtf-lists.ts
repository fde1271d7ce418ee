/**
 * @module documents/office/rtf-lists
 * An RTF's list table and list override table (RTF 1.9.1, "Lists"), and the number each list paragraph shows.
 * `{\*\listtable {\list {\listlevel \levelnfcN \levelstartatN …} … \listidN} …}` defines each list's levels: how a
 * level writes its number (`\levelnfc`, the codes a DOC's LVL uses: 0 digits, 1/2 upper/lower roman, 3/4 upper/lower
 * letters, 23 a bullet, 255 none) and where it starts; `{\*\listoverridetable {\listoverride \listidN … \lsM} …}`
 * names a list for the paragraphs' `\lsM`, and its `{\lfolevel \listoverridestartat \levelstartatN}` groups restart
 * levels (the Nth group the Nth level). A paragraph's `{\listtext}` shows what the writer computed (`5.`, `c)`), and
 * is kept where it says a number; without one (writers may leave it out: readers are to number from the tables),
 * the items are counted as Word counts them, as a DOC's are (doc-lists.ts): per list, a level starting again after
 * an item of a shallower one, an override restarting its level where first used. Before, a list paragraph without
 * `{\listtext}` was a bullet, whatever its list, and a lettered marker's number was lost (`C.` became `1.`).
 */
import type { ListNumberFormat } from "../layout/model.ts";
import { NFC_FORMATS } from "./doc-lists.ts";
import { ListCounter } from "./list-counter.ts";

/** A list item, as a paragraph's properties, marker and the list tables say it. */
export interface RtfListItem {
  depth: number;
  /** Numbered (digits, letters, roman numerals), not a bullet or nothing. */
  ordered: boolean;
  /** Its list (`\lsN`; 0 for an older writer's `{\pntext}` item, which names none). */
  list: number;
  /** The number it shows, when numbered and known. */
  number?: number;
  /** Letters or roman numerals; digits without. */
  format?: ListNumberFormat;
  /** Letters past z repeat one letter, as Word counts (aa, bb): an item numbered by the list table's letters. */
  letterSync?: boolean;
  /** The letters its marker shows (`bb` of `bb.`), kept as given: the markdown's label. */
  label?: string;
}

/** How a level numbers its items: its format code and start. */
interface Level {
  nfc: number;
  start: number;
}

/** A list override: its list, the levels it restarts (level → start) and those whose format it replaces. */
interface Override {
  listId: number;
  starts: Map<number, number>;
  formats: Map<number, number>;
}

/** `\levelnfc` codes that show no number: a bullet, none. */
const NFC_BULLET = 23;
const NFC_NONE = 255;
/** Levels a list has (`\ilvl` 0–8). */
const LEVELS = 9;
/** Most lists and overrides read (Word's documents have a few hundred). */
const MAX_LISTS = 10_000;
/** Largest start read (Word's own limit is 32767). */
const MAX_START = 32_767;

/** The words the list tables are read for; any other in them is dropped. */
export const LIST_TABLE_WORDS: ReadonlySet<string> = new Set(["listtable", "listoverridetable"]);

/** A numbered or lettered marker; its last number (or letters) is the item's. */
const ORDERED_MARKER = /^\(?(?:\d+\.)*(\d+|[a-z]{1,3})[.)]?$/i;
/** A roman numeral up to 3999, in one case. */
const ROMAN = /^(?:m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))$/;
const ROMAN_VALUES: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };

/** The value of roman numeral `s` (lower case, checked against {@link ROMAN}). */
function romanValue(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const v = ROMAN_VALUES[s[i]!]!;
    n += i + 1 < s.length && ROMAN_VALUES[s[i + 1]!]! > v ? -v : v;
  }
  return n;
}

/**
 * The number letters `s` show: a…z, then Word's aa…zz (the letter repeated), or a browser's aa, ab… when the letters
 * differ. Undefined for a mix that is neither.
 */
function lettersValue(s: string): number | undefined {
  const codes = [...s.toLowerCase()].map((c) => c.charCodeAt(0) - 96);
  if (codes.some((c) => c < 1 || c > 26)) return undefined;
  if (codes.every((c) => c === codes[0])) return codes[0]! + 26 * (codes.length - 1);
  return codes.reduce((n, c) => n * 26 + c, 0);
}

/** Reads the list tables as the reader meets them (rtf.ts), and numbers the list paragraphs in order. */
export class RtfLists {
  private readonly lists = new Map<number, Level[]>();
  private readonly overrides = new Map<number, Override>();
  private readonly counter = new ListCounter();
  /** Per `\ls` and level, the format markers showed last, where no table says it (`{\pntext}` lists). */
  private readonly seen = new Map<string, ListNumberFormat | undefined>();
  /** Depth of the table group being read, or -1. */
  private tableDepth = -1;
  private list: { depth: number; levels: Level[]; id?: number } | undefined;
  private level: { depth: number; nfc: number; start: number; startSet: boolean } | undefined;
  private override: { depth: number; listId?: number; ls?: number; lfo: number; starts: Map<number, number>; formats: Map<number, number> } | undefined;
  private lfo: { depth: number; restart: boolean } | undefined;

  /** Whether a list table is being read: its words and text are not the document's. */
  get reading(): boolean {
    return this.tableDepth >= 0;
  }

  /** `\listtable` or `\listoverridetable` opening a group at `depth`. */
  open(depth: number): void {
    if (this.tableDepth < 0) this.tableDepth = depth;
  }

  /** Reads a control word of the tables at `depth`. */
  word(word: string, arg: number | undefined, depth: number): void {
    const n = arg ?? 0;
    if (word === "list" && !this.list) this.list = { depth, levels: [] };
    else if (word === "listoverride" && !this.override) this.override = { depth, lfo: 0, starts: new Map(), formats: new Map() };
    else if (word === "lfolevel" && this.override && !this.lfo) this.lfo = { depth, restart: false };
    else if (word === "listoverridestartat" && this.lfo) this.lfo.restart = true;
    else if (word === "listlevel" && !this.level && (this.list || this.lfo)) this.level = { depth, nfc: 0, start: 1, startSet: false };
    else if ((word === "levelnfc" || word === "levelnfcn") && this.level) this.level.nfc = n;
    else if (word === "levelstartat") {
      const start = Math.min(Math.max(0, n), MAX_START);
      if (this.level) [this.level.start, this.level.startSet] = [start, true];
      else if (this.lfo?.restart && this.override) this.override.starts.set(this.override.lfo, start);
    } else if (word === "listid" && !this.level) {
      if (this.override && !this.lfo) this.override.listId = n;
      else if (this.list) this.list.id = n;
    } else if (word === "ls" && this.override && !this.lfo) this.override.ls = n;
  }

  /** A group at `depth` ends: a level, a list, an override or a table is complete. */
  close(depth: number): void {
    if (this.level && depth === this.level.depth) {
      const level = this.level;
      this.level = undefined;
      if (this.lfo && this.override) {
        this.override.formats.set(this.override.lfo, level.nfc);
        if (this.lfo.restart && level.startSet) this.override.starts.set(this.override.lfo, level.start);
      } else if (this.list && this.list.levels.length < LEVELS) this.list.levels.push({ nfc: level.nfc, start: level.start });
    } else if (this.lfo && depth === this.lfo.depth) {
      this.lfo = undefined;
      if (this.override) this.override.lfo++;
    } else if (this.list && depth === this.list.depth) {
      if (this.list.id !== undefined && this.lists.size < MAX_LISTS && !this.lists.has(this.list.id)) this.lists.set(this.list.id, this.list.levels);
      this.list = undefined;
    } else if (this.override && depth === this.override.depth) {
      const o = this.override;
      if (o.ls !== undefined && o.listId !== undefined && this.overrides.size < MAX_LISTS && !this.overrides.has(o.ls)) this.overrides.set(o.ls, { listId: o.listId, starts: o.starts, formats: o.formats });
      this.override = undefined;
    }
    if (depth === this.tableDepth) {
      this.tableDepth = -1;
      this.list = this.override = this.level = this.lfo = undefined;
    }
  }

  /** Whether `s` is the tables' text (a level's text, a list's name), never the document's. */
  text(_s: string): boolean {
    return this.reading;
  }

  /**
   * The list item a paragraph of list `ls` (`\lsN`, 0 for none) at level `ilvl` is, with its `{\listtext}` marker
   * (trimmed; "" for none); undefined for no list item. Counts the paragraph: call once per paragraph, in order.
   */
  item(ls: number, ilvl: number, marker: string): RtfListItem | undefined {
    if (ls <= 0 && !marker) return undefined;
    const override = ls > 0 ? this.overrides.get(ls) : undefined;
    const levels = override ? this.lists.get(override.listId) : undefined;
    const level = levels?.[ilvl];
    const nfc = override?.formats.get(ilvl) ?? level?.nfc;
    const counted = override && levels ? this.counter.next(override.listId, ls, ilvl, override.starts.get(ilvl), levels[ilvl]?.start ?? 1) : undefined;
    const item: RtfListItem = { depth: ilvl, ordered: false, list: Math.max(0, ls) };
    if (!marker) {
      if (nfc === undefined || nfc === NFC_BULLET || nfc === NFC_NONE || counted === undefined) return item;
      const format = NFC_FORMATS.get(nfc);
      // `\levelnfc` is Word's number format: its letters past z repeat one letter (aa, bb), as a DOC's do.
      return { ...item, ordered: true, number: counted, ...(format ? { format } : {}), ...(format === "a" || format === "A" ? { letterSync: true } : {}) };
    }
    const shown = ORDERED_MARKER.exec(marker)?.[1];
    if (shown === undefined) return item;
    item.ordered = true;
    const format = nfc !== undefined ? NFC_FORMATS.get(nfc) : this.guess(ls, ilvl, shown);
    let number: number | undefined;
    if (/^\d+$/.test(shown)) number = Number(shown);
    else if ((format === "i" || format === "I") && ROMAN.test(shown.toLowerCase())) number = romanValue(shown.toLowerCase());
    else if (format === "a" || format === "A") number = lettersValue(shown);
    number ??= counted;
    if (format && !/^\d+$/.test(shown)) [item.format, item.label] = [format, shown];
    if (number !== undefined) {
      item.number = number;
      // What the writer showed is the count from here on.
      if (override) this.counter.set(override.listId, ilvl, number);
    }
    return item;
  }

  /**
   * The format a marker's letters show where no list table says it (`{\pntext}`): the one the level's marker before
   * showed while these letters go on from it, else roman numerals for `i`, `I` or a numeral of two or more letters
   * (`ii`, `iv`), else letters.
   */
  private guess(ls: number, ilvl: number, shown: string): ListNumberFormat | undefined {
    if (/^\d+$/.test(shown)) return undefined;
    const key = `${ls}:${ilvl}`;
    const upper = shown === shown.toUpperCase();
    const roman = ROMAN.test(shown.toLowerCase());
    const before = this.seen.get(key);
    const sameCase = before !== undefined && (before === "A" || before === "I") === upper;
    let format: ListNumberFormat;
    if (sameCase && (before === "i" || before === "I") && roman) format = before;
    else if (sameCase && (before === "a" || before === "A") && lettersValue(shown) !== undefined) format = before;
    else if (roman && (shown.length >= 2 || /^i$/i.test(shown))) format = upper ? "I" : "i";
    else format = upper ? "A" : "a";
    if (this.seen.size < MAX_LISTS) this.seen.set(key, format);
    return format;
  }
}
