/**
 * @module api/scrape
 * `POST /v2/scrape` body (api-v2.md §2.3): scrape options flattened next to `url`, plus `zeroDataRetention`
 * and the `origin`/`integration` pair. {@link parseScrapeBody} is what the route handler calls.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, UrlField, OriginProps } from "./common.ts";
import { scrapeOptionsProps, normalizeScrapeOptions, pickScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { refineScrapeOptions } from "./refine.ts";
import { sourceUrlOf, urlAt } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import { ExchangeNotEnabledError } from "../errors.ts";

export const ScrapeRequestSchema = strictObject(
  {
    url: UrlField,
    ...scrapeOptionsProps(),
    zeroDataRetention: t.Optional(t.Boolean()),
    ...OriginProps,
  },
  { description: "POST /v2/scrape body" },
);

export type ScrapeRequestInput = Static<typeof ScrapeRequestSchema>;

/** A validated scrape request, as the service layer receives it. */
export interface ScrapeRequest {
  /** Normalised URL to fetch (`http://` prepended when the caller gave no scheme). */
  url: string;
  /** The URL exactly as sent: becomes `metadata.sourceURL`, which must stay unnormalised. */
  sourceURL: string;
  scrapeOptions: ScrapeOptions;
  zeroDataRetention?: boolean;
  origin: string;
  integration?: string | null;
}

/** Validates, refines and normalises a scrape body; throws `BadRequestError` (400) with zod-shaped details. */
export function parseScrapeBody(body: unknown): ScrapeRequest {
  // Firecrawl Exchange calls (`{alexandria: …}`, no url): upstream's answer for a team without Exchange.
  if (typeof body === "object" && body !== null && "alexandria" in body) throw new ExchangeNotEnabledError();
  const v = validateBody(ScrapeRequestSchema, body);
  const issues = refineScrapeOptions(v);
  const url = urlAt(v.url, ["url"], issues);
  throwIfIssues(issues);
  const out: ScrapeRequest = {
    url: url!,
    sourceURL: sourceUrlOf(v.url),
    scrapeOptions: normalizeScrapeOptions(pickScrapeOptions(v)),
    origin: v.origin ?? "api",
  };
  if (v.zeroDataRetention !== undefined) out.zeroDataRetention = v.zeroDataRetention;
  if (v.integration !== undefined) out.integration = v.integration;
  return out;
}
