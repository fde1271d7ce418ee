/**
 * @module llm/deterministic/ask-schema
 * The schemas an extractor may give `askLlm(prompt, schema)` (llm/deterministic/sandbox.ts), and the check of the
 * model's answer against one. The extractor's code came from a model that read the page, so its schemas are not
 * handed to Ajv (llm/schema.ts): a `pattern` would run the page's regular expression in crawlbox's process, and every
 * compiled schema stays in Ajv's registry. Instead a small subset is accepted (`type`, `properties`, `required`,
 * `items`, `enum`, `additionalProperties` as a boolean, `description` and `title` as strings), at most
 * {@link ASK_SCHEMA_MAX_CHARS} characters and {@link ASK_SCHEMA_MAX_DEPTH} levels, and answers are checked by the few
 * lines below.
 */
import { uniqueKey, type KeyNames } from "../../redact/json-strings.ts";

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
  // Text, as JSON Schema has them: a list or an object there would carry the page's text past the redaction's reach.
  for (const k of ["description", "title"]) if (s[k] !== undefined && typeof s[k] !== "string") throw new Error(`askLlm's schema: ${k} must be a string`);
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

/**
 * Redacts values (in order, as many as given), as `redactPII` asks: a string's text, a number whose digits are PII
 * (it becomes the redacted string), and every string, number and key inside an array or object
 * (redact/json-strings.ts).
 */
export type RedactAskTexts = (values: unknown[]) => Promise<unknown[]>;

/**
 * The page's texts an `askLlm` schema may carry, in {@link rebuildSchema}'s order: `title`, `description` (strings:
 * {@link checkAskSchema} refuses others), each `enum` as a whole (its members may be any JSON, `{name, email}`
 * objects too), property names (each before its schema), `required`'s names. The extractor builds its schema from
 * the DOM (`{enum: the addresses on the page}`), so with `redactPII` these are redacted as its prompt is.
 */
function collectTexts(s: Schema, out: unknown[]): void {
  if (typeof s.title === "string") out.push(s.title);
  if (typeof s.description === "string") out.push(s.description);
  if (Array.isArray(s.enum)) out.push(s.enum);
  if (s.properties) {
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      out.push(name);
      collectTexts(sub, out);
    }
  }
  if (s.items) collectTexts(s.items as Schema, out);
  if (Array.isArray(s.required)) for (const r of s.required) out.push(r as string);
}

const typesOf = (s: Schema): unknown[] => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]);

/**
 * An `enum` as redacted. Members redacted alike are one choice. A number whose digits are PII became the redacted
 * string (`"<FINANCIAL>"`), as in a redacted `json`: the schema's `type` then takes `string` too, or no answer could
 * be that choice (`{type: "integer", enum: [4111111111111111]}` would match nothing).
 */
function rebuildEnum(s: Schema, out: Schema, redacted: unknown[]): void {
  const seen = new Set<string>();
  out.enum = redacted.filter((v) => {
    const key = JSON.stringify(v);
    return !seen.has(key) && !!seen.add(key);
  });
  const types = typesOf(s);
  const becameText = (s.enum as unknown[]).some((e, i) => typeof e === "number" && typeof redacted[i] === "string");
  if (becameText && types.length > 0 && !types.includes("string")) out.type = [...types, "string"];
}

/** `s` with {@link collectTexts}' values replaced by `next()`'s, in the same order. */
function rebuildSchema(s: Schema, next: () => unknown): Schema {
  const out: Schema = { ...s };
  if (typeof s.title === "string") out.title = next();
  if (typeof s.description === "string") out.description = next();
  if (Array.isArray(s.enum)) rebuildEnum(s, out, next() as unknown[]);
  // A property's new name, for `required`; two names redacted alike are both kept (the later one suffixed).
  const names = new Map<string, string>();
  if (s.properties) {
    // Suffixed as a redacted JSON value's keys are (linear: from ` (2)` each time, 1,003 names took 504,513 lookups).
    const given: KeyNames = { taken: new Set(), nextSuffix: new Map() };
    const props: [string, Schema][] = [];
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      const renamed = uniqueKey(next() as string, given);
      names.set(name, renamed);
      props.push([renamed, rebuildSchema(sub, next)]);
    }
    out.properties = Object.fromEntries(props);
  }
  if (s.items) out.items = rebuildSchema(s.items as Schema, next);
  if (Array.isArray(s.required)) {
    out.required = [
      ...new Set(
        s.required.map((r) => {
          const own = next() as string;
          return names.get(r as string) ?? own;
        }),
      ),
    ];
  }
  return out;
}

/**
 * An `askLlm` prompt and schema with the page's texts redacted, in one redaction: what the model is sent under
 * `redactPII`. The answer is then checked against the redacted schema, so an `enum` choice comes back redacted
 * (`"<EMAIL>"`), and so do property names that held PII.
 */
export async function redactAsk(prompt: string, schema: Schema | undefined, redact: RedactAskTexts): Promise<{ prompt: string; schema: Schema | undefined }> {
  const texts: unknown[] = [prompt];
  if (schema) collectTexts(schema, texts);
  const redacted = await redact(texts);
  if (redacted.length !== texts.length) throw new TypeError("askLlm's redaction gave back another number of texts");
  let i = 1;
  return { prompt: redacted[0] as string, schema: schema && rebuildSchema(schema, () => redacted[i++]) };
}
