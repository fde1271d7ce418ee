/**
 * @module llm/schema
 * JSON Schema handling for structured output: the request's schema is compiled when the request arrives (a bad
 * schema is a 400 with the reason, before anything is fetched), and model answers are validated against it.
 * Ajv (draft-07 and 2019/2020 keywords it knows) is the validator, as upstream uses.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import { RE2JS } from "re2js";
import { BadRequestError } from "../errors.ts";
import { balancedJsonSpans } from "./json-spans.ts";

/**
 * The engine of a schema's `pattern`, `patternProperties` and `propertyNames` patterns: RE2, which cannot backtrack.
 * Ajv's default, JavaScript's RegExp, let a caller's pattern such as `^(a+)+$` take ~0.3 s per string of a model's
 * answer on the main thread (20 strings: 6 s, every other request waiting). A pattern RE2 cannot compile (a
 * lookaround, a backreference) keeps RegExp, unless it also repeats a group ({@link REPEATED_GROUP}): with one
 * lookaround added, `^(?=a)(a+)+$` took 1.5 s for 5 strings of 28 characters, doubling with each character.
 */
const safeRegExp = Object.assign(
  (pattern: string, flags: string): { test(s: string): boolean; toString(): string } => {
    try {
      const re = RE2JS.compile(pattern);
      // Ajv keys its compiled patterns by toString(): each must name its own pattern, as a RegExp's does.
      return { test: (s) => re.test(s), toString: () => `/${pattern}/${flags}` };
    } catch {
      if (REPEATED_GROUP.test(pattern)) {
        throw new Error(`pattern ${JSON.stringify(pattern)} needs backtracking (a look-around or back-reference) and repeats a group, which can take exponential time; crawlbox refuses the combination (write it without the look-around, or without repeating a group)`);
      }
      return new RegExp(pattern, flags);
    }
  },
  { code: "safeRegExp" },
);

/** A group repeated without a small bound: `(…)*`, `(…)+`, `(…){n,}`, `(…){n,m}`. */
const REPEATED_GROUP = /\)(?:[*+]|\{\d*,\d*\})/;

/**
 * Compiled validators by schema text, so a crawl's pages reuse one compilation. Ajv also keeps every schema it
 * compiled (by its `$id` too): an entry leaving this cache leaves Ajv's registry with it, or the process would keep
 * every schema ever sent.
 */
const MAX_CACHED = 128;
const cache = new Map<string, { fn: ValidateFunction; body: Record<string, unknown> }>();

function newAjv(): Ajv {
  // strict: false tolerates unknown keywords clients add (title, examples, x-*); allErrors for repair hints.
  return new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp: safeRegExp } });
}
const ajv = newAjv();

/** One validator error as the text a repair turn or an error quotes: where, and what is wrong. */
export function describeError(e: ErrorObject, message = e.message ?? "is invalid"): string {
  return `${e.instancePath || "(root)"} ${message}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => describeError(e));
}

/**
 * Compiles `schema`, or throws a 400 `BadRequestError` whose message says why it is not a usable JSON Schema.
 * `path` locates the schema in the request for the error details.
 */
export function compileSchema(schema: Record<string, unknown>, path: (string | number)[] = ["schema"]): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit.fn;
  let fn: ValidateFunction;
  // `$schema` only names a draft; clients send draft-07 and 2020-12 alike, and the keywords they use are shared.
  const { $schema: _draft, ...body } = schema;
  // Another schema with the same `$id` (an earlier version of this one, another key's) must not make this one a
  // "schema with key or id already exists" 400: the newest takes the id.
  if (typeof body.$id === "string" && ajv.getSchema(body.$id)) ajv.removeSchema(body.$id);
  try {
    if (!ajv.validateSchema(body)) throw new Error(describe(ajv.errors).join("; "));
    fn = ajv.compile(body);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BadRequestError(`Invalid JSON schema: ${reason}`, [{ code: "custom", path, message: `Invalid JSON schema: ${reason}` }]);
  }
  if (cache.size >= MAX_CACHED) {
    const [oldest, entry] = cache.entries().next().value!;
    cache.delete(oldest);
    try {
      ajv.removeSchema(entry.body);
    } catch {
      // already replaced under its $id
    }
  }
  cache.set(key, { fn, body });
  return fn;
}

/** A JSON Schema property the model may answer with `null` (when the page does not say). */
export const nullable = (type: string) => ({ type: [type, "null"] });

/** Largest request schema accepted (its JSON), extract's and the agent's: it is stored with the job and sent with every LLM call. */
export const MAX_SCHEMA_BYTES = 256 * 1024;

/**
 * Checks a request's schema before any work is queued: over {@link MAX_SCHEMA_BYTES} or not a usable JSON Schema is
 * a 400 now, not a job that fails after pages were charged (api-v2.md §2.8).
 */
export function assertRequestSchema(schema: Record<string, unknown> | undefined): void {
  if (!schema) return;
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw new BadRequestError(`The schema is larger than ${MAX_SCHEMA_BYTES} bytes.`);
  compileSchema(schema);
}

/** Validates `value` against `schema`; returns readable problems, empty when valid. */
export function validateAgainst(schema: Record<string, unknown>, value: unknown): string[] {
  return describe(validationErrors(schema, value));
}

/** The validator's errors for `value` against `schema` (all of them), empty when valid: for callers that word them. */
export function validationErrors(schema: Record<string, unknown>, value: unknown): ErrorObject[] {
  const fn = compileSchema(schema);
  return fn(value) ? [] : [...(fn.errors ?? [])];
}

/**
 * Deepest nesting of arrays and objects accepted in a model's answer (or an extractor's result): deeper JSON parses,
 * but writing it back (the response, the stored result) overflows the engine's stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `max` (walked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** Result of reading a model's text as JSON. */
export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Reads a model answer as JSON. Models often wrap JSON in a Markdown fence or add a sentence around it; tried in
 * turn: the plain text, the first fenced block, the outermost `{…}`/`[…]` span, then the balanced `{…}`/`[…]`
 * values from the start (llm/json-spans.ts), so that prose with brackets of its own after or around the JSON
 * (`{"a":1} I hope this helps {if}`) does not hide it. Of the balanced values, the first `accept` takes wins (a
 * citation's `[1]` before the answer parses too, but is not an object the schema wants), else the first that
 * parses.
 */
export function parseJsonAnswer(text: string, accept: (value: unknown) => boolean = () => true): ParsedAnswer {
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const start = text.search(/[{[]/);
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  for (const c of [text.trim(), fence?.[1]?.trim() ?? "", start >= 0 && end > start ? text.slice(start, end + 1) : ""]) {
    const parsed = c === "" ? undefined : parsedJson(c);
    if (parsed) return parsed;
  }
  let first: ParsedAnswer | undefined;
  for (const span of balancedJsonSpans(text)) {
    const parsed = parsedJson(span);
    if (parsed && (!parsed.ok || accept(parsed.value))) return parsed;
    first ??= parsed;
  }
  return first ?? { ok: false, problem: text.trim() === "" ? "the answer was empty" : "the answer is not valid JSON" };
}

/** `text` parsed, refused when nested too deep; undefined when it is not JSON. */
function parsedJson(text: string): ParsedAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, problem: `the answer nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}
