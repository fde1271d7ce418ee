/**
 * @module redact/phones
 * Phone numbers, the most ambiguous of the pattern side's shapes (redact/detectors.ts): a number is a phone by its
 * prefix (`+`, a trunk 0, brackets) or the North American 3-3-4 grouping and its 7–15 digits, and not when it reads as
 * a date, a price, an amount, a version or an id. Its alternate ending (`1234567/8`) is part of it; a longer one
 * (`1234567/890`) is not, and the number before it is taken; a price's group after it (`030 1234567 2,99 €`) is left
 * to the price.
 */
import type { PiiSpan } from "./detectors.ts";

/** The digits of `s`. */
export function digits(s: string): string {
  return s.replace(/\D/g, "");
}

/** A phone number's digits and groups, not glued to a word, a number or a path before it. */
const PHONE_NUMBER = String.raw`(?<![\w.+/-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d[\d .-]{5,18}\d`;
/**
 * What may not follow a phone: a word, a path, a decimal or time. A slash may, before an ending of 3–16 digits that
 * ends there (`030 1234567/890`): an ending longer than an alternate's, left to stand after the number before it
 * (`<PHONE>/890`); dates and fractions (`12/2024`, `3/4`) have no phone before their slash.
 */
const PHONE_END = String.raw`(?!\w|\/(?!\d{3,16}(?![\w/]|[.:-]\d))|[.:-]\d)`;
/** The candidate at an index with no slash after it at all: the reading before {@link PHONE_END} let a slash follow (sticky). */
const PHONE_BEFORE_SLASH = new RegExp(String.raw`${PHONE_NUMBER}(?![\w/]|[.:-]\d)`, "y");
/** A comma after a last group of 1–3 digits, and a digit: that group may be another number's (see {@link PRICE_COMMA}). */
const GROUP_COMMA = String.raw`(?<= \d{1,3}),\d`;
/**
 * A decimal comma after a last group of 1–3 digits, which makes that group the next price's (`030 1234567 2,99 €`,
 * `1,050 €`), unless another phone follows the comma (`030 1234 56,030 1234 57`: a trunk 0 and its area code, a `+`,
 * or the North American 3-3-4 grouping).
 */
const PRICE_COMMA = String.raw`(?<= \d{1,3}),(?!0\d{1,4}[ /-]\d\d|\+\d|\d{3}[ .-]\d{3}[ .-]\d{4}(?!\d))\d`;

/**
 * Candidate phone numbers, with an alternate ending (`+49 30 1234567/8`: …567 or …568; `/89` likewise); {@link isPhone}
 * decides on the number before it, {@link alternateFits} on the ending, {@link collectPhones} on a price's group.
 */
const PHONE = new RegExp(`${PHONE_NUMBER}(?:\\/\\d{1,2})?${PHONE_END}`, "g");
/** The candidate at an index without an alternate ending: what is taken when the ending does not fit (sticky). */
const PHONE_WITHOUT_ENDING = new RegExp(PHONE_NUMBER + PHONE_END, "y");
/** The candidate at an index without the group before a {@link GROUP_COMMA} (sticky). */
const PHONE_BEFORE_COMMA = new RegExp(`${PHONE_NUMBER}${PHONE_END}(?!${GROUP_COMMA})`, "y");
/** Whether a {@link GROUP_COMMA}, or a {@link PRICE_COMMA}, is at an index (sticky). */
const GROUP_COMMA_AT = new RegExp(GROUP_COMMA, "y");
const PRICE_COMMA_AT = new RegExp(PRICE_COMMA, "y");

/** A candidate's alternate ending: a slash and the 1 or 2 digits that replace its last ones. */
const ALTERNATE_ENDING = /\/\d{1,2}$/;

/**
 * Whether `ending` (`/8`) can be an alternate for the last digits of `number` (`isNumber` judging a number): it
 * replaces fewer digits than the number's last group has (`1234567/8`, `1234567/89`), or the whole of that group
 * when the number before the group is a phone by itself (`030 12 34 56/57`, `+49 30 12345 6/7`); not `12 34/56`, a
 * pair of figures, nor a fraction `5/8`.
 */
function alternateFits(number: string, ending: string, isNumber: (n: string) => boolean): boolean {
  const lastGroup = /\d+$/.exec(number)![0].length;
  const replaced = ending.length - 1;
  if (replaced > lastGroup || !isNumber(number)) return false;
  return replaced < lastGroup || isNumber(number.slice(0, number.length - lastGroup).replace(/[ .-]$/, ""));
}

