/**
 * @module documents/office/xlsx-dates
 * Spreadsheet dates: serial day counts to ISO 8601 text, and ISO 8601 date cells (`t="d"`, Excel's Strict save) to
 * serial day counts, in the workbook's date system. A workbook stores a date as a day count (`45292` is 2024-01-01)
 * in the 1900 system (from 1899-12-31, with the phantom 1900-02-29 that Lotus had and Excel keeps) or the 1904 one
 * (old Mac files: from 1904-01-01). A serial cannot hold a date before its system's start; an ISO date cell can,
 * and such a date is shown as it is stored (`1850-06-01`), never squeezed into a serial (where it came out as the
 * time `00:00:00` or the date `1899-12-31`).
 */

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");

/** Which parts of a date a format shows. */
export interface DateParts {
  date: boolean;
  time: boolean;
}

/**
 * A serial day count as ISO text. The 1900 system counts from 1899-12-31 with a phantom 1900-02-29 (serial 60, a
 * Lotus bug Excel keeps), so serials from 61 on count from 1899-12-30; the 1904 system (old Mac files) from 1904-01-01.
 */
export function serialToIso(serial: number, parts: DateParts, date1904: boolean): string {
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
export function elapsed(days: number): string {
  const seconds = Math.round(days * 86_400);
  return `${Math.floor(seconds / 3600)}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/;

/** An ISO 8601 date cell read: a serial day count, or a date no serial of the workbook's system holds. */
export type IsoCell = { serial: number } | { outside: string };

/**
 * An ISO 8601 date cell (`2024-01-15T00:00:00`, `1899-12-30T13:30:00`, `13:30:00`) read; undefined when it is not
 * one. The inverse of {@link serialToIso}: from 1900-03-01 on, days since 1899-12-30; before, since 1899-12-31 (the
 * phantom 1900-02-29 between); in the 1904 system, since 1904-01-01. A time alone, or on 1899-12-30 (the day Excel
 * and LibreOffice put a time-only value on), is a time of day. Any other date before the system's start is
 * `outside`: its ISO date, and its time when not midnight (`1850-06-01 13:30:00`), as stored. An offset (`Z`,
 * `+02:00`) is not applied: cells hold wall-clock times.
 */
export function readIsoCell(text: string, date1904: boolean): IsoCell | undefined {
  const trimmed = text.trim();
  const t = ISO_TIME.exec(trimmed);
  if (t) {
    const time = dayFraction(Number(t[1]), Number(t[2]), Number(t[3] ?? 0));
    return time === undefined ? undefined : { serial: time };
  }
  const m = ISO_DATE.exec(trimmed);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = Date.UTC(year, month - 1, day);
  if (month < 1 || month > 12 || new Date(date).getUTCDate() !== day) return undefined;
  const [h, min, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const time = dayFraction(h, min, s);
  if (time === undefined) return undefined;
  if (date === Date.UTC(1899, 11, 30)) return { serial: time };
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : date < Date.UTC(1900, 2, 1) ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  if (date >= epoch) return { serial: (date - epoch) / DAY_MS + time };
  const clock = time === 0 ? "" : ` ${pad(h)}:${pad(min)}:${pad(Math.floor(s))}`;
  return { outside: `${m[1]}-${m[2]}-${m[3]}${clock}` };
}

/** A time of day as a fraction of a day; undefined past 24:00:00. */
function dayFraction(h: number, m: number, s: number): number | undefined {
  const seconds = h * 3600 + m * 60 + s;
  return h < 24 && m < 60 && s < 60 ? seconds / 86_400 : undefined;
}
