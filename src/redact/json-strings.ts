/**
 * @module redact/json-strings
 * Redaction of a JSON value a format produces from more than the redacted markdown (`deterministicJson`'s extractor
 * reads the page's own DOM; `product` its structured data): every string in it, and every number whose digits are
 * PII (a card number written as a number), is redacted as the markdown is, and so is every object key (an extractor
 * may key its values by what it read: `{"ada@example.org": {...}}`); the structure is kept. A key that redacts to one
 * already in its object gets a suffix (` (2)`, ` (3)`, …) rather than overwriting it. A number found to be PII
 * becomes the redacted string (`"<FINANCIAL>"`): its type changes, as docs/api.md says.
 *
 * The strings go through the redaction together, in one text, so that a model mode reads them in as few calls as
 * the markdown (one per string would be a model call per value of a list of hundreds). They are joined by a line
 * holding a separator no pattern crosses (none spans a line break but a private key block, which needs its BEGIN
 * and END lines). A string holding the separator's mark (␞) is redacted on its own: joined, its mark could pass
 * for a separator. When the redacted text does not split back into as many pieces (a model's quote spanning two
 * values), each half of the strings is redacted again the same way, down to the strings the quote spanned: a few
 * more reads, not one per string (301 model calls and 113,000 tokens for a list of 300 under a budget of 8,000).
 *
 * Every redaction of one value is given one {@link RedactionBudget} without a call: with the redaction's own budget
 * (redact/redactor.ts), the model reads of all its strings share one `CRAWLBOX_LLM_TOKEN_BUDGET` and deadline, not
 * one each. Reads the budget cannot hold throw `LLM_TOKEN_BUDGET_EXCEEDED`, which fails the format's caller as the
 * markdown's redaction does: a value is never returned with its strings unredacted. A caller whose `redact` draws
 * on a format's budget of its own (llm/deterministic/extract.ts) ignores the one given.
 */
import type { RedactionBudget } from "./redactor.ts";

/** Redacts one text as the page's markdown is (RenderRun.redact), its model reads counted in `budget` when given. */
export type RedactText = (text: string, budget?: RedactionBudget) => Promise<string>;

/** The separator's mark: U+241E SYMBOL FOR RECORD SEPARATOR. */
const MARK = "\u241e";

/** The line between two joined strings: {@link MARK} alone on its line. */
const SEPARATOR = `\n${MARK}\n`;

/** Most characters joined into one redaction; more are redacted in several (each a model's chunking as usual). */
const MAX_JOINED_CHARS = 1_000_000;

/** The strings of `value` to redact: string values, numbers as their text, and object keys (each before its value). */
function collectTexts(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" && Number.isFinite(value)) out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) collectTexts(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectTexts(v, out);
    }
  }
}

/** The keys of one object as given out, and for each key the next suffix to try: linear however many collide. */
export interface KeyNames {
  taken: Set<string>;
  nextSuffix: Map<string, number>;
}

/**
 * `key`, or with the first suffix ` (2)`, ` (3)`, … that `names` has not given out; recorded in `names`. The search
 * for a key resumes where the last one for it stopped: from ` (2)` each time, 16,000 addresses redacted to one key
 * took 69 s of the main thread (quadratic).
 */
export function uniqueKey(key: string, names: KeyNames): string {
  let unique = key;
  let n = names.nextSuffix.get(key) ?? 2;
  while (names.taken.has(unique)) unique = `${key} (${n++})`;
  names.nextSuffix.set(key, n);
  names.taken.add(unique);
  return unique;
}

/** `value` with its strings and numbers replaced by `next()`'s texts, in {@link collectTexts}' order. */
function rebuild(value: unknown, next: () => string): unknown {
  if (typeof value === "string") return next();
  if (typeof value === "number" && Number.isFinite(value)) {
    const text = next();
    // Digits found to be PII (a card number as a number) become the redacted text; others stay numbers.
    return text === String(value) ? value : text;
  }
  if (Array.isArray(value)) return value.map((v) => rebuild(v, next));
  if (value !== null && typeof value === "object") {
    // Keys as redacted, in order; a collision after redaction keeps both values (the later one suffixed).
    const names: KeyNames = { taken: new Set(), nextSuffix: new Map() };
    const entries: [string, unknown][] = [];
    for (const v of Object.values(value)) {
      const key = next();
      entries.push([key, rebuild(v, next)]);
    }
    return Object.fromEntries(entries.map(([k, v]) => [uniqueKey(k, names), v]));
  }
  return value;
}

/**
 * Redacts the texts of `texts` at `indices` into `out`: joined in one call, or, when the redacted text does not split
 * back into as many pieces, each half again (see the module note). No text holds {@link MARK}, so every mark of the
 * joined text is a separator's and the split is exact.
 */
async function redactJoined(texts: readonly string[], indices: readonly number[], out: string[], redact: (text: string) => Promise<string>): Promise<void> {
  if (indices.length === 1) {
    out[indices[0]!] = await redact(texts[indices[0]!]!);
    return;
  }
  const pieces = (await redact(indices.map((i) => texts[i]!).join(SEPARATOR))).split(SEPARATOR);
  if (pieces.length === indices.length) {
    indices.forEach((i, k) => (out[i] = pieces[k]!));
    return;
  }
  const half = Math.ceil(indices.length / 2);
  await redactJoined(texts, indices.slice(0, half), out, redact);
  await redactJoined(texts, indices.slice(half), out, redact);
}

/**
 * Redacts `texts` in as few calls of `redact` as the separator allows (see the module note), every call given
 * `budget`: by default a fresh one, which all the calls of this redaction share.
 */
export async function redactTexts(texts: readonly string[], redact: RedactText, budget: RedactionBudget = { spent: { tokens: 0 } }): Promise<string[]> {
  const one = (text: string) => redact(text, budget);
  const out: string[] = new Array<string>(texts.length);
  let group: number[] = [];
  let size = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i]!;
    if (t.includes(MARK)) {
      out[i] = await one(t);
      continue;
    }
    if (size > 0 && size + t.length > MAX_JOINED_CHARS) {
      await redactJoined(texts, group, out, one);
      group = [];
      size = 0;
    }
    group.push(i);
    size += t.length + SEPARATOR.length;
  }
  if (group.length > 0) await redactJoined(texts, group, out, one);
  return out;
}

/** `value` with every string, key and PII number redacted by `redact`; the structure as it was. */
export async function redactJsonStrings(value: unknown, redact: RedactText): Promise<unknown> {
  const texts: string[] = [];
  collectTexts(value, texts);
  if (texts.length === 0) return value;
  const redacted = await redactTexts(texts, redact);
  let i = 0;
  return rebuild(value, () => redacted[i++]!);
}
