/**
 * @module config-readers
 * The value readers `loadConfig` (config.ts) builds the {@link Config} from: each takes the name of one environment
 * variable and its default, parses the string (booleans, bounded integers, http(s) URLs, upstream proxies, the proxy
 * per country, CORS origins, the LLM provider) and, when it is invalid, records a problem and returns the default, so
 * that `loadConfig` can report every bad value at once. Kept apart from config.ts because they are generic parsing,
 * independent of which setting they serve. They do not read the environment themselves: every reader is handed the
 * `env` record `loadConfig` was given (a {@link Reader}), so config.ts stays the only module that reads
 * `process.env`.
 */
import type { Config } from "./config-fields.ts";
import { parseUpstreamProxy } from "./egress/chain.ts";

/** An environment as `loadConfig` receives it (`process.env` by default, a plain record in tests). */
export type Env = Record<string, string | undefined>;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** What every reader is handed: the environment `loadConfig` was given and the problems found so far. */
export interface Reader {
  env: Env;
  problems: string[];
}

/** `name`'s value, trimmed; `def` when it is unset or empty. */
export function str(r: Reader, name: string, def: string): string {
  const v = r.env[name];
  return v === undefined || v === "" ? def : v.trim();
}

/** `name` as a boolean (1/true/yes/on or 0/false/no/off, any case); `def` when unset or invalid. */
export function bool(r: Reader, name: string, def: boolean): boolean {
  const v = r.env[name];
  if (v === undefined || v === "") return def;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  r.problems.push(`${name} must be true or false, got "${v}"`);
  return def;
}

/** `name` as a decimal integer from `min` to `max`; `def` when unset or invalid. */
export function int(r: Reader, name: string, def: number, min: number, max: number): number {
  const v = r.env[name];
  if (v === undefined || v === "") return def;
  // Decimal digits only: Number() would also take "0x10", "1e4" and "0b11", which nobody means in a setting.
  const n = /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    r.problems.push(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
    return def;
  }
  return n;
}

/**
 * `name` as an absolute http(s) URL without trailing slashes (a base URL), or as written with `asWritten` (a URL
 * something is sent to, where `/hook/` and `/hook` may differ); `def` when unset or invalid.
 */
export function url(r: Reader, name: string, def: string, asWritten = false): string {
  const v = str(r, name, def);
  if (v === "") return v;
  try {
    const u = new URL(v);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
    return asWritten ? v : v.replace(/\/+$/, "");
  } catch {
    r.problems.push(`${name} must be an absolute http(s) URL, got "${v}"`);
    return def;
  }
}

/** An upstream proxy URL (validated by the gate's own parser; messages never show the password). */
export function proxyUrl(r: Reader, name: string): string {
  const v = str(r, name, "");
  if (v === "") return v;
  try {
    parseUpstreamProxy(v);
    return v;
  } catch (err) {
    r.problems.push(`${name}: ${(err as Error).message}`);
    return "";
  }
}

/** `CRAWLBOX_PROXY_COUNTRIES="de=http://…,jp=http://…"`: country → upstream proxy URL. */
export function proxyCountries(r: Reader): Record<string, string> {
  const name = "CRAWLBOX_PROXY_COUNTRIES";
  const out: Record<string, string> = {};
  for (const [i, entry] of str(r, name, "").split(",").entries()) {
    const e = entry.trim();
    if (e === "") continue;
    const eq = e.indexOf("=");
    const country = (eq < 0 ? e : e.slice(0, eq)).trim().toUpperCase();
    const url = eq < 0 ? "" : e.slice(eq + 1).trim();
    if (!/^[A-Z]{2}$/.test(country) || url === "") {
      // Entry number, not the text: a malformed entry may still hold a password.
      r.problems.push(`${name} entry ${i + 1} must be <two-letter country>=<http proxy URL>`);
      continue;
    }
    if (out[country] !== undefined) r.problems.push(`${name} names ${country} twice`);
    try {
      parseUpstreamProxy(url);
      out[country] = url;
    } catch (err) {
      r.problems.push(`${name} (${country}): ${(err as Error).message}`);
    }
  }
  return out;
}

/** `CRAWLBOX_CORS_ORIGINS`: `*`, or comma-separated origins (`scheme://host[:port]`); unset: `*` when auth is on. */
export function corsOrigins(r: Reader, authEnabled: boolean): string[] {
  const name = "CRAWLBOX_CORS_ORIGINS";
  const raw = r.env[name];
  if (raw === undefined || raw.trim() === "") return authEnabled ? ["*"] : [];
  const out: string[] = [];
  for (const entry of raw.split(",").map((e) => e.trim()).filter(Boolean)) {
    if (entry === "*") {
      out.push("*");
      continue;
    }
    let origin: string | undefined;
    try {
      const u = new URL(entry);
      if ((u.protocol === "http:" || u.protocol === "https:") && u.origin === entry.replace(/\/$/, "")) origin = u.origin;
    } catch {
      // reported below
    }
    if (origin) out.push(origin);
    else r.problems.push(`${name} entries must be * or an origin such as https://app.example.com (scheme, host and port only), got "${entry}"`);
  }
  return out;
}

/** `CRAWLBOX_LLM_PROVIDER`: auto, ollama, openai or off. */
export function llmProvider(r: Reader): Config["llmProvider"] {
  const v = str(r, "CRAWLBOX_LLM_PROVIDER", "auto").toLowerCase();
  if (v === "auto" || v === "ollama" || v === "openai" || v === "off") return v;
  r.problems.push(`CRAWLBOX_LLM_PROVIDER must be auto, ollama, openai or off, got "${v}"`);
  return "auto";
}
