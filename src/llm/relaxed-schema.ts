/**
 * @module llm/relaxed-schema
 * The schema one chunk of a long page is checked against. The extraction prompt tells the model to answer `null`
 * (or an empty list) for what the content does not hold (llm/prompts.ts), and one chunk of a page rarely holds
 * every field: checked against the caller's schema, a chunk without the product's name failed the whole scrape with
 * `LLM_INVALID_ANSWER` ("/name must be string"). So each chunk's answer is checked against a relaxed copy — nothing
 * `required`, every subschema also accepts `null`, no minimum counts — which still refuses wrong types, unknown
 * enum values and properties the schema forbids (those get the repair turn). Only the merged answer is compared with
 * the caller's schema (llm/client.ts `extract`).
 */

/** Keywords whose value is one subschema. (`not`, `if` and `propertyNames` are left as they are: relaxing them would invert or widen their meaning.) */
const ONE_SCHEMA = new Set(["items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "contains", "then", "else"]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST = new Set(["anyOf", "oneOf", "allOf", "prefixItems", "items"]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP = new Set(["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"]);
/** Keywords dropped: a chunk may hold none of a list's items or an object's properties. */
const DROPPED = new Set(["required", "minItems", "minProperties", "minContains", "dependentRequired"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `node` made to accept `null` as well. */
function orNull(node: Record<string, unknown>): Record<string, unknown> {
  // A `const` refuses null whatever the type says (zod's z.literal(): `{type: "string", const: "product"}`).
  if ("const" in node && node.const !== null) return { anyOf: [node, { type: "null" }] };
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node = { ...node, enum: [...node.enum, null] };
  if (typeof node.type === "string") return node.type === "null" ? node : { ...node, type: [node.type, "null"] };
  if (Array.isArray(node.type)) return node.type.includes("null") ? node : { ...node, type: [...node.type, "null"] };
  // No `type` of its own (a $ref, anyOf/oneOf, const): null as one more alternative. A schema without any
  // constraint already accepts null.
  if ("$ref" in node || "anyOf" in node || "oneOf" in node || "allOf" in node || "const" in node) return { anyOf: [node, { type: "null" }] };
  return node;
}

function relax(node: unknown): unknown {
  if (!isObject(node)) return node; // `true`/`false` schemas, or values that are not schemas
  return orNull(relaxInside(node));
}

/** `node` with its subschemas relaxed and its own lower bounds dropped, not yet made to accept `null`. */
function relaxInside(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k)) continue;
    if (SCHEMA_MAP.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, relax(s)]));
    else if (SCHEMA_LIST.has(k) && Array.isArray(v)) out[k] = v.map(relax);
    else if (ONE_SCHEMA.has(k)) out[k] = relax(v);
    else out[k] = v;
  }
  return out;
}

/**
 * The relaxed copy of `schema` for one chunk's answer (see the module comment). The root's `$id` is dropped: the
 * validator registers schemas by `$id`, and the copy must not replace the caller's schema under it. The root itself
 * is not made to accept `null` (an answer is always an object or a list): wrapped in `anyOf`, a root `$ref` with its
 * `definitions` beside it (zod-to-json-schema's shape with a `name`) lost them, and every job with it failed.
 */
export function relaxedSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return relaxInside(rest);
}
