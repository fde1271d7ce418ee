/**
 * @module api/webhook
 * The webhook object of crawl, batch, extract and agent bodies (api-v2.md §2.10). A bare string is accepted
 * and becomes `{url}`; {@link normalizeWebhook} fills the defaults (`headers {}`, `metadata {}`, all events)
 * and applies the URL rules. Headers that crawlbox itself sets on deliveries (signature, content type) may
 * not be overridden by the caller: that would let a request forge or break the signature.
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

/** Headers managed by the webhook sender; matched case-insensitively. `x-firecrawl-*` is reserved as a prefix. */
export const MANAGED_WEBHOOK_HEADERS = ["content-type", "content-length", "host", "transfer-encoding"] as const;
const MANAGED_PREFIX = "x-firecrawl-";

/** Builds the webhook field (string or object) for one event set. */
export function webhookField<const E extends readonly [string, ...string[]]>(events: E) {
  const object = strictObject({
    url: UrlField,
    headers: t.Optional(t.Record(t.String(), t.String(), { default: {} })),
    metadata: t.Optional(t.Record(t.String(), t.String(), { default: {} })),
    events: t.Optional(t.Array(oneOf(events), { default: [...events] })),
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

/** Names of caller headers that the sender manages (case preserved as sent). */
export function disallowedWebhookHeaders(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((h) => {
    const l = h.toLowerCase();
    return l.startsWith(MANAGED_PREFIX) || (MANAGED_WEBHOOK_HEADERS as readonly string[]).includes(l);
  });
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
