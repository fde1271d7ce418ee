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
 * alone (the phone rules: redact/phones.ts).
 *
 * Every pattern is bounded (each repetition has a maximum, and unbounded runs may only start where a run starts):
 * they run on the event loop over pages of megabytes, and a pattern that rescans a long run from each of its
 * positions took 24 s on 300 KB of hex.
 */
import { collectPhones, digits } from "./phones.ts";

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


function collect(text: string, re: RegExp, type: PiiEntity, keep: (m: RegExpExecArray) => boolean, out: PiiSpan[]): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (keep(m)) out.push({ start: m.index, end: m.index + m[0].length, type });
  }
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
