/**
 * @module api/webhook
 * The webhook object of crawl, batch, extract and agent bodies (api-v2.md §2.10). A bare string is accepted
 * and becomes `{url}`; {@link normalizeWebhook} fills the defaults (`headers {}`, `metadata {}`, all events)
 * and applies the URL rules. As upstream, only `x-firecrawl-signature` is refused among the caller's headers (a
 * request must not look as if it could set its own signature); the others crawlbox manages (`Content-Type`, the
 * `webhook-*` signature headers, `Host` and framing) are accepted and then set or dropped by the sender
 * (webhooks/delivery-attempt.ts), so a caller header never replaces them. Clients send `Content-Type:
 * application/json` there routinely; upstream accepts it.
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

/**
 * Normalises a schema-valid webhook value. Returns issues (at `path`) for a bad URL or managed headers;
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
  if (issues.length > 0 || !url.ok) return { issues };
  return {
    webhook: { url: url.url, headers: { ...headers }, metadata: { ...(o.metadata ?? {}) }, events: [...(o.events ?? events)] },
    issues,
  };
}