/** A label right before a number that says it is an id, not a phone: `SKU 0123-456-789`, `Order #030 123 45`. */
const ID_LABEL_BEFORE = /(?:\b(?:SKU|EAN|UPC|ISBN|art(?:icle)?|item|order|ref(?:erence)?|part|model|serial|invoice|no|nr|id)\.?|#)[ \t:#.]*$/i;

/**
 * Currency codes and symbols, a per cent or per mille sign: a number right before one is an amount or a share. A
 * symbol followed by a digit is the next amount's (`0900 123 4567 €1.99/min`), not this number's unit.
 */
const AMOUNT_AFTER = /^[ \t\u00a0]?(?:[%‰]|[€$£¥₹](?![ \t\u00a0]?\d)|(?:EUR|USD|GBP|CHF|JPY|CNY|RMB|INR|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|RUB|BRL|MXN|ZAR|TRY|HKD|SGD|KRW)(?![A-Za-z]))/;
/** A currency symbol right before a number: an amount. */
const AMOUNT_BEFORE = /[€$£¥₹][ \t\u00a0]?$/;

/** A phone label right before a number (`Tel 07 12 2024`): a phone, even in a date's shape. */
const PHONE_LABEL_BEFORE = /\b(?:tel|ph|phone|fax|mobile|mob|cell)[:.]?[ \t]*$/i;

/** A day, month and year written with spaces (`06 12 2024`, `12 06 2024`): a date, whichever comes first. */
function isSpacedDate(candidate: string): boolean {
  const m = /^(\d{1,2}) (\d{1,2}) (?:19|20)\d\d$/.exec(candidate);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return a >= 1 && b >= 1 && a <= 31 && b <= 31 && (a <= 12 || b <= 12);
}

/** The North American 3-3-4 grouping, with an optional leading `1` (`1-900-555-0199`, `(212) 555-0199`). */
const NORTH_AMERICAN = /^(?:1[ .-])?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}$/;

/**
 * Whether a candidate looks like a phone number rather than a date, a price or an id; `labelled`: a phone label
 * comes right before it, which makes a spaced date's shape (`Tel 07 12 2024`) a phone.
 */
function isPhone(candidate: string, labelled: boolean): boolean {
  const n = digits(candidate).length;
  if (n < 7 || n > 15) return false;
  if (/^\d+$/.test(candidate)) return false; // a bare run of digits is an id, a count or a card
  if (/^\d{4}[-.]\d{1,2}[-.]\d{1,2}$/.test(candidate) || /^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/.test(candidate) || (!labelled && isSpacedDate(candidate))) return false; // dates
  if (/^\+\d+\.\d+$/.test(candidate)) return false; // a signed decimal (`+48.856613`): a phone has more groups than one
  if (candidate.startsWith("+1") && n !== 11) return false; // +1 is North America: 10 digits after it (`+1 234 567` is an amount)
  if (NORTH_AMERICAN.test(candidate)) return true;
  if (/\d\.\d+\.\d/.test(candidate) && !/[ ()+-]/.test(candidate)) return false; // versions, IP addresses
  if (/^\d{3}-\d{2}-\d{4}$/.test(candidate)) return false; // a social security number's shape (FINANCIAL)
  if (/\b\d{1,2}\.\d{1,2}\.\d{2,4}\b/.test(candidate) || /\b(?:19|20)\d\d\s*[-–]\s*(?:19|20)\d\d\b/.test(candidate)) return false; // dates, year ranges
  if (candidate.startsWith("+")) return true;
  if (candidate.startsWith("(")) return !/^\((?:19|20)\d\d\)/.test(candidate); // an area code, not "(2019)"
  return /^0\d{1,4}[ /-]\d{2,}/.test(candidate); // national format with a trunk prefix (not "08.00 - 18.00")
}

/**
 * Whether a candidate has a phone's own shape, which no amount has: the North American 3-3-4 grouping
 * (`1-900-555-0199`), `+` and a country code then 9 digits or more in 2 groups or more (`+44 20 7946 0958`; not
 * `+44 123 4567`), or a national number with its trunk 0 (`030 12345678`, `(020) 7946 0958`). A currency or `%` beside
 * it is a price of the call (`$2.99/min`) or the page's next figure, not its unit.
 */
