/**
 * @module documents/office/xlsx-values
 * A spreadsheet cell's stored value → the text a reader sees, from its number format (styles.xml). A workbook
 * stores numbers only: a date is a day count (`45292` is 2024-01-01), `0.125` shown as `12.5%`, `1234.5` as
 * `$1,234.50`; printing the raw value would lose what the sheet says. Dates and times come out as ISO 8601
 * (`2024-01-01`, `13:30:00`, `2024-01-01 13:30:00`: unambiguous whatever the locale the file was written in);
 * an AM/PM time as a 24-hour one. Fixed decimals, leading zeros (`00000`), thousands separators and scaling
 * (`#,##0,"K"`), percentages, scientific notation and literal prefixes and suffixes (currency signs, units) as the
 * format says. Anything else (fractions, conditions) falls back to the number itself with float noise removed
 * (`0.1 + 0.2` is stored as 0.30000000000000004 and shown as 0.3).
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

/** A number as Excel's General format would show it, without float noise. */
export function generalNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(Number(n.toPrecision(15)));
}

/**
 * Most digits a format may ask for in one place (decimals, integer zeros, exponent digits): Excel's own limit for
 * decimals. `toFixed` and `toExponential` throw past 100, and a crafted format asking for a thousand zeros would
 * otherwise put them in every cell it styles.
 */
const MAX_PLACES = 30;

/**
 * Longest format code followed: the limit MS-XLS sets for a FORMAT record's string. A longer one (only a crafted file
 * has it) shows the number itself, since every cell it styles would repeat its literal text.
 */
const MAX_FORMAT_LENGTH = 255;

/** How a format's digit placeholders (`#,##0.00`, `00000`, `0.0,,`) lay a number out. */
interface Placeholders {
  /** Digits after the decimal point. */
  decimals: number;
  /** Zeros before it: the integer part is padded to this many digits (`00000`: 2134 is 02134; `#`: 0 is nothing). */
  integerDigits: number;
  /** Thousands separated by commas (a comma between digit placeholders). */
  group: boolean;
  /** Decimals always shown (`0` placeholders after the point); the `#` and `?` ones show only when not zero. */
  minDecimals: number;
  /** Each comma after the last digit placeholder divides by 1,000 (`#,##0,"K"`: 1234567 is 1,235K). */
  scale: number;
}

/** The placeholders of a mantissa (the pattern before any `E+`). */
function placeholders(mantissa: string): Placeholders {
  const scaling = /,+$/.exec(mantissa)?.[0].length ?? 0;
  const [int, frac] = mantissa.slice(0, mantissa.length - scaling).split(".");
  return {
    decimals: Math.min(MAX_PLACES, (frac ?? "").length),
    // `0.0#` shows at least one decimal: the zeros before the first optional place.
    minDecimals: Math.min(MAX_PLACES, /^0*/.exec(frac ?? "")![0].length),
    integerDigits: Math.min(MAX_PLACES, (int!.match(/0/g) ?? []).length),
    group: int!.includes(","),
    scale: scaling,
  };
}

/**
 * `digits` (a number's text, from toFixed or toExponential) with its decimals written to `wanted` places from the
 * `kept` it was written with: a double holds 15 significant digits, and Excel shows zeros past them, not the
 * binary expansion (1234567.891 to 30 places is 1234567.891000…, not 1234567.891000000061467…).
 */
function padDecimals(digits: string, kept: number, wanted: number): string {
  if (wanted === kept) return digits;
  return (kept === 0 ? `${digits}.` : digits) + "0".repeat(wanted - kept);
}

/** Decimals of `value` (not negative) that fall within a double's 15 significant digits, at most `wanted`. */
function meaningfulDecimals(value: number, wanted: number): number {
  const integerDigits = value > 0 ? Math.floor(Math.log10(value)) + 1 : 1;
  return Math.max(0, Math.min(wanted, 15 - integerDigits));
}

/** `value` (not negative) laid out by placeholders `p`, without its sign. */
function fixed(value: number, p: Placeholders): string {
  const scaled = value / 1000 ** p.scale;
  const kept = meaningfulDecimals(scaled, p.decimals);
  const [digits, frac] = padDecimals(scaled.toFixed(kept), kept, p.decimals).split(".");
  let int = digits!.padStart(p.integerDigits, "0");
  if (p.integerDigits === 0 && int === "0") int = "";
  if (p.group) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  // Optional places (`#.##`) drop their trailing zeros: 1.5 is "1.5", 1 is "1." (the point stays, as Excel shows it).
  const shown = frac === undefined ? undefined : frac.slice(0, Math.max(p.minDecimals, frac.replace(/0+$/, "").length));
  return int + (shown !== undefined ? `.${shown}` : "");
}

/** The number `n` shown with format `code`, or undefined when the format is not one this reader follows. */
function formatted(n: number, code: string): string | undefined {
  const sections = code.split(";");
  // A second section is for negative numbers, shown without the sign (accounting's parentheses carry it).
  const negative = n < 0 && sections.length > 1;
  const section = negative ? sections[1]! : sections[0]!;
  const literal = section.replace(/"([^"]*)"/g, "$1").replace(/\\(.)/g, "$1").replace(/\[\$([^\]-]*)(?:-[^\]]*)?\]/g, "$1").replace(/\[[^\]]*\]/g, "").replace(/_.|\*./g, "");
  const m = /[#0?][#0?,]*(?:\.[#0?]*,*)?(?:[eE][+-][#0?]+)?/.exec(literal);
  if (!m || /\//.test(literal)) return undefined;
  const pattern = m[0];
  const percent = literal.includes("%");
  const value = Math.abs(percent ? n * 100 : n);
  const [mantissa, exponent] = pattern.split(/[eE][+-]/);
  const p = placeholders(mantissa!);
  let text: string;
  if (exponent !== undefined) {
    const kept = Math.min(p.decimals, 14); // one digit before the point, 14 after: a double's 15
    const [mantissaDigits, exp] = value.toExponential(kept).split("e");
    const digits = padDecimals(mantissaDigits!, kept, p.decimals);
    const e = Number(exp);
    text = `${digits}E${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(Math.min(MAX_PLACES, exponent.length), "0")}`;
  } else if (value / 1000 ** p.scale >= 1e21) return undefined; // toFixed would write it in exponent notation
  else text = fixed(value, p);
  const sign = n < 0 && !negative && Number(text.replace(/[^0-9.]/g, "")) !== 0 ? "-" : "";
  return (sign + literal.slice(0, m.index) + text + literal.slice(m.index + pattern.length)).trim();
}

/** The text of a numeric cell whose style has format `code`. */
export function numberText(raw: string, code: string, date1904: boolean): string {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) return raw;
  if (code.length > MAX_FORMAT_LENGTH) return generalNumber(n);
  const parts = dateParts(code);
  // Serials outside Excel's calendar (before 1900, past 9999) are shown as numbers, as Excel shows ####.
  if (parts && !parts.date && /\[h+\]/i.test(code) && n >= 0) return elapsed(n);
  if (parts) return n >= 0 && n < 2_958_466 ? serialToIso(n, parts, date1904) : generalNumber(n);
  if (/general/i.test(bare(code)) || code === "@") return generalNumber(n);
  return formatted(n, code) ?? generalNumber(n);
}
