/**
 * @module documents/office/number-format-general
 * A number's digits as a spreadsheet shows them: the General format, and the rule every format shares that a double
 * holds 15 significant decimal digits (Excel stores and shows no more: past them it writes zeros, not the binary
 * expansion).
 *
 * **General and long integers: a deliberate difference from Excel.** Excel's General shows at most 11 characters'
 * worth of integer and writes a 12-digit integer in scientific notation: an EAN-13 barcode `5901234123457` shows as
 * `5.90123E+12`, an account or order number likewise. Those digits are what people extract such sheets for, and the
 * file holds them exactly (any integer up to 15 digits is exact in a double): General here writes integers in full
 * up to 15 digits, and switches to scientific notation only past that (`1.23457E+17`, where the digits are no
 * longer all there) or for a number with a fraction past 11 integer digits (`1.23457E+11` for 123456789012.5), or
 * below 0.0001 (`1.23E-07`), as Excel does.
 */

/** Significant decimal digits a double holds, and Excel shows. */
export const DOUBLE_DIGITS = 15;

/** Integer digits past which General writes a number with a fraction in scientific notation (`1.23457E+11`), as Excel does. */
const GENERAL_MAX_DIGITS = 11;

/**
 * A number as the General format shows it: without float noise (`0.1 + 0.2` is stored as 0.30000000000000004 and
 * shown as 0.3), to 15 significant digits. Integers of up to 15 digits in full (see the module's note); in
 * scientific notation (six significant digits, a two-digit exponent at least) an integer of more, a number with a
 * fraction whose integer part takes more than {@link GENERAL_MAX_DIGITS} digits, or one below 0.0001
 * (0.000000123 is `1.23E-07`).
 */
export function generalNumber(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const rounded = Number(n.toPrecision(DOUBLE_DIGITS));
  const magnitude = Number(rounded.toExponential().split("e")[1]);
  if (magnitude >= -4 && (magnitude < GENERAL_MAX_DIGITS || (Number.isInteger(rounded) && magnitude < DOUBLE_DIGITS))) return String(rounded);
  const [mantissa, exp] = rounded.toExponential(5).split("e");
  const e = Number(exp);
  return `${trimZeros(mantissa!)}E${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** A mantissa (`1.23000`) without its trailing zeros, and without its point when nothing follows it (`1.00000` is `1`). */
function trimZeros(mantissa: string): string {
  if (!mantissa.includes(".")) return mantissa;
  let end = mantissa.length;
  while (mantissa[end - 1] === "0") end--;
  return mantissa.slice(0, mantissa[end - 1] === "." ? end - 1 : end);
}

/**
 * `digits` (a number's text, from toFixed or toExponential) with its decimals written to `wanted` places from the
 * `kept` it was written with: Excel shows zeros past a double's 15 significant digits, not the binary expansion
 * (1234567.891 to 30 places is 1234567.891000…, not 1234567.891000000061467…).
 */
export function padDecimals(digits: string, kept: number, wanted: number): string {
  if (wanted === kept) return digits;
  return (kept === 0 ? `${digits}.` : digits) + "0".repeat(wanted - kept);
}

/** Decimals of `value` (not negative) that fall within a double's 15 significant digits, at most `wanted`. */
export function meaningfulDecimals(value: number, wanted: number): number {
  const integerDigits = value > 0 ? Math.floor(Math.log10(value)) + 1 : 1;
  return Math.max(0, Math.min(wanted, DOUBLE_DIGITS - integerDigits));
}