function strongPhoneShape(candidate: string): boolean {
  if (NORTH_AMERICAN.test(candidate)) return true;
  const international = /^\+\d{1,3}[ .-]?(.*)$/.exec(candidate);
  if (international) {
    const rest = international[1]!;
    return digits(rest).length >= 9 && rest.split(/[ .()-]+/).filter(Boolean).length >= 2;
  }
  return /^\(?0\d{1,4}\)?[ /-]\d{2,}/.test(candidate);
}

/**
 * Whether the text around a phone-shaped candidate lets it be one: no id label before it, and, unless it has a
 * phone's own shape ({@link strongPhoneShape}), no currency or `%` around it.
 */
function phoneContext(text: string, candidate: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 16), start);
  if (ID_LABEL_BEFORE.test(before)) return false;
  return strongPhoneShape(candidate) || (!AMOUNT_BEFORE.test(before) && !AMOUNT_AFTER.test(text.slice(end, end + 8)));
}

/**
 * The phone numbers of `text`. A candidate is judged without its alternate ending (which is then part of the span),
 * the context after both. When the ending does not fit, the number is read as if it had none (`030 1234 56 7/89`
 * gives `030 1234 56`, the digits before the slash not being the phone's), and the scan goes on where that reading
 * ends (after the index when there is none): never less than a pattern without endings finds. A last group before a
 * price's decimal comma is left to the price when the number without it is a phone (`030 1234567 2,99 €`), and taken
 * with it when only the whole is one (`030 123 4,5` gives `030 123 4`, as before the price rule). Before any other
 * comma (a phone follows it) the whole is taken when it is a phone, else the number without that group
 * (`+1 212 555 0199 1,030 1234567`: `+1` and 11 digits is none, `+1 212 555 0199` is); likewise before a slash and an
 * ending too long to be an alternate (`030 1234567/890` is taken, `+1 212 555 0199 03/48802` gives `+1 212 555 0199`).
 */
export function collectPhones(text: string, out: PiiSpan[]): void {
  PHONE.lastIndex = 0;
  for (let m = PHONE.exec(text); m; m = PHONE.exec(text)) {
    const start = m.index;
    const labelled = PHONE_LABEL_BEFORE.test(text.slice(Math.max(0, start - 16), start));
    const phone = (n: string, end: number) => isPhone(n, labelled) && phoneContext(text, n, start, end);
    const ending = ALTERNATE_ENDING.exec(m[0])?.[0] ?? "";
    const number = m[0].slice(0, m[0].length - ending.length);
    const end = start + m[0].length;
    if (ending === "") {
      const cut = text[end] === "/" ? beforeSlash(text, start) : beforeComma(text, start, end);
      const whole = () => phone(number, end);
      if (cut && (cut.price || !whole()) && phone(cut.short, start + cut.short.length)) {
        out.push({ start, end: start + cut.short.length, type: "PHONE" });
        PHONE.lastIndex = start + cut.short.length;
      } else if (whole()) out.push({ start, end, type: "PHONE" });
      continue;
    }
    if (alternateFits(number, ending, (n) => phone(n, end))) {
      out.push({ start, end, type: "PHONE" });
      continue;
    }
    PHONE_WITHOUT_ENDING.lastIndex = start;
    const plain = PHONE_WITHOUT_ENDING.exec(text);
    if (plain && phone(plain[0], start + plain[0].length)) out.push({ start, end: start + plain[0].length, type: "PHONE" });
    PHONE.lastIndex = plain ? start + plain[0].length : start + 1;
  }
}

/** The candidate at `start` read as if no slash could follow it, when that reading is shorter (never a price's). */
function beforeSlash(text: string, start: number): { short: string; price: boolean } | undefined {
  PHONE_BEFORE_SLASH.lastIndex = start;
  const short = PHONE_BEFORE_SLASH.exec(text)?.[0];
  return short === undefined ? undefined : { short, price: false };
}

/**
 * The candidate at `start` without its last group when a {@link GROUP_COMMA} follows it at `end`, if any, and whether
 * that comma is a price's.
 */
function beforeComma(text: string, start: number, end: number): { short: string; price: boolean } | undefined {
  GROUP_COMMA_AT.lastIndex = end;
  if (!GROUP_COMMA_AT.test(text)) return undefined;
  PHONE_BEFORE_COMMA.lastIndex = start;
  const short = PHONE_BEFORE_COMMA.exec(text)?.[0];
  PRICE_COMMA_AT.lastIndex = end;
  return short === undefined ? undefined : { short, price: PRICE_COMMA_AT.test(text) };
}
