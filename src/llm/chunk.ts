/**
 * @module llm/chunk
 * Long pages are split to fit the model's context, and the partial answers merged: arrays are concatenated and
 * deduplicated, objects merged key by key, and scalars taken from the most relevant chunk (the one whose answer
 * carries the most information: non-empty leaves), earlier chunks winning ties.
 */

/** Rough characters per token used for sizing; conservative so that non-English text still fits. */
export const CHARS_PER_TOKEN = 3;

/** Estimated tokens of `text` (for budgets when an endpoint reports no usage). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Splits `text` into chunks of at most `maxChars`, on paragraph boundaries where possible (blank lines, then
 * line breaks, then hard cuts for a single oversized line).
 */
export function chunkText(text: string, maxChars: number): string[] {
  if (maxChars < 1) throw new RangeError("maxChars must be >= 1");
  if (text.length <= maxChars) return [text];
  const blocks = text.split(/\n{2,}/);
  const chunks: string[] = [];
  let cur = "";
  const flush = () => {
    if (cur.trim() !== "") chunks.push(cur);
    cur = "";
  };
  const pushPiece = (piece: string, sep: string) => {
    if (cur === "") cur = piece;
    else if (cur.length + sep.length + piece.length <= maxChars) cur += sep + piece;
    else {
      flush();
      cur = piece;
    }
  };
  for (const block of blocks) {
    if (block.length <= maxChars) {
      pushPiece(block, "\n\n");
      continue;
    }
    for (const line of block.split("\n")) {
      if (line.length <= maxChars) {
        pushPiece(line, "\n");
        continue;
      }
      for (let i = 0; i < line.length; i += maxChars) pushPiece(line.slice(i, i + maxChars), "");
    }
  }
  flush();
  return chunks.length > 0 ? chunks : [text.slice(0, maxChars)];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.values(v).every(isEmpty));
}

/** How much information an answer carries: its non-empty leaves. */
export function informationScore(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + informationScore(x), 0);
  if (isPlainObject(v)) return Object.values(v).reduce((s: number, x) => s + informationScore(x), 0);
  return isEmpty(v) ? 0 : 1;
}

function mergeOrdered(values: unknown[], byRelevance: number[]): unknown {
  const present = values.map((v, i) => ({ v, i })).filter((x) => x.v !== undefined);
  if (present.length === 0) return undefined;
  if (present.every((x) => Array.isArray(x.v) || x.v === null) && present.some((x) => Array.isArray(x.v))) {
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const { v } of present) {
      for (const item of (v as unknown[] | null) ?? []) {
        const key = JSON.stringify(item);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(item);
      }
    }
    return out;
  }
  if (present.every((x) => isPlainObject(x.v) || x.v === null) && present.some((x) => isPlainObject(x.v))) {
    const keys: string[] = [];
    for (const { v } of present) for (const k of Object.keys((v as Record<string, unknown> | null) ?? {})) if (!keys.includes(k)) keys.push(k);
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const merged = mergeOrdered(values.map((v) => (isPlainObject(v) ? v[k] : undefined)), byRelevance);
      if (merged !== undefined) out[k] = merged;
    }
    return out;
  }
  // Scalars (or mixed shapes): the most relevant chunk that has a value.
  for (const i of byRelevance) if (!isEmpty(values[i])) return values[i];
  return present[0]!.v;
}

/** Merges the answers of a page's chunks (in page order) into one answer. */
export function mergeAnswers(answers: unknown[]): unknown {
  if (answers.length === 1) return answers[0];
  const scores = answers.map(informationScore);
  const byRelevance = answers.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return mergeOrdered(answers, byRelevance);
}
