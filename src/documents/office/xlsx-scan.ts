/**
 * @module documents/office/xlsx-scan
 * Reads the cells of a worksheet part and the strings of the shared-strings part by scanning their XML text, in
 * one pass and without building a tree: both are most of a workbook's bytes, and flat (rows of `<c>` cells, lists
 * of `<si>` strings). Each step looks for the next tag with `indexOf` or a global regex from where the last one
 * ended, so a part without its closing tags (truncated, crafted) stops the scan instead of making it quadratic;
 * within a cell or a string, tags are found by index too ({@link nextTag}), never by a regex that runs from each
 * `<` to the next `>` (a cell of unfinished `<f ` tags took seconds, a string of unfinished `<t ` tags 86 s).
 * Element prefixes (`<x:c>`, written by some libraries) are accepted. Text is ST_Xstring (ECMA-376 Part 1
 * §22.9.2.19): besides XML's entities it escapes characters XML cannot hold as `_xHHHH_`, and Excel writes a cell's
 * carriage return as `_x000D_` and a tab as `_x0009_` (a literal `_x` as `_x005F_x`); they are decoded, so a line
 * break reads as the other cells' do instead of leaking `_x000D_` into the table.
 */
import { decode } from "./xml.ts";

/** One cell with something in it, as stored. */
export interface StoredCell {
  /** 0-based column (A = 0). */
  column: number;
  /** 1-based row. */
  row: number;
  /** `t`: s (shared string), inlineStr, str (a formula's text), b, e (error), n or "" (number). */
  type: string;
  /** Index of the cell's style (`s`), for its number format. */
  style: number;
  /** The stored value: `<v>`, or an inline string's text. */
  value: string;
  /** The formula (`<f>`) whose cached result the value is, when the cell has its text (a shared formula's master). */
  formula?: string;
  /** `vm`: the cell's value is a rich value (Excel 365's picture in a cell, a linked data type); its 1-based index. */
  valueMetadata?: number;
}

/** An ST_Xstring escape: `_x` and four hex digits naming a UTF-16 code unit. */
const XSTRING_ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/**
 * `text` with its ST_Xstring escapes decoded: `_x000D_` is a carriage return, `_x005F_` an underscore (one pass,
 * so `_x005F_x000D_` stays the text `_x000D_`). Other C0 controls than tab, line feed and carriage return are
 * dropped: they were escaped because no text holds them, and a NUL in a cell is no character to show.
 */
export function decodeXstring(text: string): string {
  if (!text.includes("_x")) return text;
  return text.replace(XSTRING_ESCAPE, (_, hex: string) => {
    const code = parseInt(hex, 16);
    return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d ? "" : String.fromCharCode(code);
  });
}

/** Largest column of a sheet (XFD) and row (ECMA-376 limits): a reference beyond them is not a cell. */
const MAX_COLUMN = 16_383;
const MAX_ROW = 1_048_576;

/** The column and row of a reference like `B3` or `$B$3`; undefined when it is not one. */
export function cellPosition(ref: string): { column: number; row: number } | undefined {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(ref.trim());
  if (!m) return undefined;
  let column = 0;
  for (const ch of m[1]!.toUpperCase()) column = column * 26 + (ch.charCodeAt(0) - 64);
  const row = Number(m[2]);
  return column - 1 <= MAX_COLUMN && row >= 1 && row <= MAX_ROW ? { column: column - 1, row } : undefined;
}

/**
 * An attribute, its name starting where a name may start (the lookbehind): without it, a name of 200,000 letters
 * and no `=` was tried again from each of its letters, and one crafted tag took minutes.
 */
const ATTRIBUTE = /(?<![\w:.-])([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(ATTRIBUTE)) out.set(localName(m[1]!), m[2] ?? m[3] ?? "");
  return out;
}

/** A name without its namespace prefix (`x:hyperlink` and `hyperlink` are one element under a prefix some writers use). */
export const localName = (name: string) => name.slice(name.indexOf(":") + 1);

/** Whether character code `c` may be part of an element's name or prefix here: a word character, `.` or `-`. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

/** A tag {@link nextTag} found. */
interface FoundTag {
  /** Where its `<` is, and where it ends (after its `>`). */
  at: number;
  end: number;
  /** Its name without a prefix. */
  name: string;
  /** `</t>`, `<t/>`. */
  closing: boolean;
  selfClosing: boolean;
}

/**
 * The first tag of an element named one of `names` (under any prefix) in `fragment` from `from`. Undefined when there
 * is none, or when the tag never ends (no `>`): then no later one does either, and the scan stops. Each character is
 * looked at a bounded number of times (names read once, `indexOf` once per tag found), where a regex such as
 * `<f[^>]*>([^<]*)<` ran from every `<f ` of a crafted cell to the cell's end.
 */
