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
import { normalizeUrlField, partitionUrls, sourceUrlOf } from "./url.ts";
import { createYielder } from "../crawl/filter-yielding.ts";
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
  const { valid, invalid } = partitionUrls(v.urls);
  return finishBatchBody(v, { valid: valid.map((u) => ({ url: u.url, sourceURL: sourceUrlOf(u.original) })), invalid });
}

/** Lists of more URLs than this are read a slice at a time by {@link parseBatchScrapeBodyYielding}. */
const SLICED_ABOVE_URLS = 2000;
/** URLs checked between two looks at the clock: a look costs more than a URL's check. */
const URLS_PER_CLOCK_READ = 256;

/**
 * {@link parseBatchScrapeBody}, with the same answer and the same 400s, without holding the event loop for a long
 * list: a 10 MiB body holds ~264,000 URLs, whose schema check and normalisation took ~70–150 ms at once. The URLs
 * are checked a slice at a time (with the event loop given back between: crawl/filter-yielding.ts createYielder);
 * the rest of the body is checked with one URL standing for them (the schema asks each only to be a string). A
 * list with a URL that is not a string is checked whole, so its 400 is the one parseBatchScrapeBody gives.
 */
export async function parseBatchScrapeBodyYielding(body: unknown): Promise<BatchScrapeRequest> {
  const urls = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as { urls?: unknown }).urls : undefined;
  if (!Array.isArray(urls) || urls.length <= SLICED_ABOVE_URLS) return parseBatchScrapeBody(body);
  const pause = createYielder();
  const valid: BatchUrl[] = [];
  const invalid: { original: string; message: string; index: number }[] = [];
  for (let i = 0; i < urls.length; i++) {
    if (i % URLS_PER_CLOCK_READ === 0) {
      const wait = pause();
      if (wait) await wait;
    }
    const input: unknown = urls[i];
    if (typeof input !== "string") return parseBatchScrapeBody(body);
    const r = normalizeUrlField(input);
    if (r.ok) valid.push({ url: r.url, sourceURL: sourceUrlOf(r.original) });
    else invalid.push({ original: r.original, message: r.message, index: i });
  }
  const v = validateBody(BatchScrapeRequestSchema, { ...(body as Record<string, unknown>), urls: [urls[0]] });
  return finishBatchBody({ ...v, urls: urls as string[] }, { valid, invalid });
}

/** The rest of a batch body's checks, once its URLs are sorted into `valid` (normalised) and `invalid` ones. */
function finishBatchBody(v: BatchScrapeRequestInput, urls: { valid: BatchUrl[]; invalid: { original: string; message: string; index: number }[] }): BatchScrapeRequest {
  const issues: Issue[] = refineScrapeOptions(v);
  const ignoreInvalid = v.ignoreInvalidURLs ?? true;
  const { valid, invalid } = urls;
  if (!ignoreInvalid) for (const bad of invalid) issues.push({ code: "custom", path: ["urls", bad.index], message: bad.message });
  // Upstream answers 400 rather than starting a batch with nothing in it (its batch-scrape-invalid-urls test).
  else if (valid.length === 0 && invalid.length > 0) issues.push({ code: "custom", path: ["urls"], message: NO_VALID_URLS_MESSAGE });
  const wh = v.webhook === undefined ? undefined : normalizeWebhook(v.webhook, WEBHOOK_EVENTS, ["webhook"]);
  if (wh) issues.push(...wh.issues);
  throwIfIssues(issues);
  const out: BatchScrapeRequest = {
    urls: valid,
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
