/**
 * @module documents/office/xlsx-values
 * A spreadsheet cell's stored value → the text a reader sees, from its number format (styles.xml). A workbook
 * stores numbers only: a date is a day count (`45292` is 2024-01-01), `0.125` shown as `12.5%`, `1234.5` as
 * `$1,234.50`; printing the raw value would lose what the sheet says. Dates and times come out as ISO 8601
 * (`2024-01-01`, `13:30:00`, `2024-01-01 13:30:00`: unambiguous whatever the locale the file was written in);
 * an AM/PM time as a 24-hour one (xlsx-dates.ts). A date stored as ISO 8601 text (`t="d"`, Excel's Strict save) is
 * turned into its day count first and shown the same way. Other formats go through their number sections
 * (number-format.ts: conditions, digit placeholders, literal text); fractions, and codes longer than 255
 * characters, fall back to the number as General shows it.
 *
 * A workbook's formats are read once each ({@link CellFormats}, one per workbook), however many cells they style:
 * a workbook declares a few dozen and styles a million cells.
 */
import { compileFormat, formatNumber, type CompiledFormat } from "./number-format.ts";
import { generalNumber } from "./number-format-general.ts";
import { formatSections } from "./number-format-tokens.ts";
import { elapsed, readIsoCell, serialToIso, type DateParts } from "./xlsx-dates.ts";

/** The built-in number formats a cell may refer to by id without defining them (ECMA-376 §18.8.30). */
const BUILT_IN: Record<number, string> = {
  1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 11: "0.00E+00",
  14: "yyyy-mm-dd", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm",
  21: "h:mm:ss", 22: "yyyy-mm-dd h:mm", 37: "#,##0 ;(#,##0)", 38: "#,##0 ;(#,##0)", 39: "#,##0.00;(#,##0.00)",
  40: "#,##0.00;(#,##0.00)", 45: "mm:ss", 46: "[h]:mm:ss", 47: "mm:ss.0", 48: "##0.0E+0",
};
// Locale-dependent date ids (East Asian calendars among them): dates, whatever their exact pattern.
for (const id of [27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58]) BUILT_IN[id] = "yyyy-mm-dd";

/** The format code of a number format id, given the workbook's own formats (`numFmts`). */
export function formatCode(id: number, custom: ReadonlyMap<number, string>): string {
  return custom.get(id) ?? BUILT_IN[id] ?? "General";
}

/**
 * A format's first section with quoted text, escapes, fills and spacers, and bracketed codes (colours, locales,
 * conditions) removed: elapsed-time brackets (`[h]`, `[mm]`, `[ss]`) stay. One pass by index: the regex this was
 * (`\[(?![hms]+\])[^\]]*\]` among others) ran from every `[` of a crafted code to its end.
 */
function bare(code: string): string {
  const section = formatSections(code)[0]!;
  let out = "";
  for (let i = 0; i < section.length; i++) {
    const c = section[i]!;
    if (c === "\\" || c === "_" || c === "*") i++;
    else if (c === '"' || c === "[") {
      const end = section.indexOf(c === '"' ? '"' : "]", i + 1);
      if (end < 0) return out + section.slice(i);
      if (c === "[" && /^[hms]+$/i.test(section.slice(i + 1, end))) out += section.slice(i, end + 1);
      i = end;
    } else out += c;
  }
  return out;
}

/** What a format shows: a date/time (and which parts), or a number. */
function dateParts(code: string): DateParts | undefined {
  // AM/PM and A/P say how hours are shown, not that the value is a date: their M is not a month.
  const b = bare(code).replace(/AM\/PM|A\/P/gi, "");
  if (/general/i.test(b) || !/[dmyhs]/i.test(b)) return undefined;
  const time = /[hs]/i.test(b);
  // `m` next to `h` or `s` is minutes; otherwise months. Each run is tried from its start only (the lookbehinds):
  // tried from each of its letters, a run of 250 `h`s took 250² steps.
  const date = /[dy]/i.test(b) || /m/i.test(b.replace(/(?<!h)h+[^a-z]*m+|(?<!m)m+[^a-z]*s+/gi, ""));
  return { date, time };
}

