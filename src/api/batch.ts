/**
 * @module api/batch
 * `POST /v2/batch/scrape` body (api-v2.md §2.4). Scrape options are flattened into the body (that is what the
 * SDK's `startBatchScrape` sends). With `ignoreInvalidURLs` (default true) bad URLs do not fail the request:
 * they are returned in `invalidURLs` as the caller spelt them; otherwise each bad URL is an issue.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, UrlField, UuidField, OriginProps, Int } from "./common.ts";
import { scrapeOptionsProps, normalizeScrapeOptions, pickScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { WebhookField, WEBHOOK_EVENTS, normalizeWebhook, type Webhook } from "./webhook.ts";
import { refineScrapeOptions } from "./refine.ts";
import { partitionUrls, sourceUrlOf } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import type { Issue } from "./issues.ts";

export const BatchScrapeRequestSchema = strictObject(
  {
    urls: t.Array(UrlField, { minItems: 1 }),
    ...scrapeOptionsProps(),
    webhook: t.Optional(WebhookField),
    appendToId: t.Optional(UuidField),
    ignoreInvalidURLs: t.Optional(t.Boolean({ default: true })),
    maxConcurrency: t.Optional(Int({ minimum: 1 })),
    zeroDataRetention: t.Optional(t.Boolean()),
    ...OriginProps,
  },
  { description: "POST /v2/batch/scrape body" },
);

export type BatchScrapeRequestInput = Static<typeof BatchScrapeRequestSchema>;

/** One accepted URL: normalised for fetching, original kept for `sourceURL`. */
export interface BatchUrl {
  url: string;
  sourceURL: string;
}

/** A validated batch scrape request. */
export interface BatchScrapeRequest {
  urls: BatchUrl[];
  /** Present (possibly empty) only when `ignoreInvalidURLs` is true, as upstream. Original strings. */
  invalidURLs?: string[];
  scrapeOptions: ScrapeOptions;
  webhook?: Webhook;
  appendToId?: string;
  ignoreInvalidURLs: boolean;
  maxConcurrency?: number;
  zeroDataRetention?: boolean;
  origin: string;
  integration?: string | null;
}

/** The 400 message when `ignoreInvalidURLs` leaves no URL to scrape (upstream's wording). */
export const NO_VALID_URLS_MESSAGE = "No valid URLs provided";

/** Validates, refines and normalises a batch body; throws `BadRequestError` (400). */
export function parseBatchScrapeBody(body: unknown): BatchScrapeRequest {
  const v = validateBody(BatchScrapeRequestSchema, body);
  const issues: Issue[] = refineScrapeOptions(v);
  const ignoreInvalid = v.ignoreInvalidURLs ?? true;
  const { valid, invalid } = partitionUrls(v.urls);
  if (!ignoreInvalid) for (const bad of invalid) issues.push({ code: "custom", path: ["urls", bad.index], message: bad.message });
  // Upstream answers 400 rather than starting a batch with nothing in it (its batch-scrape-invalid-urls test).
  else if (valid.length === 0 && invalid.length > 0) issues.push({ code: "custom", path: ["urls"], message: NO_VALID_URLS_MESSAGE });
  const wh = v.webhook === undefined ? undefined : normalizeWebhook(v.webhook, WEBHOOK_EVENTS, ["webhook"]);
  if (wh) issues.push(...wh.issues);
  throwIfIssues(issues);
  const out: BatchScrapeRequest = {
    urls: valid.map((u) => ({ url: u.url, sourceURL: sourceUrlOf(u.original) })),
    scrapeOptions: normalizeScrapeOptions(pickScrapeOptions(v)),
    ignoreInvalidURLs: ignoreInvalid,
    origin: v.origin ?? "api",
  };
  if (ignoreInvalid) out.invalidURLs = invalid.map((u) => u.original);
  if (wh?.webhook) out.webhook = wh.webhook;
  if (v.appendToId !== undefined) out.appendToId = v.appendToId;
  if (v.maxConcurrency !== undefined) out.maxConcurrency = v.maxConcurrency;
  if (v.zeroDataRetention !== undefined) out.zeroDataRetention = v.zeroDataRetention;
  if (v.integration !== undefined) out.integration = v.integration;
  return out;
}
