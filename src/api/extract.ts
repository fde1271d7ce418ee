/**
 * @module api/extract
 * `POST /v2/extract` (api-v2.md §2.8). Either `urls` or `prompt` is required. URLs are lenient by default
 * (`ignoreInvalidURLs: true`): bad ones are reported in `invalidURLs` instead of failing the request.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, UrlField, PromptField, JsonSchemaField, OriginProps, CloudProps, Int } from "./common.ts";
import { ScrapeOptionsSchema, normalizeScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { WebhookField, WEBHOOK_EVENTS, normalizeWebhook, type Webhook } from "./webhook.ts";
import { refineExtract, refineScrapeOptions } from "./refine.ts";
import { partitionUrls, sourceUrlOf } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import type { Issue } from "./issues.ts";

/** Most URLs per extract request. */
export const MAX_EXTRACT_URLS = 10;

export const ExtractRequestSchema = strictObject(
  {
    urls: t.Optional(
      t.Array(UrlField, {
        maxItems: MAX_EXTRACT_URLS,
        errorMessages: { maxItems: "Maximum of 10 URLs allowed per request while in beta." },
      }),
    ),
    prompt: t.Optional(PromptField),
    systemPrompt: t.Optional(PromptField),
    schema: t.Optional(JsonSchemaField),
    limit: t.Optional(Int({ minimum: 1 })),
    ignoreSitemap: t.Optional(t.Boolean({ default: false })),
    includeSubdomains: t.Optional(t.Boolean({ default: true })),
    allowExternalLinks: t.Optional(t.Boolean({ default: false })),
    enableWebSearch: t.Optional(t.Boolean({ default: false })),
    scrapeOptions: t.Optional(ScrapeOptionsSchema),
    urlTrace: t.Optional(t.Boolean({ default: false })),
    showSources: t.Optional(t.Boolean({ default: false })),
    ignoreInvalidURLs: t.Optional(t.Boolean({ default: true })),
    webhook: t.Optional(WebhookField),
    timeout: t.Optional(Int({ minimum: 1000 })),
    agent: t.Optional(strictObject({ model: t.Optional(t.String()), prompt: t.Optional(PromptField) })),
    ...CloudProps,
    ...OriginProps,
  },
  { description: "POST /v2/extract body" },
);

export type ExtractRequestInput = Static<typeof ExtractRequestSchema>;

/** A validated extract request. `allowExternalLinks` is forced true with `enableWebSearch`, as upstream. */
export interface ExtractRequest {
  urls: { url: string; sourceURL: string }[];
  /** Present only when `ignoreInvalidURLs` is true. */
  invalidURLs?: string[];
  prompt?: string;
  systemPrompt?: string;
  schema?: Record<string, unknown>;
  limit?: number;
  ignoreSitemap: boolean;
  includeSubdomains: boolean;
  allowExternalLinks: boolean;
  /**
   * The caller's own `allowExternalLinks`, before `enableWebSearch` forced it: what a `https://site/*` URL's map
   * follows. Upstream's map keeps that site's pages; the forced flag is about the search, not the site.
   * Absent in jobs stored before it existed.
   */
  mapExternalLinks?: boolean;
  enableWebSearch: boolean;
  scrapeOptions?: ScrapeOptions;
  urlTrace: boolean;
  showSources: boolean;
  ignoreInvalidURLs: boolean;
  webhook?: Webhook;
  timeout?: number;
  agent?: { model?: string; prompt?: string };
  origin: string;
  integration?: string | null;
}

/** Validates, refines and normalises an extract body; throws `BadRequestError` (400). */
export function parseExtractBody(body: unknown): ExtractRequest {
  const v = validateBody(ExtractRequestSchema, body);
  const issues: Issue[] = [...refineExtract(v)];
  if (v.scrapeOptions) issues.push(...refineScrapeOptions(v.scrapeOptions, ["scrapeOptions"]));
  const ignoreInvalid = v.ignoreInvalidURLs ?? true;
  const { valid, invalid } = partitionUrls(v.urls ?? []);
  if (!ignoreInvalid) for (const bad of invalid) issues.push({ code: "custom", path: ["urls", bad.index], message: bad.message });
  const wh = v.webhook === undefined ? undefined : normalizeWebhook(v.webhook, WEBHOOK_EVENTS, ["webhook"]);
  if (wh) issues.push(...wh.issues);
  throwIfIssues(issues);
  const { threatProtection: _t, auditMetadata: _a, webhook: _w, scrapeOptions: _s, urls: _u, ...rest } = v;
  const out: ExtractRequest = {
    ...(rest as Omit<ExtractRequest, "urls">),
    urls: valid.map((u) => ({ url: u.url, sourceURL: sourceUrlOf(u.original) })),
    allowExternalLinks: (v.allowExternalLinks ?? false) || (v.enableWebSearch ?? false),
    mapExternalLinks: v.allowExternalLinks ?? false,
    origin: v.origin ?? "api",
  };
  if (ignoreInvalid) out.invalidURLs = invalid.map((u) => u.original);
  if (v.scrapeOptions) out.scrapeOptions = normalizeScrapeOptions(v.scrapeOptions);
  if (wh?.webhook) out.webhook = wh.webhook;
  return out;
}
