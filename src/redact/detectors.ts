/**
 * @module redact/detectors
 * The pattern side of PII redaction (`redactPII` modes `fast` and `aggressive`): spans of text that are, by their
 * shape and check digits, an e-mail address, a phone number, a payment card, an IBAN or US social security number,
 * or a credential. Names and places have no shape: only the model finds them (redact/model.ts).
 *
 * Precision over recall where a shape is ambiguous: a card number must pass the Luhn check (and stand alone, not
 * inside a hex string or a word), an IBAN its mod-97 check, a phone number needs a `+`, a leading 0, brackets or the
 * North American 3-3-4 grouping and 7–15 digits (11 after `+1`; an alternate ending, `1234567/8`, is part of the
 * phone but not counted), so dates (also `06 12 2024`), times, prices and
 * amounts (`+1 234 567 EUR`, `+12.345678 %`), signed decimals (`lat +48.856613`), version numbers and order ids are left
 * alone.
 *
 * Every pattern is bounded (each repetition has a maximum, and unbounded runs may only start where a run starts):
 * they run on the event loop over pages of megabytes, and a pattern that rescans a long run from each of its
 * positions took 24 s on 300 KB of hex.
 */

/** The entity buckets of upstream's `redactPII.entities`. */
export const PII_ENTITIES = ["PERSON", "EMAIL", "PHONE", "LOCATION", "FINANCIAL", "SECRET"] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

/** A span of text to redact: `[start, end)` in UTF-16 units. */
export interface PiiSpan {
  start: number;
  end: number;
  type: PiiEntity;
}

/** Local part (≤ 64, starting where its run starts) @ labels (≤ 63 each, ≤ 8 of them) . top-level domain. */
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}([A-Za-z]{2,24})(?![A-Za-z0-9-])/g;

/** "Top-level domains" that are file extensions: `logo@2x.png` is an image, not an address. */
const FILE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", "ico", "tif", "tiff", "css", "js", "mjs", "json", "map", "woff", "woff2", "ttf", "pdf", "html", "htm", "php", "xml", "txt", "mp4", "webm", "mp3"]);

/** A phone number's digits and groups, not glued to a word, a number or a path before it. */
const PHONE_NUMBER = String.raw`(?<![\w.+/-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d[\d .-]{5,18}\d`;
/** What may not follow a phone: a word, a path, a decimal or time. */
const PHONE_END = String.raw`(?![\w/]|[.:-]\d)`;
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
/** The candidate at an index without the group before a {@link PRICE_COMMA} (sticky). */
const PHONE_BEFORE_PRICE = new RegExp(`${PHONE_NUMBER}${PHONE_END}(?!${PRICE_COMMA})`, "y");
/** Whether a {@link PRICE_COMMA} is at an index (sticky). */
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

/**
 * Card-like runs: 13–19 digits, optionally grouped by single spaces or hyphens, not glued to a digit; {@link standsAlone}
 * then rejects those glued to hex letters (`0x4111111111111111`, `4111111111111111a`), not those glued to a word
 * (`card_4111111111111111`, `visa4111111111111111`).
 */
const CARD = /(?<![\d+-])\d(?:[ -]?\d){12,18}(?![\d-])/g;

/** Letters that may write a hex string, and `x` of `0x`. */
const HEX_LETTERS = /^[a-fA-FxX]+$/;

/**
 * Whether the card-like run `[start, end)` is not part of a hex string: the letters glued to it on either side, if
 * any, are not all hex letters (or `x`). Only the glued run counts: `visa` ends in `a` but is a word, `deadbeef` is hex.
 */
function standsAlone(text: string, start: number, end: number): boolean {
  const before = /[A-Za-z]{0,64}$/.exec(text.slice(Math.max(0, start - 64), start))![0];
  const after = /^[A-Za-z]{0,64}/.exec(text.slice(end, end + 64))![0];
  return !(before && HEX_LETTERS.test(before)) && !(after && HEX_LETTERS.test(after));
}

const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;

const SSN = /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g;

/** Credentials by their issuers' formats, and private key blocks. */
const SECRET_TOKENS: RegExp[] = [
  /-----BEGIN (?:[A-Z]{1,12} ){0,3}PRIVATE KEY-----[\s\S]{0,16384}?-----END (?:[A-Z]{1,12} ){0,3}PRIVATE KEY-----/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}\b/g, // GitHub
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,255}\b/g, // Slack
  /(?<![A-Za-z0-9_-])sk-(?:[A-Za-z0-9]{1,32}-){0,3}[A-Za-z0-9_]{20,255}\b/g, // OpenAI, Anthropic and alike
  /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,255}\b/g, // Stripe
  /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, // Google API key
  /\bfc-[0-9a-f]{32}\b/g, // Firecrawl
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,4096}/g, // JWT
];

