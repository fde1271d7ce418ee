/**
 * @module documents/office/doc-lists
 * The lists of a Word 97–2003 document (MS-DOC 2.9.147 LSTF, 2.9.150 LVL, 2.9.131 LFO, in the table stream at
 * fcPlfLst and fcPlfLfo), and the numbers their items show. A paragraph names a list override (its ilfo) and a
 * level; the override names a list (its lsid) and may restart some of its levels (LFOLVL with fStartAt); each level
 * of the list says where it starts (iStartAt), how its number is written (nfc: decimal, roman, letters, a bullet,
 * none) and its marker text (`%1.%2.` as placeholders 0–8 for the levels' numbers).
 *
 * Numbers are counted as Word counts them: per list, so a paragraph between two items does not restart the count
 * (`1. Open the box`, a note, `2. Remove the pump`), and items of two overrides of one list share it; a level starts
 * again after an item of a shallower level; an override that restarts a level restarts it at its first item. Every
 * count and size is the file's word, checked against the bytes it points into; what cannot be read leaves the
 * list's items unnumbered bullets rather than failing the document.
 */
import type { ListNumberFormat } from "../layout/model.ts";
import type { Fib } from "./doc-text.ts";
import { ListCounter } from "./list-counter.ts";

/** FibRgFcLcb97 indexes of the list tables (fcPlfLst, fcPlfLfo). */
const LIST_PAIR = 73;
const OVERRIDE_PAIR = 74;

/** Levels a list has (a "simple" list has one). */
const LEVELS = 9;

/** Bytes of an LSTF, an LVLF, an LFO and an LFOLVL. */
const LSTF_BYTES = 28;
const LVLF_BYTES = 28;
const LFO_BYTES = 16;
const LFOLVL_BYTES = 8;

/** Most lists and overrides read (Word's documents have a few hundred). */
const MAX_LISTS = 10_000;

/**
 * Longest marker text written before a numbered heading (`1.2.3.`); the rest of a longer one is left out. The DOCX
 * reader's labels (docx-numbering.ts) are cut at the same length.
 */
export const MAX_LABEL_CHARS = 32;

/** Number formats (MS-DOC 2.9.158 nfc) that are not numbers: a bullet, none. */
const NFC_BULLET = 23;
const NFC_NONE = 255;

/**
 * The number formats (nfc) in roman numerals and letters, as the renderer shows them: 1 upper and 2 lower roman, 3
 * upper and 4 lower letters. RTF's `\levelnfc` uses the same codes (rtf-lists.ts).
 */
export const NFC_FORMATS: ReadonlyMap<number, ListNumberFormat> = new Map([
  [1, "I"],
  [2, "i"],
  [3, "A"],
  [4, "a"],
]);

/** How a level numbers its items. */
interface Level {
  start: number;
  nfc: number;
  /** The marker text: characters 0–8 stand for the levels' numbers. */
  text: string;
}

/** A list override: its list, and the levels it restarts (level → start). */
interface Override {
  lsid: number;
  starts: Map<number, number>;
  /** Levels whose formatting it replaces. */
  levels: Map<number, Level>;
}

/** An LVL at `at` of `t`: the level and where the next one begins; undefined when it does not fit. */
function readLevel(t: Uint8Array, v: DataView, at: number): { level: Level; next: number } | undefined {
  if (at + LVLF_BYTES + 2 > t.length) return undefined;
  const textAt = at + LVLF_BYTES + t[at + 24]! + t[at + 25]!;
  if (textAt + 2 > t.length) return undefined;
  const cch = v.getUint16(textAt, true);
  if (textAt + 2 + cch * 2 > t.length) return undefined;
  const text = new TextDecoder("utf-16le").decode(t.subarray(textAt + 2, textAt + 2 + cch * 2));
  return { level: { start: v.getInt32(at, true), nfc: t[at + 4]!, text }, next: textAt + 2 + cch * 2 };
}

/** `n` written as number format `nfc`: roman numerals, letters, or decimal (every other format). Exported for tests. */
export function formatNumber(n: number, nfc: number): string {
  if ((nfc === 1 || nfc === 2) && n > 0 && n < 4000) {
    const romans: [number, string][] = [[1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"], [50, "l"], [40, "xl"], [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"]];
    let out = "";
    for (const [value, digits] of romans) for (; n >= value; n -= value) out += digits;
    return nfc === 1 ? out.toUpperCase() : out;
  }
  if ((nfc === 3 || nfc === 4) && n > 0) {
    // Word's letters: a … z, then aa … zz, then aaa.
    // Repeated at most as often as a label may be long: a crafted start near 2^31 asked for 82 million letters.
    const letter = String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.min(MAX_LABEL_CHARS, Math.floor((n - 1) / 26) + 1));
    return nfc === 3 ? letter.toUpperCase() : letter;
  }
  return String(n);
}

