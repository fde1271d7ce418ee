/**
 * @module api/webhook
 * The webhook object of crawl, batch, extract and agent bodies (api-v2.md §2.10). A bare string is accepted
 * and becomes `{url}`; {@link normalizeWebhook} fills the defaults (`headers {}`, `metadata {}`, all events)
 * and applies the URL rules. As upstream, only `x-firecrawl-signature` is refused among the caller's headers (a
 * request must not look as if it could set its own signature); the others crawlbox manages (`Content-Type`, the
 * `webhook-*` signature headers, `Host` and framing) are accepted and then set or dropped by the sender
 * (webhooks/delivery-attempt.ts), so a caller header never replaces them. Clients send `Content-Type:
 * application/json` there routinely; upstream accepts it.
 *
 * `events` is kept without repeats (its names are a handful, so that bounds what is stored without refusing what
 * upstream accepts). Unlike upstream, `metadata` and `headers` are bounded ({@link webhookSizeIssues}): both are copied into every event
 * the job announces (the outbox stores each event's headers and body), so one request with a 4 MB `metadata` and a
 * few hundred pages wrote ~400 MB to the database in 40 s.
 */
import { refineHeaders } from "./refine.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, UrlField } from "./common.ts";
import { normalizeUrlField } from "./url.ts";
import type { Issue } from "./issues.ts";

/** Crawl/batch/extract webhook events, default all. */
export const WEBHOOK_EVENTS = ["completed", "failed", "page", "started"] as const;
/** Agent webhook events ([LATEST]), default all. */
export const AGENT_WEBHOOK_EVENTS = ["started", "action", "completed", "failed", "cancelled"] as const;

/**
 * Largest `metadata`, as the UTF-8 bytes of its JSON. It is echoed in every payload, so it is stored once per event
 * (a 10,000-page crawl: 160 MB at this limit, until each event is delivered); 16 KiB is ample for the ids and tags it
 * carries in practice.
 */
export const WEBHOOK_MAX_METADATA_BYTES = 16 * 1024;
/** Most caller headers on a webhook. They are stored once per pending event; real receivers need one or two. */
export const WEBHOOK_MAX_HEADERS = 32;
/** Longest header name; servers refuse longer request lines and fields anyway. */
export const WEBHOOK_MAX_HEADER_NAME_CHARS = 256;
/**
 * Longest header value: Apache's default field limit (8190 bytes) and nginx's 8 KiB header buffer refuse longer ones,
 * so a longer value could never be delivered. The total stays within refine.ts `MAX_CUSTOM_HEADER_BYTES` (32 KiB).
 */
export const WEBHOOK_MAX_HEADER_VALUE_CHARS = 8 * 1024;

/** The caller header refused (upstream's rule), matched case-insensitively. */
const REFUSED_WEBHOOK_HEADER = "x-firecrawl-signature";

/**
 * Builds the webhook field (string or object) for one event set: `events` are the names accepted, `defaults` those a
 * webhook without `events` gets (a monitor accepts `monitor.page` but sends it only when asked for).
 */
export function webhookField<const E extends readonly [string, ...string[]]>(events: E, defaults: readonly E[number][] = events) {
  const object = strictObject({
    url: UrlField,
    headers: t.Optional(t.Record(t.String(), t.String(), { default: {} })),
    metadata: t.Optional(t.Record(t.String(), t.String(), { default: {} })),
    events: t.Optional(t.Array(oneOf(events), { default: [...defaults] })),
  });
  return t.Union([UrlField, object], { description: "Webhook URL, or {url, headers?, metadata?, events?}" });
}

export const WebhookField = webhookField(WEBHOOK_EVENTS);
export const AgentWebhookField = webhookField(AGENT_WEBHOOK_EVENTS);

export type WebhookInput = Static<typeof WebhookField>;
export type AgentWebhookInput = Static<typeof AgentWebhookField>;

/** A normalised webhook: URL checked and normalised, every field present. */
export interface Webhook<E extends string = (typeof WEBHOOK_EVENTS)[number]> {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  events: E[];
}
export type AgentWebhook = Webhook<(typeof AGENT_WEBHOOK_EVENTS)[number]>;

/** Names of caller headers that are refused (case preserved as sent). */
export function disallowedWebhookHeaders(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((h) => h.toLowerCase() === REFUSED_WEBHOOK_HEADER);
}

