/**
 * @module api/issues
 * Maps TypeBox `ValueError`s (from our own checks or from an Elysia `ValidationError`) to zod-shaped issues
 * `{code, path, message, keys?}`. Upstream's 400 `details` is a zod issue list (api-v2.md §3.4), e.g.
 * `{"code":"unrecognized_keys","keys":["only_main_content"],"path":[],"message":"Unrecognized key in body -- …"}`,
 * so clients that read `details` keep working. Paths are arrays (`["formats", 0, "quality"]`), as in zod.
 *
 * TypeBox reports a failed union as one opaque "Expected union value"; {@link issuesFromValueErrors} instead
 * picks the variant the caller evidently meant (by the `type` discriminator, or by JSON type) and reports
 * that variant's errors, so `{type:"screenshot", quality: 0}` says "quality must be ≥ 1", not "invalid union".
 */
import type { TSchema } from "@sinclair/typebox";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";

/** Upstream's message for a key the strict schema does not know. */
export const UNRECOGNIZED_KEY_MESSAGE =
  "Unrecognized key in body -- please review the v2 API documentation for request body changes";

/** The same message as upstream's v1 schemas said it: /v1 answers it in place of /v2's (server/routes/v1.ts). */
export const UNRECOGNIZED_KEY_MESSAGE_V1 =
  "Unrecognized key in body -- please review the v1 API documentation for request body changes";

/** One validation problem, zod-shaped. `code: "custom"` marks a cross-field refinement. */
export interface Issue {
  code: string;
  path: (string | number)[];
  message: string;
  /** For `unrecognized_keys`: the unknown keys of the object at `path`. */
  keys?: string[];
}

/** Splits a TypeBox JSON pointer (`/formats/0/quality`) into zod path segments. */
export function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === "" || pointer === "/") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

function receivedType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function schemaJsonType(s: TSchema): string | undefined {
  if ("const" in s) return receivedType(s["const"]);
  const t = s["type"];
  if (t === "integer") return "number";
  return typeof t === "string" ? t : undefined;
}

function quote(v: unknown): string {
  return typeof v === "string" ? `'${v}'` : JSON.stringify(v);
}

/**
 * Maps TypeBox errors to issues (paths prefixed with `prefix`). Unknown keys of one object are grouped into a
 * single `unrecognized_keys` issue naming them all; a failed union is resolved to the intended variant.
 */
export function issuesFromValueErrors(errors: Iterable<ValueError>, prefix: (string | number)[] = []): Issue[] {
  const out: Issue[] = [];
  const unknownByParent = new Map<string, { path: (string | number)[]; keys: string[] }>();
  const requiredPaths = new Set<string>();
  const list = [...errors];
  for (const e of list) if (e.type === ValueErrorType.ObjectRequiredProperty) requiredPaths.add(e.path);
  for (const e of list) {
    const path = [...prefix, ...pointerToPath(e.path)];
    if (e.type === ValueErrorType.ObjectAdditionalProperties) {
      const parent = path.slice(0, -1);
      const key = JSON.stringify(parent);
      const entry = unknownByParent.get(key) ?? { path: parent, keys: [] };
      entry.keys.push(String(path[path.length - 1]));
      if (!unknownByParent.has(key)) {
        unknownByParent.set(key, entry);
        out.push({ code: "unrecognized_keys", keys: entry.keys, path: parent, message: UNRECOGNIZED_KEY_MESSAGE });
      }
      continue;
    }
    if (e.type !== ValueErrorType.ObjectRequiredProperty && requiredPaths.has(e.path)) continue;
    if (e.type === ValueErrorType.Union) {
      out.push(...issuesFromUnion(e.schema, e.value, path));
      continue;
    }
    out.push(issueFromError(e, path));
  }
  return dedupe(out);
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.code}|${JSON.stringify(i.path)}|${i.message}|${i.keys?.join(",") ?? ""}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The JSON Schema keyword behind an error type, for per-keyword `errorMessages: {maximum: "…"}` overrides. */
const KEYWORD_OF: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.ArrayMaxItems]: "maxItems",
  [ValueErrorType.ArrayMinItems]: "minItems",
  [ValueErrorType.NumberMaximum]: "maximum",
  [ValueErrorType.IntegerMaximum]: "maximum",
  [ValueErrorType.NumberMinimum]: "minimum",
  [ValueErrorType.IntegerMinimum]: "minimum",
  [ValueErrorType.NumberExclusiveMinimum]: "exclusiveMinimum",
  [ValueErrorType.IntegerExclusiveMinimum]: "exclusiveMinimum",
  [ValueErrorType.NumberExclusiveMaximum]: "exclusiveMaximum",
  [ValueErrorType.IntegerExclusiveMaximum]: "exclusiveMaximum",
  [ValueErrorType.StringMaxLength]: "maxLength",
  [ValueErrorType.StringMinLength]: "minLength",
  [ValueErrorType.StringPattern]: "pattern",
};

/**
 * One TypeBox error as a zod-like issue. A schema may carry `errorMessage` (any failure) or
 * `errorMessages: {keyword: message}` to reproduce an upstream message verbatim.
 */
