/**
 * @module documents/office/xlsx-values
 * A spreadsheet cell's stored value → the text a reader sees, from its number format (styles.xml). A workbook
 * stores numbers only: a date is a day count (`45292` is 2024-01-01), `0.125` shown as `12.5%`, `1234.5` as
 * `$1,234.50`; printing the raw value would lose what the sheet says. Dates and times come out as ISO 8601
 * (`2024-01-01`, `13:30:00`, `2024-01-01 13:30:00`: unambiguous whatever the locale the file was written in);
 * an AM/PM time as a 24-hour one. A date stored as ISO 8601 text (`t="d"`, Excel's Strict save) is turned into its
 * day count first and shown the same way. Other formats go through their number sections (number-format.ts:
 * conditions, digit placeholders, literal text); fractions, and codes longer than 255 characters, fall back to the
 * number as General shows it.
 */
import { generalNumber } from "./number-format-layout.ts";
import { formatNumber, formatSections } from "./number-format.ts";

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

/** A format's first section with quoted text, escapes and bracketed codes (colours, locales, conditions) removed. */
function bare(code: string): string {
  return formatSections(code)[0]!.replace(/"[^"]*"/g, "").replace(/\\./g, "").replace(/\[(?![hms]+\])[^\]]*\]/gi, "").replace(/_.|\*./g, "");
}

/** What a format shows: a date/time (and which parts), or a number. */
function dateParts(code: string): { date: boolean; time: boolean } | undefined {
  // AM/PM and A/P say how hours are shown, not that the value is a date: their M is not a month.
  const b = bare(code).replace(/AM\/PM|A\/P/gi, "");
  if (/general/i.test(b) || !/[dmyhs]/i.test(b)) return undefined;
  const time = /[hs]/i.test(b);
  // `m` next to `h` or `s` is minutes; otherwise months.
  const date = /[dy]/i.test(b) || /m/i.test(b.replace(/h+[^a-z]*m+|m+[^a-z]*s+/gi, ""));
  return { date, time };
}

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");

/**
 * A serial day count as ISO text. The 1900 system counts from 1899-12-31 with a phantom 1900-02-29 (serial 60, a
 * Lotus bug Excel keeps), so serials from 61 on count from 1899-12-30; the 1904 system (old Mac files) from 1904-01-01.
 */
export function serialToIso(serial: number, parts: { date: boolean; time: boolean }, date1904: boolean): string {
  if (!date1904 && serial >= 60 && serial < 61 && parts.date) return parts.time ? `1900-02-29 ${serialToIso(serial - 60, { date: false, time: true }, false)}` : "1900-02-29";
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : serial < 61 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  // To the nearest second: times are stored as fractions of a day and rarely land exactly.
  const ms = Math.round((epoch + serial * DAY_MS) / 1000) * 1000;
  const d = new Date(ms);
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (!parts.date) return time;
  return parts.time ? `${day} ${time}` : day;
}

/** A duration in days as `h:mm:ss` with the hours uncapped (formats with `[h]`: 1.5 days is 36:00:00). */
function elapsed(days: number): string {
  const seconds = Math.round(days * 86_400);
  return `${Math.floor(seconds / 3600)}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
}

/**
 * Longest format code followed: the limit MS-XLS sets for a FORMAT record's string. A longer one (only a crafted file
 * has it) shows the number itself, since every cell it styles would repeat its literal text.
 */
const MAX_FORMAT_LENGTH = 255;

/** The text of a numeric cell whose style has format `code`. */
export function numberText(raw: string, code: string, date1904: boolean): string {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) return raw;
  if (code.length > MAX_FORMAT_LENGTH) return generalNumber(n);
  const parts = dateParts(code);
  // Serials outside Excel's calendar (before 1900, past 9999) are shown as numbers, as Excel shows ####.
  if (parts && !parts.date && /\[h+\]/i.test(code) && n >= 0) return elapsed(n);
  if (parts) return n >= 0 && n < 2_958_466 ? serialToIso(n, parts, date1904) : generalNumber(n);
  if (/^\s*general\s*$/i.test(code) || code === "@") return generalNumber(n);
  return formatNumber(n, code) ?? generalNumber(n);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/;

/**
 * The day count of an ISO 8601 date cell (`t="d"`: `2024-01-15T00:00:00`, `1899-12-30T13:30:00`), undefined when it
 * is not one. The inverse of {@link serialToIso}: from 1900-03-01 on, days since 1899-12-30; before, since
 * 1899-12-31 (the phantom 1900-02-29 between); in the 1904 system, since 1904-01-01. A date before the epoch is a time
 * of day alone: Excel writes a time-only value on 1899-12-30. An offset (`Z`, `+02:00`) is not applied: cells hold
 * wall-clock times.
 */
export function isoToSerial(text: string, date1904: boolean): number | undefined {
  const t = ISO_TIME.exec(text.trim());
  if (t) return dayFraction(Number(t[1]), Number(t[2]), Number(t[3] ?? 0));
  const m = ISO_DATE.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = Date.UTC(year, month - 1, day);
  if (month < 1 || month > 12 || new Date(date).getUTCDate() !== day) return undefined;
  const time = dayFraction(Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  if (time === undefined) return undefined;
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : date < Date.UTC(1900, 2, 1) ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  return date < epoch ? time : (date - epoch) / DAY_MS + time;
}

/** A time of day as a fraction of a day; undefined past 24:00:00. */
function dayFraction(h: number, m: number, s: number): number | undefined {
  const seconds = h * 3600 + m * 60 + s;
  return h < 24 && m < 60 && s < 60 ? seconds / 86_400 : undefined;
}

/**
 * The text of an ISO 8601 date cell with format `code`: through its day count as any dated cell (`2024-01-15` under
 * format 14, `13:30:00` under 18). Under a format that is no date (General, a number format), the date itself in
 * ISO 8601 rather than the day count Excel would print: what the file says is a date. Text that is no ISO date
 * shows as it is.
 */
export function isoDateText(raw: string, code: string, date1904: boolean): string {
  const serial = isoToSerial(raw, date1904);
  if (serial === undefined) return raw;
  if (code.length <= MAX_FORMAT_LENGTH && dateParts(code)) return numberText(String(serial), code, date1904);
  const time = serial % 1 !== 0;
  return serialToIso(serial, { date: serial >= 1, time }, date1904);
}