/**
 * Longest format code followed: the limit MS-XLS sets for a FORMAT record's string. A longer one (only a crafted file
 * has it) shows the number itself, since every cell it styles would repeat its literal text.
 */
const MAX_FORMAT_LENGTH = 255;

/** Serials past 9999-12-31 (Excel's last day): shown as numbers, as Excel shows ####. */
const MAX_SERIAL = 2_958_466;

/** A format code read: what kind of value it shows, and how. */
export type ReadFormat =
  | { kind: "general" }
  | { kind: "date"; parts: DateParts; elapsed: boolean }
  | { kind: "number"; format: CompiledFormat };

/**
 * Most format codes a {@link CellFormats} keeps read. Excel lets a workbook define about 250 custom formats, beside
 * its few dozen built-in ones; a crafted workbook with more has the rest read again for each cell (linear in the
 * code's 255 characters at most), instead of pushing out the ones it keeps.
 */
const MAX_FORMATS_KEPT = 4096;

/** Reads format `code` (its kind; for a number format, its sections compiled). */
function readFormat(code: string): ReadFormat {
  if (code.length > MAX_FORMAT_LENGTH) return { kind: "general" };
  const parts = dateParts(code);
  if (parts) return { kind: "date", parts, elapsed: !parts.date && /\[h+\]/i.test(code) };
  if (/^\s*general\s*$/i.test(code) || code === "@") return { kind: "general" };
  return { kind: "number", format: compileFormat(code) };
}

/**
 * The number formats of one workbook, each read once (up to {@link MAX_FORMATS_KEPT}) and kept for the workbook's
 * cells: a cache per workbook rather than per process, so one workbook's formats never push out another's and a
 * workbook cycling through its formats reads each once. (A process-wide cache of 512, cleared when full, was
 * cleared at every cell of a workbook alternating 2,000 formats: ten times slower than reading none.)
 */
export class CellFormats {
  private readonly kept = new Map<string, ReadFormat>();

  /** `date1904`: the workbook's date system (`workbookPr date1904`, XLS's DATEMODE). */
  constructor(private readonly date1904: boolean) {}

  /** Format `code` read: kept from its first use, or read now (and kept while fewer than {@link MAX_FORMATS_KEPT} are). */
  read(code: string): ReadFormat {
    let format = this.kept.get(code);
    if (format) return format;
    format = readFormat(code);
    if (this.kept.size < MAX_FORMATS_KEPT) this.kept.set(code, format);
    return format;
  }

  /** The text of a numeric cell (`raw`, as stored) whose style has format `code`. */
  number(raw: string, code: string): string {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) return raw;
    return this.shown(n, this.read(code));
  }

  private shown(n: number, format: ReadFormat): string {
    switch (format.kind) {
      case "general":
        return generalNumber(n);
      case "date":
        if (format.elapsed && n >= 0) return elapsed(n);
        // Serials outside Excel's calendar (before 1900, past 9999) are shown as numbers, as Excel shows ####.
        return n >= 0 && n < MAX_SERIAL ? serialToIso(n, format.parts, this.date1904) : generalNumber(n);
      case "number":
        return formatNumber(n, format.format) ?? generalNumber(n);
    }
  }

  /**
   * The text of an ISO 8601 date cell (`raw`) with format `code`: through its day count as any dated cell
   * (`2024-01-15` under format 14, `13:30:00` under 18). Under a format that is no date (General, a number format),
   * the date itself in ISO 8601 rather than the day count Excel would print: what the file says is a date. A date
   * before the workbook's date system starts, as it is stored (xlsx-dates.ts); text that is no ISO date, as it is.
   */
  isoDate(raw: string, code: string): string {
    const cell = readIsoCell(raw, this.date1904);
    if (!cell) return raw;
    if ("outside" in cell) return cell.outside;
    const format = this.read(code);
    if (format.kind === "date") return this.shown(cell.serial, format);
    return serialToIso(cell.serial, { date: cell.serial >= 1, time: cell.serial % 1 !== 0 }, this.date1904);
  }
}

/** The text of a numeric cell whose style has format `code`, the format read for this cell alone (see {@link CellFormats}). */
export function numberText(raw: string, code: string, date1904: boolean): string {
  return new CellFormats(date1904).number(raw, code);
}