/**
 * `password: value`, `api_key=value`, `Bearer value`, …: the value only, on the label's line, not a link (`[…`)
 * and with a digit or at least 12 characters (so that "our secret: happiness" is prose).
 */
const LABELLED_SECRET = /(?<![A-Za-z0-9])(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token)["']?[ \t]{0,8}[:=][ \t]{0,8}["']?([^\s"'<>`\[\]()]{6,512})|\bBearer[ \t]{1,8}([A-Za-z0-9._~+/-]{16,4096}=*)/gi;

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

function digits(s: string): string {
  return s.replace(/\D/g, "");
}

/** The Luhn checksum of a card number. */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return number.length > 0 && sum % 10 === 0;
}

/** The ISO 13616 mod-97 check of an IBAN (spaces removed). */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/ /g, "");
  if (s.length < 15 || s.length > 34) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= "A" && ch <= "Z" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rest = v > 9 ? (rest * 100 + v) % 97 : (rest * 10 + v) % 97;
  }
  return rest === 1;
}

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
  const northAmerican = /^(?:1[ .-])?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}$/.test(candidate);
  if (northAmerican) return true;
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
  if (/^(?:1[ .-])?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}$/.test(candidate)) return true;
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

function collect(text: string, re: RegExp, type: PiiEntity, keep: (m: RegExpExecArray) => boolean, out: PiiSpan[]): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (keep(m)) out.push({ start: m.index, end: m.index + m[0].length, type });
  }
}

/**
 * The phone numbers of `text`. A candidate is judged without its alternate ending (which is then part of the span),
 * the context after both. When the ending does not fit, the number is read as if it had none (`030 1234 56 7/89`
 * gives `030 1234 56`, the digits before the slash not being the phone's), and the scan goes on where that reading
 * ends (after the index when there is none): never less than a pattern without endings finds. A last group before a
 * price's decimal comma is left to the price when the number without it is a phone (`030 1234567 2,99 €`), and taken
 * with it when only the whole is one (`030 123 4,5` gives `030 123 4`, as before the price rule).
 */
function collectPhones(text: string, out: PiiSpan[]): void {
  PHONE.lastIndex = 0;
  for (let m = PHONE.exec(text); m; m = PHONE.exec(text)) {
    const start = m.index;
    const labelled = PHONE_LABEL_BEFORE.test(text.slice(Math.max(0, start - 16), start));
    const phone = (n: string, end: number) => isPhone(n, labelled) && phoneContext(text, n, start, end);
    const ending = ALTERNATE_ENDING.exec(m[0])?.[0] ?? "";
    const number = m[0].slice(0, m[0].length - ending.length);
    const end = start + m[0].length;
    if (ending === "") {
      const short = beforePrice(text, start, end);
      if (short !== undefined && phone(short, start + short.length)) {
        out.push({ start, end: start + short.length, type: "PHONE" });
        PHONE.lastIndex = start + short.length;
      } else if (phone(number, end)) out.push({ start, end, type: "PHONE" });
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

/** The candidate at `start` without its last group when a price's decimal comma follows it at `end`, if any. */
function beforePrice(text: string, start: number, end: number): string | undefined {
  PRICE_COMMA_AT.lastIndex = end;
  if (!PRICE_COMMA_AT.test(text)) return undefined;
  PHONE_BEFORE_PRICE.lastIndex = start;
  return PHONE_BEFORE_PRICE.exec(text)?.[0];
}

/** The spans the patterns find for `entities`, in no particular order (they may overlap). */
export function findPatternSpans(text: string, entities: ReadonlySet<PiiEntity>): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (entities.has("EMAIL")) collect(text, EMAIL, "EMAIL", (m) => !FILE_EXTENSIONS.has(m[1]!.toLowerCase()), out);
  if (entities.has("PHONE")) collectPhones(text, out);
  if (entities.has("FINANCIAL")) {
    collect(text, CARD, "FINANCIAL", (m) => /^[3-6]/.test(m[0]) && luhnValid(digits(m[0])) && standsAlone(text, m.index, m.index + m[0].length), out);
    collect(text, IBAN, "FINANCIAL", (m) => ibanValid(m[0]), out);
    collect(text, SSN, "FINANCIAL", () => true, out);
  }
  if (entities.has("SECRET")) {
    for (const re of SECRET_TOKENS) collect(text, re, "SECRET", () => true, out);
    LABELLED_SECRET.lastIndex = 0;
    for (let m = LABELLED_SECRET.exec(text); m; m = LABELLED_SECRET.exec(text)) {
      const value = m[1] ?? m[2]!;
      if (m[1] !== undefined && !/\d/.test(value) && value.length < 12) continue;
      const start = m.index + m[0].length - value.length;
      out.push({ start, end: start + value.length, type: "SECRET" });
    }
  }
  return out;
}