/** A name or value for a message: long ones cut, so a 4 MB field is not echoed back in the 400. */
function shown(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/**
 * Size bounds of `headers` and `metadata` (the constants above), as issues at `path` naming the field. The header
 * syntax (token names; no CR, LF or NUL in values) and the 32 KiB total are refine.ts `refineHeaders`' checks.
 */
export function webhookSizeIssues(headers: Record<string, string>, metadata: Record<string, string>, path: (string | number)[]): Issue[] {
  const issues: Issue[] = [];
  const field = (name: string) => [...path, name].join(".");
  const count = Object.keys(headers).length;
  if (count > WEBHOOK_MAX_HEADERS) {
    issues.push({ code: "custom", path: [...path, "headers"], message: `${field("headers")} has ${count} headers; at most ${WEBHOOK_MAX_HEADERS} are allowed.` });
  }
  for (const [name, value] of Object.entries(headers)) {
    if (name.length > WEBHOOK_MAX_HEADER_NAME_CHARS) {
      issues.push({ code: "custom", path: [...path, "headers", name], message: `Header name ${shown(name)} in ${field("headers")} is ${name.length} characters; at most ${WEBHOOK_MAX_HEADER_NAME_CHARS} are allowed.` });
    } else if (value.length > WEBHOOK_MAX_HEADER_VALUE_CHARS) {
      issues.push({ code: "custom", path: [...path, "headers", name], message: `The value of header ${name} in ${field("headers")} is ${value.length} characters; at most ${WEBHOOK_MAX_HEADER_VALUE_CHARS} are allowed.` });
    }
  }
  const metadataBytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (metadataBytes > WEBHOOK_MAX_METADATA_BYTES) {
    issues.push({
      code: "custom",
      path: [...path, "metadata"],
      message: `${field("metadata")} is ${metadataBytes} bytes as JSON; at most ${WEBHOOK_MAX_METADATA_BYTES} are allowed (it is sent, and stored, with every event).`,
    });
  }
  return issues;
}

/**
 * Normalises a schema-valid webhook value. Returns issues (at `path`) for a bad URL, managed headers, or headers or
 * metadata past their bounds;
 * `events` is the default event list for this webhook kind.
 */
export function normalizeWebhook<E extends string>(
  input: string | { url: string; headers?: Record<string, string>; metadata?: Record<string, string>; events?: E[] },
  events: readonly E[],
  path: (string | number)[],
): { webhook?: Webhook<E>; issues: Issue[] } {
  const o = typeof input === "string" ? { url: input } : input;
  const issues: Issue[] = [];
  const url = normalizeUrlField(o.url);
  if (!url.ok) issues.push({ code: "custom", path: typeof input === "string" ? path : [...path, "url"], message: url.message });
  const headers = o.headers ?? {};
  const bad = disallowedWebhookHeaders(headers);
  if (bad.length > 0) {
    issues.push({ code: "custom", path: [...path, "headers"], message: `The following headers are not allowed: ${bad.join(", ")}` });
  }
  issues.push(...refineHeaders(headers, [...path, "headers"]));
  issues.push(...webhookSizeIssues(headers, o.metadata ?? {}, path));
  if (issues.length > 0 || !url.ok) return { issues };
  const target = withoutCredentials(url.url, headers);
  return {
    // Stored without repeats, in first-seen order: the list is kept with the job (and each append of a batch), and
    // upstream's schema has no bound, so 100,000 repeats of "page" were accepted and stored as sent.
    webhook: { url: target.url, headers: target.headers, metadata: { ...(o.metadata ?? {}) }, events: [...new Set(o.events ?? events)] },
    issues,
  };
}

/**
 * The webhook of a crawl or batch job sent without one, from `SELF_HOSTED_WEBHOOK_URL` (config.fallbackWebhookUrl):
 * every event, no headers or metadata, `{{JOB_ID}}` in the URL replaced by the job's id, as upstream's self-host.
 */
export function fallbackWebhook(urlTemplate: string, jobId: string): Webhook<string> | undefined {
  if (urlTemplate === "") return undefined;
  return normalizeWebhook(urlTemplate.replaceAll("{{JOB_ID}}", jobId), [], []).webhook;
}

/** A URL part percent-decoded; as written when it is not valid percent-encoding (`%zz`). */
function decodedOrAsIs(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A webhook URL with a user and password (`https://user:pass@host/hook`) is sent as upstream's HTTP client (axios)
 * sends it: to the URL without them, with `Authorization: Basic` carrying them, which replaces an `Authorization`
 * header of the caller's. The egress gate refuses URLs with credentials, so kept in the URL every event failed; and
 * the URL is shown in delivery records and errors, where a password must not be.
 */
function withoutCredentials(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  const u = new URL(url);
  if (u.username === "" && u.password === "") return { url, headers: { ...headers } };
  const credentials = `${decodedOrAsIs(u.username)}:${decodedOrAsIs(u.password)}`;
  u.username = "";
  u.password = "";
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
  return { url: u.href, headers: { ...kept, Authorization: `Basic ${Buffer.from(credentials, "utf8").toString("base64")}` } };
}