/** A document's lists, and the count of each as its items are met. */
export class DocLists {
  private readonly lists = new Map<number, Level[]>();
  private readonly overrides: (Override | undefined)[] = [];
  private readonly counter = new ListCounter();

  constructor(fib: Fib) {
    const t = fib.table;
    const v = new DataView(t.buffer, t.byteOffset, t.byteLength);
    const lst = fib.pair(LIST_PAIR);
    const lfo = fib.pair(OVERRIDE_PAIR);
    if (lst.lcb >= 2 && lst.fc + lst.lcb <= t.length) {
      const count = Math.min(v.getInt16(lst.fc, true), MAX_LISTS);
      // The levels follow the list headers, list by list (MS-DOC: right after PlfLst in the stream).
      let at = lst.fc + lst.lcb;
      for (let i = 0; i < count && lst.fc + 2 + (i + 1) * LSTF_BYTES <= lst.fc + lst.lcb; i++) {
        const header = lst.fc + 2 + i * LSTF_BYTES;
        const levels: Level[] = [];
        for (let l = 0; l < (t[header + 26]! & 0x01 ? 1 : LEVELS); l++) {
          const read = readLevel(t, v, at);
          if (!read) break;
          levels.push(read.level);
          at = read.next;
        }
        this.lists.set(v.getInt32(header, true), levels);
      }
    }
    if (lfo.lcb >= 4 && lfo.fc + lfo.lcb <= t.length) {
      const end = lfo.fc + lfo.lcb;
      const count = Math.min(v.getInt32(lfo.fc, true), MAX_LISTS);
      let data = lfo.fc + 4 + Math.max(0, count) * LFO_BYTES; // the LFOData, one per override, follow them all
      for (let i = 0; i < count && lfo.fc + 4 + (i + 1) * LFO_BYTES <= end; i++) {
        const at = lfo.fc + 4 + i * LFO_BYTES;
        const override: Override = { lsid: v.getInt32(at, true), starts: new Map(), levels: new Map() };
        this.overrides[i + 1] = override;
        const clfolvl = t[at + 12]!;
        if (data < 0) continue; // an override's formatting that did not fit: the data after it cannot be found
        data += 4; // the LFOData's cp (every override has one, with its clfolvl LFOLVLs)
        for (let k = 0; k < clfolvl && data + LFOLVL_BYTES <= t.length; k++) {
          const flags = v.getUint32(data + 4, true);
          const level = flags & 0x0f;
          if (flags & 0x10) override.starts.set(level, v.getInt32(data, true));
          data += LFOLVL_BYTES;
          if (flags & 0x20) {
            const read = readLevel(t, v, data);
            if (!read) {
              data = -1;
              break;
            }
            override.levels.set(level, read.level);
            data = read.next;
          }
        }
      }
    }
  }

  /** Whether level `ilvl` of list override `ilfo` is numbered (not a bullet, not "none", not unknown). */
  numbered(ilfo: number, ilvl: number): boolean {
    const level = this.level(ilfo, ilvl);
    return level !== undefined && level.nfc !== NFC_BULLET && level.nfc !== NFC_NONE;
  }

  /** How level `ilvl` of list override `ilfo` shows its numbers when not in digits (letters, roman numerals). */
  format(ilfo: number, ilvl: number): ListNumberFormat | undefined {
    const level = this.level(ilfo, ilvl);
    return level ? NFC_FORMATS.get(level.nfc) : undefined;
  }

  /**
   * Counts an item of list override `ilfo` at level `ilvl`: its number, and, with `withLabel` (a numbered heading's),
   * its marker text as the document shows it (`1.2.`; "" for a bullet or none); undefined for an override the
   * document does not define.
   */
  next(ilfo: number, ilvl: number, withLabel = false): { number: number; label: string } | undefined {
    const override = this.overrides[ilfo];
    if (!override || !this.lists.has(override.lsid)) return undefined;
    const level = this.level(ilfo, ilvl);
    const number = this.counter.next(override.lsid, ilfo, ilvl, override.starts.get(ilvl), level?.start ?? 1);
    if (!withLabel || !level || level.nfc === NFC_BULLET || level.nfc === NFC_NONE) return { number, label: "" };
    let label = "";
    for (const ch of level.text.slice(0, MAX_LABEL_CHARS)) {
      const k = ch.charCodeAt(0);
      if (k >= LEVELS) label += ch;
      else if (k <= ilvl) label += formatNumber(this.counter.at(override.lsid, k) ?? this.level(ilfo, k)?.start ?? 1, this.level(ilfo, k)?.nfc ?? 0);
    }
    return { number, label: label.trim() };
  }

  private level(ilfo: number, ilvl: number): Level | undefined {
    const override = this.overrides[ilfo];
    if (!override) return undefined;
    return override.levels.get(ilvl) ?? this.lists.get(override.lsid)?.[ilvl];
  }
}
