/**
 * @module llm/coerce-scalars
 * A model's answer with its numbers and booleans written as text read as what the schema asks for: `"12.99"` where
 * a number is asked becomes 12.99, `"true"` where a boolean is asked becomes true. Small models (and some
 * grammar-less servers) quote them; the answer was refused, a repair turn spent, and when the model quoted the number
 * again the scrape failed with `LLM_INVALID_ANSWER`.
 *
 * Ajv's own `coerceTypes` is not used: it also turns `null` into `0`, `false` or `""` and `""` into `0` for a
 * non-nullable type (the caller's schema the merged answer is checked against), and `0`/`1` into booleans — values a
 * page never gave. Only a string whose whole text is a number (or `true`/`false`) is coerced, and only where the
 * validator reports that a number, an integer or a boolean was expected: `null`, `""` and `"12 EUR"` stay as they
 * are (a null is the page not saying; the rest get the repair turn).
 */
import type { ErrorObject } from "ajv";
import { validationErrors } from "./schema.ts";

/** A JSON number, maybe signed with `+` and surrounded by spaces; nothing else (`""`, `"0x10"`, `"1,299"`). */
const NUMERIC = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const BOOLEAN = /^\s*(true|false)\s*$/i;

/** `text` as the first of `types` it can be without guessing, or undefined. */
function coerced(text: string, types: readonly string[]): number | boolean | undefined {
  for (const t of types) {
    if ((t === "number" || t === "integer") && NUMERIC.test(text)) {
      const n = Number(text);
      if (Number.isFinite(n) && (t === "number" || Number.isInteger(n))) return n;
    }
    if (t === "boolean") {
      const b = BOOLEAN.exec(text);
      if (b) return b[1]!.toLowerCase() === "true";
    }
  }
  return undefined;
}

/** The keys of a JSON Pointer (RFC 6901): `/reviews/0/rating` → `["reviews", "0", "rating"]`. */
function pointerKeys(pointer: string): string[] {
  return pointer.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The types a `type` error says were expected. */
function expectedTypes(e: ErrorObject): string[] {
  const t = (e.params as { type?: unknown }).type;
  return (Array.isArray(t) ? t : String(t).split(",")).map(String);
}

/**
 * `value` with each string the validator refused where `schema` wants a number, an integer or a boolean, and which
 * is plainly one, replaced by it (see the module comment); `value` itself when nothing was coerced. The root is
 * never coerced: an answer is an object or a list.
 * @example
 * coerceScalars({ type: "object", properties: { price: { type: "number" } } }, { price: "12.99" }); // { price: 12.99 }
 */
export function coerceScalars(schema: Record<string, unknown>, value: unknown): unknown {
  const errors = validationErrors(schema, value).filter((e) => e.keyword === "type" && e.instancePath !== "");
  if (errors.length === 0) return value;
  const out = structuredClone(value);
  let changed = false;
  for (const e of errors) {
    const keys = pointerKeys(e.instancePath);
    let parent: unknown = out;
    for (const k of keys.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[k];
    const last = keys.at(-1)!;
    const current = (parent as Record<string, unknown> | undefined)?.[last];
    // A second error at the same place (another branch of an anyOf) finds it coerced already.
    if (typeof current !== "string") continue;
    const next = coerced(current, expectedTypes(e));
    if (next === undefined) continue;
    (parent as Record<string, unknown>)[last] = next;
    changed = true;
  }
  return changed ? out : value;
}
