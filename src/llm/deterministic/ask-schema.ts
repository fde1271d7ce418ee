/**
 * @module llm/deterministic/ask-schema
 * The schemas an extractor may give `askLlm(prompt, schema)` (llm/deterministic/sandbox.ts), and the check of the
 * model's answer against one. The extractor's code came from a model that read the page, so its schemas are not
 * handed to Ajv (llm/schema.ts): a `pattern` would run the page's regular expression in crawlbox's process, and every
 * compiled schema stays in Ajv's registry. Instead a small subset is accepted (`type`, `properties`, `required`,
 * `items`, `enum`, `additionalProperties` as a boolean, `description`, `title`), at most {@link ASK_SCHEMA_MAX_CHARS}
 * characters and {@link ASK_SCHEMA_MAX_DEPTH} levels, and answers are checked by the few lines below.
 */

/** Largest schema (as JSON) an extractor may give `askLlm`. */
export const ASK_SCHEMA_MAX_CHARS = 16_000;
/** Deepest nesting of such a schema. */
export const ASK_SCHEMA_MAX_DEPTH = 8;

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const KEYWORDS = new Set(["type", "properties", "required", "items", "enum", "additionalProperties", "description", "title"]);

type Schema = Record<string, unknown>;

/** Returns `schema` if it is in the accepted subset; throws an Error saying what is not. */
export function checkAskSchema(schema: unknown, depth = 0): Schema {
  if (depth === 0 && JSON.stringify(schema).length > ASK_SCHEMA_MAX_CHARS) throw new Error(`askLlm's schema is larger than ${ASK_SCHEMA_MAX_CHARS} characters`);
  if (depth > ASK_SCHEMA_MAX_DEPTH) throw new Error(`askLlm's schema is nested deeper than ${ASK_SCHEMA_MAX_DEPTH} levels`);
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw new Error("askLlm's schema must be an object");
  const s = schema as Schema;
  for (const k of Object.keys(s)) if (!KEYWORDS.has(k)) throw new Error(`askLlm's schema may use only ${[...KEYWORDS].join(", ")} (not ${k.slice(0, 40)})`);
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  for (const t of types) if (typeof t !== "string" || !TYPES.has(t)) throw new Error("askLlm's schema has an unknown type");
  if (s.properties !== undefined) {
    if (typeof s.properties !== "object" || s.properties === null || Array.isArray(s.properties)) throw new Error("askLlm's schema: properties must be an object");
    for (const v of Object.values(s.properties)) checkAskSchema(v, depth + 1);
  }
  if (s.items !== undefined) checkAskSchema(s.items, depth + 1);
  if (s.required !== undefined && (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string"))) throw new Error("askLlm's schema: required must list names");
  if (s.enum !== undefined && !Array.isArray(s.enum)) throw new Error("askLlm's schema: enum must be a list");
  if (s.additionalProperties !== undefined && typeof s.additionalProperties !== "boolean") throw new Error("askLlm's schema: additionalProperties must be true or false");
  return s;
}

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);

/** Whether `value` matches `schema` (one of {@link checkAskSchema}'s). */
export function matchesAskSchema(schema: Schema, value: unknown): boolean {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const t = typeOf(value);
  if (types.length > 0 && !types.some((want) => want === t || (want === "number" && t === "integer"))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return false;
  if (t === "object") {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in obj)) return false;
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) {
        if (!matchesAskSchema(props[k]!, v)) return false;
      } else if (schema.additionalProperties === false) return false;
    }
  }
  if (t === "array" && schema.items) return (value as unknown[]).every((v) => matchesAskSchema(schema.items as Schema, v));
  return true;
}
