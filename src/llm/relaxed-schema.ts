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
import type { ErrorObject } from "ajv";
import { describeError } from "./schema.ts";

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

/**
 * Whether {@link orNull} accepts `null` for `node` by wrapping it (`{anyOf: [node, {type: "null"}]}`) rather than by
 * adding `"null"` to its `type`: a non-null `const` (which refuses null whatever the type says: zod's z.literal(),
 * `{type: "string", const: "product"}`), or no `type` of its own (a $ref, anyOf/oneOf/allOf, const).
 */
function wrapsForNull(node: Record<string, unknown>): boolean {
  if ("const" in node && node.const !== null) return true;
  return node.type === undefined && ("$ref" in node || "anyOf" in node || "oneOf" in node || "allOf" in node || "const" in node);
}

/** `node` made to accept `null` as well. */
function orNull(node: Record<string, unknown>): Record<string, unknown> {
  if (wrapsForNull(node)) {
    if (!("const" in node && node.const !== null) && Array.isArray(node.enum) && !node.enum.includes(null)) node = { ...node, enum: [...node.enum, null] };
    return { anyOf: [node, { type: "null" }] };
  }
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node = { ...node, enum: [...node.enum, null] };
  if (typeof node.type === "string") return node.type === "null" ? node : { ...node, type: [node.type, "null"] };
  if (Array.isArray(node.type)) return node.type.includes("null") ? node : { ...node, type: [...node.type, "null"] };
  // A schema without any constraint already accepts null.
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

/** A `schemaPath` segment percent-decoded; one that is not valid percent-encoding as it is. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What the schema node at a validator error's `schemaPath` is in the caller's schema. */
type CallerNode = { node: Record<string, unknown> } | "added by the relaxation" | "unknown";

/**
 * The node of the caller's schema whose keyword a validator error of its relaxed copy names (`schemaPath`): the
 * relaxed copy has the caller's shape, except the `anyOf` wrappers {@link orNull} added, which the walk steps over;
 * "added by the relaxation" for an error of the wrapper itself or of its `null` branch (they only say the value is
 * not null).
 */
function callerNodeAt(schemaPath: string, caller: Record<string, unknown>): CallerNode {
  // A JSON pointer in a URI fragment: percent-encoded (Ajv writes `product%20name`), then `~1` and `~0` escaped.
  const keys = schemaPath.replace(/^#\/?/, "").split("/").filter((k) => k !== "").map((k) => decodedSegment(k).replace(/~1/g, "/").replace(/~0/g, "~"));
  const keyword = keys.length - 1;
  let c: unknown = caller;
  /** Whether `c` is a schema (not a map or a list of them). */
  let isSchema = true;
  /** Whether `c` may have been wrapped: any schema but the root (relaxedSchema leaves the root as it is). */
  let wrapped = false;
  for (let i = 0; ; ) {
    if (wrapped && isObject(c) && wrapsForNull(c)) {
      if (i === keyword || keys[i] !== "anyOf" || keys[i + 1] !== "0") return "added by the relaxation";
      i += 2;
    }
    if (i >= keyword) return isObject(c) ? { node: c } : "unknown";
    const k = keys[i]!;
    const next: unknown = isObject(c) ? c[k] : Array.isArray(c) ? c[Number(k)] : undefined;
    if (next === undefined) return "unknown";
    if (!isSchema) isSchema = true;
    else if (SCHEMA_MAP.has(k) || (SCHEMA_LIST.has(k) && Array.isArray(next))) isSchema = false;
    else if (!ONE_SCHEMA.has(k)) return "unknown";
    wrapped = isSchema;
    c = next;
    i++;
  }
}

/**
 * The problems of an answer checked against the relaxed copy of `caller` (`errors`), worded in the caller's
 * schema: "/price must be number", not the relaxed "/price must be number,null" (whose `null` is crawlbox's, for a
 * part of a long page, not a type the caller asked for), and without the errors of the `null` alternatives the
 * relaxation added. For the error a client reads; a repair turn quotes the relaxed wording (null is an answer
 * the model may give).
 * @example
 * // caller {properties: {price: {type: "number"}}}, answer {price: "cheap"}:
 * problemsInCallerTerms(validationErrors(relaxedSchema(caller), answer), caller); // ["/price must be number"]
 */
export function problemsInCallerTerms(errors: readonly ErrorObject[], caller: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const at = callerNodeAt(e.schemaPath, caller);
    if (at === "added by the relaxation") continue;
    const type = at === "unknown" ? undefined : at.node.type;
    out.push(e.keyword === "type" && type !== undefined ? describeError(e, `must be ${[type].flat().join(",")}`) : describeError(e));
  }
  return out.length > 0 ? out : errors.map((e) => describeError(e));
}
