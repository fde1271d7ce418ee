/**
 * @module api/validate
 * Turns a raw JSON body into a typed, defaulted value or a {@link BadRequestError} whose `details` are
 * zod-shaped issues (`{code, path, message, keys?}`), because that is what upstream's 400 carries
 * (api-v2.md §3.4) and what SDK users already parse.
 *
 * Why not rely on Elysia's own `body:` validation (checked in test/api/elysia-behaviour.test.ts, Elysia 1.4.30):
 * - With the default `normalize: true` Elysia runs TypeBox `Clean` first, so unknown keys are **silently
 *   removed even when the schema says `additionalProperties: false`**: the strict /v2 contract is lost.
 * - With `new Elysia({ normalize: false })` unknown keys are rejected, defaults are applied, and `onError`
 *   receives a `ValidationError` (`code === "VALIDATION"`, `status` 422) whose `.all` lists TypeBox
 *   `ValueError`s; {@link issuesFromValidationError} maps those.
 * - Either way Elysia's `t.Integer` is itself a `numeric-string | integer` union (it coerces `"7"` to `7`;
 *   zod upstream does not; the models therefore use TypeBox's `Type.Integer` via `Int`), its union errors read
 *   "Expected union value", and it cannot run the cross-field refinements or the URL rules. So the route handlers should call the `parseXxxBody` functions
 *   (which use {@link validateBody}) on the raw body, and use the schemas in `body:` only for the OpenAPI
 *   document, if at all (`{ normalize: false }` then avoids a second, lossy pass).
 *
 * One TypeBox instance: Elysia 1.4.30 depends on `@sinclair/typebox >=0.34 <1`, which resolves to the same
 * `node_modules/@sinclair/typebox` (0.34.x) as ours, so `t.*` schemas and `TypeCompiler` agree on `Kind`.
 */
import type { TSchema, Static } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { BadRequestError } from "../errors.ts";
import { issuesFromValueErrors, type Issue } from "./issues.ts";

export type { Issue } from "./issues.ts";
export { issuesFromValueErrors, issuesFromValidationError, UNRECOGNIZED_KEY_MESSAGE } from "./issues.ts";
import { UNRECOGNIZED_KEY_MESSAGE } from "./issues.ts";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Compiles once per schema object; the compiled checker is reused for every request. */
function checkerFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c as TypeCheck<T>;
}

/** Result of {@link checkBody}: the defaulted value, or the issues found. Never throws. */
export type CheckResult<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Clones `value`, drops internal `__*` keys (api-v2.md §2.2 "accept and ignore"), applies schema defaults and
 * checks it. No type conversion: a JSON body already has JSON types, and upstream's zod rejects `"7"` for a
 * number, so we do too. (Query strings are handled by the query models, which take strings.)
 */
export function checkBody<T extends TSchema>(schema: T, value: unknown): CheckResult<Static<T>> {
  const checker = checkerFor(schema);
  const v = stripInternalKeys(Value.Clone(value));
  // Before defaults: TypeBox fills an array field that has a default by assigning the given value onto the default
  // array, so an object there (`parsers: {pdf: false}`, `formats: {type: "html"}`) became the default list and was
  // accepted (a PDF the caller asked not to parse was parsed and charged per page).
  const notArrays = objectsForDefaultedArrays(schema, v, []);
  if (notArrays.length > 0) return { ok: false, issues: notArrays };
  const defaulted = Value.Default(schema, v);
  if (checker.Check(defaulted)) return { ok: true, value: defaulted as Static<T> };
  return { ok: false, issues: issuesFromValueErrors(checker.Errors(defaulted)) };
}

/** Fields of `value` whose schema is an array with a default but whose value is something else, as issues. */
function objectsForDefaultedArrays(schema: TSchema, value: unknown, path: (string | number)[]): Issue[] {
  const s = schema as { type?: unknown; properties?: Record<string, TSchema>; items?: TSchema; default?: unknown };
  if (s.type === "array" && s.default !== undefined && value !== undefined && !Array.isArray(value)) {
    return [{ code: "invalid_type", path, message: `Expected array, received ${value === null ? "null" : typeof value}` }];
  }
  const issues: Issue[] = [];
  if (s.type === "object" && s.properties && value !== null && typeof value === "object" && !Array.isArray(value)) {
    // The keys the body has, not every property of the schema: this runs on every request.
    for (const [key, v] of Object.entries(value)) {
      const sub = s.properties[key];
      if (sub) issues.push(...objectsForDefaultedArrays(sub, v, [...path, key]));
    }
  } else if (s.type === "array" && s.items && (s.items.type === "object" || s.items.type === "array") && Array.isArray(value)) {
    // Only objects and arrays can hold one (a batch's 100,000 URL strings need no look).
    value.forEach((item, i) => issues.push(...objectsForDefaultedArrays(s.items!, item, [...path, i])));
  }
  return issues;
}

/**
 * Validates a request body against a schema, applying defaults. Throws {@link BadRequestError} (400,
 * `BAD_REQUEST`) with zod-shaped `details` when it does not fit. Cross-field rules are not checked here;
 * the `parseXxxBody` functions add them.
 */
export function validateBody<T extends TSchema>(schema: T, value: unknown): Static<T> {
  const r = checkBody(schema, value);
  if (!r.ok) throw badRequest(r.issues);
  return r.value;
}

/**
 * The 400 for a list of issues, with upstream's choice of top-level message: the unknown-key message when
 * any key was unrecognised, else the first issue's message when it is a refinement (`custom`), else
 * "Bad Request".
 */
export function badRequest(issues: Issue[]): BadRequestError {
  const message = issues.some((i) => i.code === "unrecognized_keys")
    ? UNRECOGNIZED_KEY_MESSAGE
    : issues[0]?.code === "custom"
      ? issues[0].message
      : "Bad Request";
  return new BadRequestError(message, issues);
}

/** Throws {@link badRequest} when `issues` is non-empty. */
export function throwIfIssues(issues: Issue[]): void {
  if (issues.length > 0) throw badRequest(issues);
}

/**
 * Internal upstream fields (`__experimental_*`, `__searchPreviewToken`, `__forceFirePDF`, `__agentInterop`, …)
 * are accepted and ignored: removed from the top level and from a nested `scrapeOptions` before checking,
 * so they neither fail the strict check nor reach the service layer.
 */
export function stripInternalKeys<V>(value: V): V {
  if (!isPlainObject(value)) return value;
  for (const k of Object.keys(value)) if (k.startsWith("__")) delete value[k];
  const so = value["scrapeOptions"];
  if (isPlainObject(so)) for (const k of Object.keys(so)) if (k.startsWith("__")) delete so[k];
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