function issueFromError(e: ValueError, path: (string | number)[]): Issue {
  const s = e.schema as TSchema & Record<string, unknown>;
  const perKeyword = (s["errorMessages"] as Record<string, string> | undefined)?.[KEYWORD_OF[e.type] ?? ""];
  const custom = perKeyword ?? (typeof s["errorMessage"] === "string" ? (s["errorMessage"] as string) : undefined);
  const issue = (code: string, message: string): Issue => ({ code, path, message: custom ?? message });
  const T = ValueErrorType;
  switch (e.type) {
    case T.ObjectRequiredProperty:
      return { code: "invalid_type", path, message: "Required" };
    case T.Number:
      // A number too large for a double (1e309 in JSON) arrives as Infinity: "Expected number, received number" said nothing.
      if (typeof e.value === "number") return issue("invalid_type", `Expected a finite number, received ${e.value}`);
      return issue("invalid_type", `Expected number, received ${receivedType(e.value)}`);
    case T.String:
    case T.Boolean:
    case T.Array:
    case T.Object:
    case T.Null:
      return issue("invalid_type", `Expected ${schemaJsonType(s) ?? "value"}, received ${receivedType(e.value)}`);
    case T.Integer:
      if (typeof e.value === "number" && !Number.isFinite(e.value)) return issue("invalid_type", `Expected a finite integer, received ${e.value}`);
      return issue("invalid_type", typeof e.value === "number" ? "Expected integer, received float" : `Expected integer, received ${receivedType(e.value)}`);
    case T.StringMinLength:
      return issue("too_small", `String must contain at least ${s["minLength"]} character(s)`);
    case T.StringMaxLength:
      return issue("too_big", `String must contain at most ${s["maxLength"]} character(s)`);
    case T.NumberMinimum:
    case T.IntegerMinimum:
      return issue("too_small", `Number must be greater than or equal to ${s["minimum"]}`);
    case T.NumberExclusiveMinimum:
    case T.IntegerExclusiveMinimum:
      return issue("too_small", `Number must be greater than ${s["exclusiveMinimum"]}`);
    case T.NumberMaximum:
    case T.IntegerMaximum:
      return issue("too_big", `Number must be less than or equal to ${s["maximum"]}`);
    case T.NumberExclusiveMaximum:
    case T.IntegerExclusiveMaximum:
      return issue("too_big", `Number must be less than ${s["exclusiveMaximum"]}`);
    case T.ArrayMinItems:
      return issue("too_small", `Array must contain at least ${s["minItems"]} element(s)`);
    case T.ArrayMaxItems:
      return issue("too_big", `Array must contain at most ${s["maxItems"]} element(s)`);
    case T.Literal:
      return issue("invalid_literal", `Invalid literal value, expected ${JSON.stringify(s["const"])}`);
    case T.StringPattern:
    case T.StringFormat:
      return issue("invalid_string", "Invalid");
    default:
      return issue("invalid_value", e.message);
  }
}

/** The members of a union, with nested unions (e.g. a string enum inside the formats union) expanded. */
function flattenUnion(schema: TSchema): TSchema[] {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf;
  return anyOf ? anyOf.flatMap(flattenUnion) : [schema];
}

/** Resolves a failed union to the variant the caller meant and reports that variant's errors. */
function issuesFromUnion(schema: TSchema, value: unknown, path: (string | number)[]): Issue[] {
  const variants = flattenUnion(schema);
  const custom = (schema as Record<string, unknown>)["errorMessage"];
  if (typeof custom === "string") return [{ code: "invalid_union", path, message: custom }];
  const literals = variants.filter((v) => "const" in v).map((v) => v["const"] as unknown);
  const typeName = receivedType(value);

  if (typeName === "object" && typeof (value as Record<string, unknown>)["type"] === "string") {
    const discriminated = variants.filter((v) => (v["properties"] as Record<string, TSchema> | undefined)?.["type"]?.["const"] !== undefined);
    if (discriminated.length > 0) {
      const tag = (value as Record<string, unknown>)["type"];
      const match = discriminated.find((v) => (v["properties"] as Record<string, TSchema>)["type"]!["const"] === tag);
      if (!match) {
        const expected = discriminated.map((v) => quote((v["properties"] as Record<string, TSchema>)["type"]!["const"]));
        return [{ code: "invalid_union_discriminator", path: [...path, "type"], message: `Invalid discriminator value. Expected ${expected.join(" | ")}` }];
      }
      return issuesFromValueErrors(Value.Errors(match, value), path);
    }
  }
  const sameType = variants.filter((v) => !("const" in v) && schemaJsonType(v) === typeName);
  if (sameType.length === 1) return issuesFromValueErrors(Value.Errors(sameType[0]!, value), path);
  if (literals.length > 0 && literals.every((l) => receivedType(l) === typeName)) {
    return [{ code: "invalid_enum_value", path, message: `Invalid enum value. Expected ${literals.map(quote).join(" | ")}, received ${quote(value)}` }];
  }
  if (sameType.length === 0 && !literals.some((l) => receivedType(l) === typeName)) {
    const expected = [...new Set(variants.map(schemaJsonType).filter(Boolean))];
    return [{ code: "invalid_type", path, message: `Expected ${expected.join(" | ") || "valid input"}, received ${typeName}` }];
  }
  return [{ code: "invalid_union", path, message: "Invalid input" }];
}

/**
 * Issues from an Elysia `ValidationError` (the `error` that `onError` receives with `code === "VALIDATION"`):
 * it exposes TypeBox errors as `.all` (and the first as `.valueError`). Anything else yields one generic issue.
 */
export function issuesFromValidationError(err: unknown): Issue[] {
  const e = err as { all?: unknown; valueError?: ValueError; message?: string };
  let all: ValueError[] | undefined;
  try {
    all = Array.isArray(e?.all) ? (e.all as ValueError[]) : undefined;
  } catch {
    all = undefined;
  }
  if (all && all.length > 0) return issuesFromValueErrors(all);
  if (e?.valueError) return issuesFromValueErrors([e.valueError]);
  return [{ code: "custom", path: [], message: typeof e?.message === "string" ? e.message : "Bad Request" }];
}
