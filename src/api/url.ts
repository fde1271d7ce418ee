/**
 * @module api/url
 * The /v2 "URL field" rules (api-v2.md §2.1, rules 1–5). URL fields are plain strings in the TypeBox schemas
 * (so they export cleanly to OpenAPI and so one bad URL in a lenient batch does not fail the whole body); this
 * module is the single place that decides whether a string is an acceptable URL and what it normalises to.
 *
 * The normalised URL is the input with `http://` prepended when it had no scheme, nothing more: upstream never
 * rewrites the query string or the host (rule 7), and `metadata.sourceURL` must echo what the caller sent, so
 * the caller's original string is returned alongside.
 */
import type { Issue } from "./issues.ts";

/**
 * `metadata.sourceURL` for a URL field: the URL as sent, with `http://` in front when it had no scheme (upstream's
 * schema prepends it before anything reads the field; api-v2.md §2.1 rule 1), less the blanks around it, and
 * otherwise untouched.
 */
export function sourceUrlOf(input: string): string {
  // Blanks around the URL are not part of it, with a scheme or without (they were kept only with one).
  const url = input.trim();
  return SCHEME_RE.test(url) ? url : `http://${url}`;
}

/** Result of {@link normalizeUrlField}: either the normalised URL or the upstream error message. */
export type UrlFieldResult =
  | { ok: true; url: string; original: string }
  | { ok: false; message: string; original: string };

/** Upstream messages, verbatim, so SDK users see the same text as against Firecrawl. */
export const URL_MESSAGES = {
  invalid: "Invalid URL",
  protocol: "URL uses unsupported protocol",
  tld: "URL must have a valid top-level domain or be a valid path or be an IP address",
} as const;

/** Any `scheme://` prefix. A string without one gets `http://` (rule 1); `ftp://x` keeps its scheme and fails rule 3. */
const SCHEME_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const HTTP_RE = /^https?:\/\//i;
/** `http://http://x`, `https://https:x`: the scheme repeated where the host should be (rule 5). */
const DOUBLE_SCHEME_RE = /^https?:\/\/(?:[^@/?#]*@)?https?:/i;
/** The host exactly as written (WHATWG parsing would turn `http://1234` into `0.0.4.210`). */
const RAW_HOST_RE = /^https?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i;
const IPV4_RE = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
/** Last label of a hostname: two or more letters (any script) or an IDNA `xn--` label. */
const TLD_RE = /^(?:\p{L}{2,}|xn--[a-z0-9-]+)$/iu;

/**
 * Applies api-v2.md §2.1 rules 1–5 to one URL field. Pure and synchronous: reachability, DNS and the egress
 * policy (private addresses) are the fetch layer's business, not the request schema's.
 */
export function normalizeUrlField(input: string): UrlFieldResult {
  const original = input;
  const fail = (message: string): UrlFieldResult => ({ ok: false, message, original });
  if (typeof input !== "string") return fail(URL_MESSAGES.invalid);
  const trimmed = input.trim();
  if (trimmed === "") return fail(URL_MESSAGES.invalid);
  const candidate = SCHEME_RE.test(trimmed) ? trimmed : `http://${trimmed}`;
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    return fail(URL_MESSAGES.invalid);
  }
  if (!HTTP_RE.test(candidate)) return fail(URL_MESSAGES.protocol);
  if (DOUBLE_SCHEME_RE.test(candidate)) return fail(URL_MESSAGES.invalid);
  if (!hasAcceptableHost(candidate, parsed)) return fail(URL_MESSAGES.tld);
  return { ok: true, url: candidate, original };
}

/** Rule 4: a TLD-looking name, an IPv4 dotted quad, a bracketed IPv6 literal, or `localhost`. */
function hasAcceptableHost(candidate: string, parsed: URL): boolean {
  const raw = RAW_HOST_RE.exec(candidate)?.[1] ?? "";
  if (raw.startsWith("[")) return parsed.hostname.startsWith("[");
  if (IPV4_RE.test(raw)) return true;
  const host = parsed.hostname.replace(/\.$/, "");
  if (host === "localhost") return true;
  const labels = host.split(".");
  if (labels.length < 2 || labels.some((l) => l === "")) return false;
  // A raw host of digits and dots that is not a dotted quad (e.g. "1.2.3") was turned into an IP by WHATWG.
  if (/^[\d.]+$/.test(raw)) return false;
  return TLD_RE.test(labels[labels.length - 1]!);
}

/**
 * Normalises the URL at `path`, pushing a `custom` issue (upstream message) when it is invalid. Returns the
 * normalised URL, or undefined after pushing the issue.
 */
export function urlAt(value: string, path: (string | number)[], issues: Issue[]): string | undefined {
  const r = normalizeUrlField(value);
  if (r.ok) return r.url;
  issues.push({ code: "custom", path, message: r.message });
  return undefined;
}

/** Splits a list of URL strings into normalised valid ones and the original strings of the invalid ones. */
export function partitionUrls(inputs: readonly string[]): {
  valid: { url: string; original: string; index: number }[];
  invalid: { original: string; message: string; index: number }[];
} {
  const valid: { url: string; original: string; index: number }[] = [];
  const invalid: { original: string; message: string; index: number }[] = [];
  inputs.forEach((s, index) => {
    const r = normalizeUrlField(s);
    if (r.ok) valid.push({ url: r.url, original: r.original, index });
    else invalid.push({ original: r.original, message: r.message, index });
  });
  return { valid, invalid };
}
