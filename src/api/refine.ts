/**
 * @module api/refine
 * Cross-field rules that JSON Schema cannot express (upstream's zod `.refine`s and controller checks).
 * Each function takes an already schema-checked, defaulted value and returns zod-shaped `custom` issues;
 * an empty list means the value is fine. They never throw, so callers can collect every problem at once.
 */
import type { Issue } from "./issues.ts";
import type { ScrapeOptionsInput } from "./scrape-options.ts";
import { MAX_ACTIONS, MAX_TOTAL_WAIT_MS, totalWaitMs } from "./actions.ts";
import { countryCode } from "./countries.ts";
import { pathPatternProblem, pathPatternsProblem } from "../crawl/path-pattern.ts";
import { actionSelectorProblem, cssSelectorIssues } from "./css-selector.ts";

type Path = (string | number)[];
const custom = (path: Path, message: string): Issue => ({ code: "custom", path, message });

/** Upstream's waitFor/timeout message. */
export const WAIT_FOR_MESSAGE = "waitFor must not exceed half of timeout";

/** All scrape-option rules: waitFor vs timeout, formats, JSON schemas, actions. `path` locates the options. */
export function refineScrapeOptions(o: ScrapeOptionsInput, path: Path = []): Issue[] {
  const issues: Issue[] = [];
  if (o.timeout !== undefined && o.waitFor !== undefined && o.waitFor > o.timeout / 2) {
    issues.push(custom([...path, "waitFor"], WAIT_FOR_MESSAGE));
  }
  issues.push(...refineFormats(o.formats ?? [], [...path, "formats"]));
  issues.push(...refineActions(o.actions ?? [], o.waitFor ?? 0, [...path, "actions"]));
  issues.push(...refineHeaders(o.headers, [...path, "headers"]));
  issues.push(...refineLocation(o.location, [...path, "location"]));
  issues.push(...cssSelectorIssues(o.includeTags, [...path, "includeTags"]), ...cssSelectorIssues(o.excludeTags, [...path, "excludeTags"]));
  return issues;
}

/** Upstream's message for a `location.country` that is not a country code. */
export const COUNTRY_MESSAGE = "Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code.";

/** `location.country`: a country code (api/countries.ts) or `us-generic`, any case. */
export function refineLocation(location: { country?: string } | undefined, path: Path = ["location"]): Issue[] {
  const c = location?.country;
  if (c === undefined || /^us-generic$/i.test(c) || countryCode(c)) return [];
  return [custom([...path, "country"], COUNTRY_MESSAGE)];
}

/** RFC 9110 §5.1 field name (token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5 field value as fetch accepts it: Latin-1, no NUL, CR or LF. */
const HEADER_VALUE = /^[^\u0000\r\n\u0100-\uffff]*$/;

/**
 * Largest total of custom request headers (names, values, `: ` and CRLF). Web servers refuse heads past 8–16 KiB
 * (431), and the egress proxy's own limit for a request head is 64 KiB: past it a scrape failed as a site error
 * (a 500) instead of this clear 400.
 */
export const MAX_CUSTOM_HEADER_BYTES = 32 * 1024;

/**
 * Header names and values a request can actually carry, within {@link MAX_CUSTOM_HEADER_BYTES} in all. Checked on
 * arrival so a bad header is the client's 400, not a failed fetch (500 SCRAPE_SITE_ERROR) after the job was accepted.
 */
export function refineHeaders(headers: Record<string, string> | undefined, path: Path = ["headers"]): Issue[] {
  const issues: Issue[] = [];
  let bytes = 0;
  for (const [name, value] of Object.entries(headers ?? {})) {
    bytes += name.length + value.length + 4;
    if (!HEADER_NAME.test(name)) issues.push(custom([...path, name], `Invalid header name: ${JSON.stringify(name)}`));
    else if (!HEADER_VALUE.test(value)) {
      issues.push(custom([...path, name], `Invalid value for header ${name}: no line breaks, NUL or characters beyond Latin-1`));
    }
  }
  if (bytes > MAX_CUSTOM_HEADER_BYTES) {
    issues.push(custom(path, `The headers add up to ${bytes} bytes; at most ${MAX_CUSTOM_HEADER_BYTES} are sent (web servers refuse request heads past 8–16 KiB).`));
  }
  return issues;
}

type FormatLike = string | { type: string; schema?: unknown };
const typeOf = (f: FormatLike) => (typeof f === "string" ? f : f.type);

/** At most one screenshot; changeTracking needs markdown; not json with deterministicJson; rawBase64 alone; sane JSON schemas. */
export function refineFormats(formats: readonly FormatLike[], path: Path = ["formats"]): Issue[] {
  const issues: Issue[] = [];
  const types = formats.map(typeOf);
  const has = (t: string) => types.includes(t);
  if (types.filter((t) => t === "screenshot").length > 1) {
    issues.push(custom(path, "You may only specify one screenshot format"));
  }
  if (has("changeTracking") && !has("markdown")) {
    issues.push(custom(path, "The changeTracking format requires the markdown format to be specified as well"));
  }
  if (has("json") && has("deterministicJson")) {
    issues.push(custom(path, "You may not specify both the json and deterministicJson formats"));
  }
  if (has("rawBase64") && formats.length > 1) {
    issues.push(custom(path, "The rawBase64 format must be the only format requested"));
  }
  formats.forEach((f, i) => {
    if (typeof f === "object" && f.schema !== undefined) {
      const bad = findOpenObjectSchema(f.schema, []);
      if (bad) issues.push(custom([...path, i, "schema", ...bad], OPEN_OBJECT_SCHEMA_MESSAGE));
    }
  });
  return issues;
}