function nextTag(fragment: string, names: readonly string[], from: number): FoundTag | undefined {
  for (let at = fragment.indexOf("<", from); at >= 0; at = fragment.indexOf("<", at + 1)) {
    const closing = fragment.charCodeAt(at + 1) === 0x2f; // "/"
    let start = at + (closing ? 2 : 1);
    let i = start;
    while (i < fragment.length && isNameChar(fragment.charCodeAt(i))) i++;
    if (fragment[i] === ":") {
      start = ++i;
      while (i < fragment.length && isNameChar(fragment.charCodeAt(i))) i++;
    }
    const after = fragment[i];
    if (after !== ">" && after !== "/" && after !== " " && after !== "\t" && after !== "\n" && after !== "\r") continue;
    const name = fragment.slice(start, i);
    if (!names.includes(name)) continue;
    const gt = fragment.indexOf(">", i);
    if (gt < 0) return undefined;
    return { at, end: gt + 1, name, closing, selfClosing: !closing && fragment[gt - 1] === "/" };
  }
  return undefined;
}

const TEXT_TAGS = ["t", "rPh"];

/** The concatenated text of the `<t>` elements of a string item, phonetic runs (`<rPh>`) left out. */
function textOf(fragment: string): string {
  let out = "";
  let phonetic = 0;
  let textStart = -1;
  for (let tag = nextTag(fragment, TEXT_TAGS, 0); tag; tag = nextTag(fragment, TEXT_TAGS, tag.end)) {
    if (tag.name === "rPh") {
      if (!tag.selfClosing) phonetic = Math.max(0, phonetic + (tag.closing ? -1 : 1));
    } else if (!tag.closing && !tag.selfClosing) textStart = tag.end;
    else if (tag.closing && textStart >= 0) {
      if (phonetic === 0) out += decodeXstring(decode(fragment.slice(textStart, tag.at)));
      textStart = -1;
    }
  }
  return out;
}

/** The decoded text of the first element `name` in `fragment` (its value `<v>`, its formula `<f>`), or "". */
function elementText(fragment: string, name: "v" | "f"): string {
  const names = [name];
  for (let tag = nextTag(fragment, names, 0); tag; tag = nextTag(fragment, names, tag.end)) {
    if (tag.closing) continue;
    if (tag.selfClosing) return "";
    const close = fragment.indexOf("<", tag.end);
    return close < 0 ? "" : decodeXstring(decode(fragment.slice(tag.end, close)));
  }
  return "";
}

/** The cells of a worksheet part that hold a value, in document order. */
export function* cellsOf(xml: string): Generator<StoredCell> {
  const tags = /<((?:[\w.-]+:)?)(c|row)(?=[\s/>])/g;
  let row = 0;
  let column = -1;
  for (let m = tags.exec(xml); m; m = tags.exec(xml)) {
    const tagEnd = xml.indexOf(">", tags.lastIndex);
    if (tagEnd < 0) return;
    const attrs = attributes(xml.slice(tags.lastIndex, tagEnd));
    const selfClosing = xml[tagEnd - 1] === "/";
    tags.lastIndex = tagEnd + 1;
    const at = cellPosition(attrs.get("r") ?? "");
    if (m[2] === "row") {
      // Rows and cells may omit `r`: then each is the one after the previous.
      const r = Number(attrs.get("r"));
      row = Number.isInteger(r) && r >= 1 && r <= MAX_ROW ? r : row + 1;
      column = -1;
      continue;
    }
    column = at ? at.column : column + 1;
    if (selfClosing) continue;
    const close = xml.indexOf(`</${m[1]}c>`, tagEnd);
    if (close < 0) return;
    tags.lastIndex = close + m[1]!.length + 4;
    const inner = xml.slice(tagEnd + 1, close);
    const type = attrs.get("t") ?? "";
    const value = type === "inlineStr" ? textOf(inner) : elementText(inner, "v");
    if (value === "" || column > MAX_COLUMN) continue;
    const cell: StoredCell = { column, row: at ? at.row : Math.max(row, 1), type, style: Number(attrs.get("s") ?? 0) || 0, value };
    const formula = type === "inlineStr" ? "" : elementText(inner, "f");
    if (formula) cell.formula = formula;
    const vm = Number(attrs.get("vm"));
    if (Number.isInteger(vm) && vm >= 1) cell.valueMetadata = vm;
    yield cell;
  }
}

/** The shared strings, by index. */
export function sharedStrings(xml: string): string[] {
  const out: string[] = [];
  const items = /<((?:[\w.-]+:)?)si(?=[\s/>])/g;
  for (let m = items.exec(xml); m; m = items.exec(xml)) {
    const tagEnd = xml.indexOf(">", items.lastIndex);
    if (tagEnd < 0) break;
    if (xml[tagEnd - 1] === "/") {
      out.push("");
      items.lastIndex = tagEnd + 1;
      continue;
    }
    const close = xml.indexOf(`</${m[1]}si>`, tagEnd);
    if (close < 0) break;
    out.push(textOf(xml.slice(tagEnd + 1, close)));
    items.lastIndex = close + m[1]!.length + 5;
  }
  return out;
}
