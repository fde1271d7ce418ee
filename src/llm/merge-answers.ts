/**
 * @module llm/merge-answers
 * The answers of a long page's parts (llm/chunk.ts cuts the page, llm/client.ts `extract` asks each part) merged
 * into one answer, field by field:
 * - objects key by key;
 * - lists concatenated in page order, each item once: an item given again is dropped, and so is an object from
 *   another part that agrees with one already kept on every field both give (at least one), after filling that
 *   one's empty fields ({@link sameThing});
 * - every other field (a string, number or boolean) from the part that gives the most of its object's scalar fields,
 *   the first in page order among equals; a part gives a field when it is not `null` or `""`. A `0` or `false` is a
 *   value: a part that does not hold the field answers `null` (its schema is the relaxed, nullable one,
 *   llm/relaxed-schema.ts).
 *
 * Why so, and neither the part with the most content overall nor the value most parts agree on: each field was
 * taken from the part that held the most non-empty leaves, lists included, with `0` and `false` counted as
 * information. A product page whose reviews filled a later part took its price (0) and stock (false) from that part
 * — the values a grammar-constrained model writes where it cannot write `null` — instead of the first part's 129.99
 * and true. Counting an object's own scalar fields weighs what a part says of the subject, not its lists; page
 * order breaks ties, as a page states its subject's facts first, and a vote would let repeated other items (a
 * comparison table, related products) outnumber them. Taking the first part alone gave a "recently viewed" item's
 * price, above the product, to the product.
 */

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether a part's value for a field says nothing: null, absent, `""`, an empty list, an object of such values. */
function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.values(v).every(isEmpty));
}

/** Structural equality of two JSON values (an object's key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
}

/**
 * Whether two list items from different parts describe one thing: they share at least one field both give, and
 * agree on every field both give (nested objects compared the same way). `{name: "Alice Martin", role: null}` and
 * `{name: "Alice Martin", role: "Editor"}` do; two reviews by one author with different texts do not (both give the
 * text, and it differs); `{name: "Alice", role: null}` and `{name: null, role: "Editor"}` share nothing, so are
 * not taken for one.
 */
function sameThing(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let shared = 0;
  for (const k of Object.keys(a)) {
    if (!(k in b) || isEmpty(a[k]) || isEmpty(b[k])) continue;
    shared++;
    const x = a[k];
    const y = b[k];
    if (isPlainObject(x) && isPlainObject(y) ? !sameThing(x, y) : !sameJson(x, y)) return false;
  }
  return shared > 0;
}

/** `a` with its empty fields filled from `b` (nested objects likewise); `a`'s values otherwise. */
function filled(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, y] of Object.entries(b)) {
    const x = out[k];
    if (isEmpty(x) && !isEmpty(y)) out[k] = y;
    else if (isPlainObject(x) && isPlainObject(y)) out[k] = filled(x, y);
  }
  return out;
}

/** A field's value in one part's answer. */
interface PartValue {
  value: unknown;
  /** The part's position in the page. */
  part: number;
}

/** A list item kept, with the parts that gave it. */
interface KeptItem {
  item: unknown;
  parts: Set<number>;
}

/**
 * The parts' lists as one, in page order: an item already kept (the same JSON) is dropped; an object that
 * {@link sameThing} as exactly one object kept from other parts fills that one's empty fields instead of being
 * added (two such objects kept: which one it is cannot be told, and it stays an item of its own). Objects of one
 * part are never merged with each other: the model saw both and listed them apart.
 */
function mergeLists(lists: readonly PartValue[]): unknown[] {
  const kept: KeptItem[] = [];
  const seen = new Set<string>();
  for (const { value, part } of lists) {
    for (const item of (value as unknown[] | null) ?? []) {
      const key = JSON.stringify(item);
      if (seen.has(key)) continue;
      seen.add(key);
      if (isPlainObject(item)) {
        const same = kept.filter((k) => !k.parts.has(part) && isPlainObject(k.item) && sameThing(k.item, item));
        if (same.length === 1) {
          same[0]!.item = filled(same[0]!.item as Record<string, unknown>, item);
          same[0]!.parts.add(part);
          continue;
        }
      }
      kept.push({ item, parts: new Set([part]) });
    }
  }
  return kept.map((k) => k.item);
}

/**
 * One field's values in the parts that have it (in page order), merged; undefined when no part has it. `weights`:
 * how many scalar fields each part gives in the object holding this field (see {@link scalarWeights}).
 */
function mergeField(values: readonly PartValue[], weights?: ReadonlyMap<number, number>): unknown {
  const present = values.filter((x) => x.value !== undefined);
  if (present.length === 0) return undefined;
  if (present.every((x) => Array.isArray(x.value) || x.value === null) && present.some((x) => Array.isArray(x.value))) return mergeLists(present);
  if (present.every((x) => isPlainObject(x.value) || x.value === null) && present.some((x) => isPlainObject(x.value))) {
    const keys = new Set<string>();
    for (const { value } of present) if (isPlainObject(value)) for (const k of Object.keys(value)) keys.add(k);
    const out: Record<string, unknown> = {};
    const inner = scalarWeights(present);
    for (const k of keys) {
      const merged = mergeField(present.map(({ value, part }) => ({ value: isPlainObject(value) ? value[k] : undefined, part })), inner);
      if (merged !== undefined) out[k] = merged;
    }
    return out;
  }
  // A scalar (or shapes that differ between parts): from the part that gives the most of its object's scalar fields,
  // the first in page order among equals.
  let best: PartValue | undefined;
  for (const x of present) {
    if (isEmpty(x.value)) continue;
    if (!best || (weights?.get(x.part) ?? 0) > (weights?.get(best.part) ?? 0)) best = x;
  }
  return (best ?? present[0]!).value;
}

/**
 * How many non-empty scalar fields each part gives in one object: a part that names the product and gives its price
 * describes the page's subject; one that gives a price alone (a "recently viewed" item above the product, in the
 * first part) does not, and its price lost to the subject's only by coming later.
 */
function scalarWeights(present: readonly PartValue[]): Map<number, number> {
  const weights = new Map<number, number>();
  for (const { value, part } of present) {
    if (!isPlainObject(value)) continue;
    let n = 0;
    for (const v of Object.values(value)) if (!isEmpty(v) && typeof v !== "object") n++;
    weights.set(part, n);
  }
  return weights;
}

/**
 * Merges the answers of a page's parts, given in page order, into one answer (see the module comment).
 * @example
 * mergeAnswers([{ price: 129.99, reviews: [] }, { price: null, reviews: [{ author: "Ann" }] }]);
 * // { price: 129.99, reviews: [{ author: "Ann" }] }
 */
export function mergeAnswers(answers: readonly unknown[]): unknown {
  if (answers.length === 1) return answers[0];
  return mergeField(answers.map((value, part) => ({ value, part })));
}
