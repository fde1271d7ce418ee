/**
 * @module documents/office/xlsx-values
 * A spreadsheet cell's stored value → the text a reader sees, from its number format (styles.xml). A workbook
 * stores numbers only: a date is a day count (`45292` is 2024-01-01), `0.125` shown as `12.5%`, `1234.5` as
 * `$1,234.50`; printing the raw value would lose what the sheet says. Dates and times come out as ISO 8601
 * (`2024-01-01`, `13:30:00`, `2024-01-01 13:30:00`: unambiguous whatever the locale the file was written in);
 * fixed decimals, thousands separators, percentages, scientific notation and literal prefixes and suffixes
 * (currency signs, units) as the format says. Anything else (fractions, conditions, padding) falls back to the
 * number itself with float noise removed (`0.1 + 0.2` is stored as 0.30000000000000004 and shown as 0.3).
 */

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
  return code.split(";")[0]!.replace(/"[^"]*"/g, "").replace(/\\./g, "").replace(/\[(?![hms]+\])[^\]]*\]/gi, "").replace(/_.|\*./g, "");
}

/** What a format shows: a date/time (and which parts), or a number. */
function dateParts(code: string): { date: boolean; time: boolean } | undefined {
  const b = bare(code);
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

/** A number as Excel's General format would show it, without float noise. */
export function generalNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(Number(n.toPrecision(15)));
}

/** `n` with `decimals` places and, when `group`, thousands separated by commas. */
function fixed(n: number, decimals: number, group: boolean): string {
  const s = Math.abs(n).toFixed(decimals);
  if (!group) return s;
  const [int, frac] = s.split(".");
  return int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac !== undefined ? `.${frac}` : "");
}

/** The number `n` shown with format `code`, or undefined when the format is not one this reader follows. */
function formatted(n: number, code: string): string | undefined {
  const sections = code.split(";");
  // A second section is for negative numbers, shown without the sign (accounting's parentheses carry it).
  const negative = n < 0 && sections.length > 1;
  const section = negative ? sections[1]! : sections[0]!;
  const literal = section.replace(/"([^"]*)"/g, "$1").replace(/\\(.)/g, "$1").replace(/\[\$([^\]-]*)(?:-[^\]]*)?\]/g, "$1").replace(/\[[^\]]*\]/g, "").replace(/_.|\*./g, "");
  const m = /[#0?][#0?,]*(?:\.[#0?]*)?(?:[eE][+-][#0?]+)?/.exec(literal);
  if (!m || /\//.test(literal)) return undefined;
  const pattern = m[0];
  const percent = literal.includes("%");
  const value = Math.abs(percent ? n * 100 : n);
  const [mantissa, exponent] = pattern.split(/[eE][+-]/);
  const decimals = (mantissa!.split(".")[1] ?? "").length;
  let text: string;
  if (exponent !== undefined) {
    const [digits, exp] = value.toExponential(decimals).split("e");
    const e = Number(exp);
    text = `${digits}E${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(exponent.length, "0")}`;
  } else text = fixed(value, decimals, mantissa!.includes(","));
  const sign = n < 0 && !negative && Number(text.replace(/[^0-9.]/g, "")) !== 0 ? "-" : "";
  return (sign + literal.slice(0, m.index) + text + literal.slice(m.index + pattern.length)).trim();
}

/** The text of a numeric cell whose style has format `code`. */
export function numberText(raw: string, code: string, date1904: boolean): string {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) return raw;
  const parts = dateParts(code);
  // Serials outside Excel's calendar (before 1900, past 9999) are shown as numbers, as Excel shows ####.
  if (parts && !parts.date && /\[h+\]/i.test(code) && n >= 0) return elapsed(n);
  if (parts) return n >= 0 && n < 2_958_466 ? serialToIso(n, parts, date1904) : generalNumber(n);
  if (/general/i.test(bare(code)) || code === "@") return generalNumber(n);
  return formatted(n, code) ?? generalNumber(n);
}