/** Why an open object schema is refused: structured-output LLM backends cannot fill a property-less free-form object. */
export const OPEN_OBJECT_SCHEMA_MESSAGE =
  'Invalid JSON schema: an object with "additionalProperties": true must also define "properties"';

/** Returns the path of the first `{type:"object", additionalProperties:true}` without properties, or undefined. */
export function findOpenObjectSchema(schema: unknown, at: Path, depth = 0): Path | undefined {
  if (depth > 64 || typeof schema !== "object" || schema === null) return undefined;
  if (Array.isArray(schema)) {
    for (let i = 0; i < schema.length; i++) {
      const r = findOpenObjectSchema(schema[i], [...at, i], depth + 1);
      if (r) return r;
    }
    return undefined;
  }
  const s = schema as Record<string, unknown>;
  const isObject = s["type"] === "object" || (Array.isArray(s["type"]) && s["type"].includes("object"));
  const props = s["properties"];
  const noProps = props === undefined || (typeof props === "object" && props !== null && Object.keys(props).length === 0);
  if (isObject && s["additionalProperties"] === true && noProps) return at;
  for (const [k, v] of Object.entries(s)) {
    if (k === "const" || k === "default" || k === "enum" || k === "examples") continue;
    const r = findOpenObjectSchema(v, [...at, k], depth + 1);
    if (r) return r;
  }
  return undefined;
}

type ActionLike = { type: string; milliseconds?: number; selector?: string };

/**
 * ≤ 50 actions; wait = milliseconds XOR selector; waitFor + waits (selector wait = 1 s) ≤ 60 s; each `selector` a CSS
 * selector (not Puppeteer's query syntax; a scroll's empty one means the page, as no selector).
 */
export function refineActions(actions: readonly ActionLike[], waitForMs = 0, path: Path = ["actions"]): Issue[] {
  const issues: Issue[] = [];
  if (actions.length > MAX_ACTIONS) issues.push(custom(path, `Number of actions cannot exceed ${MAX_ACTIONS}`));
  actions.forEach((a, i) => {
    if (a.selector !== undefined && !(a.type === "scroll" && a.selector === "")) {
      const problem = actionSelectorProblem(a.selector);
      if (problem !== undefined) issues.push(custom([...path, i, "selector"], problem));
    }
    if (a.type !== "wait") return;
    const hasMs = a.milliseconds !== undefined;
    const hasSel = a.selector !== undefined;
    if (hasMs === hasSel) {
      issues.push(custom([...path, i], "Either 'milliseconds' or 'selector' must be provided, but not both"));
    }
  });
  if (totalWaitMs(waitForMs, actions) > MAX_TOTAL_WAIT_MS) {
    issues.push(custom(path, `Total wait time (waitFor + wait actions) cannot exceed ${MAX_TOTAL_WAIT_MS / 1000} seconds`));
  }
  return issues;
}

/**
 * Each crawl include/exclude pattern must compile as a JavaScript RegExp, as upstream's controller asks (the message is
 * the RegExp error's), or as the RE2 pattern it is matched as; and must not be too large for that matcher (a program
 * or a repetition past its bounds: "Pattern too complex"; crawl/path-pattern.ts).
 */
export function refinePathPatterns(o: { includePaths?: readonly string[]; excludePaths?: readonly string[] }, path: Path = []): Issue[] {
  const issues: Issue[] = [];
  for (const key of ["includePaths", "excludePaths"] as const) {
    (o[key] ?? []).forEach((p, i) => {
      const problem = pathPatternProblem(p);
      if (problem !== undefined) issues.push(custom([...path, key, i], problem));
    });
  }
  if (issues.length === 0) {
    const together = pathPatternsProblem([...(o.includePaths ?? []), ...(o.excludePaths ?? [])]);
    if (together !== undefined) issues.push(custom([...path, "includePaths"], together));
  }
  return issues;
}

/** Search: includeDomains and excludeDomains are mutually exclusive; `developer` and `gov` cannot be combined with other categories. */
export function refineSearch(o: { includeDomains?: readonly string[]; excludeDomains?: readonly string[]; categories?: readonly (string | { type: string })[] }): Issue[] {
  const issues: Issue[] = [];
  if ((o.includeDomains?.length ?? 0) > 0 && (o.excludeDomains?.length ?? 0) > 0) {
    issues.push(custom(["includeDomains"], "includeDomains and excludeDomains cannot both be specified"));
  }
  const cats = (o.categories ?? []).map((c) => (typeof c === "string" ? c : c.type));
  for (const alone of ["developer", "gov"]) {
    if (cats.includes(alone) && cats.length > 1) issues.push(custom(["categories"], `The ${alone} category cannot be combined with other categories`));
  }
  return issues;
}

/** Extract: either `urls` or `prompt` is required. */
export function refineExtract(o: { urls?: readonly string[]; prompt?: string }): Issue[] {
  if ((o.urls?.length ?? 0) > 0 || (o.prompt !== undefined && o.prompt.length > 0)) return [];
  return [custom([], "Either 'urls' or 'prompt' must be provided.")];
}
