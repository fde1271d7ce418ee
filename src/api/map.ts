/**
 * @module api/map
 * `POST /v2/map` (api-v2.md §2.6): crawler options minus `sitemap`/`ignoreQueryParameters`/`limit`, which map
 * redefines with its own defaults (`ignoreQueryParameters` defaults to **true** here, unlike crawl).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, UrlField, HeadersField, LocationSchema, OriginProps, CloudProps, DEFAULT_COUNTRY } from "./common.ts";
import { crawlerOptionsProps } from "./crawl.ts";
import { refineHeaders, refineLocation, refinePathPatterns } from "./refine.ts";
import { sourceUrlOf, urlAt } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import type { Issue } from "./issues.ts";

/** Largest map `limit` ([LATEST] `MAX_MAP_LIMIT`). */
export const MAX_MAP_LIMIT = 100_000;
/** Default map `limit`. */
export const DEFAULT_MAP_LIMIT = 5_000;

const { sitemap: _s, ignoreQueryParameters: _i, limit: _l, ...crawlerProps } = crawlerOptionsProps();

export const MapRequestSchema = strictObject(
  {
    url: UrlField,
    ...crawlerProps,
    search: t.Optional(t.String({ description: "Rank links by similarity to this text" })),
    includeSubdomains: t.Optional(t.Boolean({ default: true })),
    ignoreQueryParameters: t.Optional(t.Boolean({ default: true })),
    sitemap: t.Optional(oneOf(["only", "include", "skip"], { default: "include" })),
    // A number, not an integer (upstream's `z.number().min(1).max(MAX_MAP_LIMIT)`, api-v2.md §2.6): a fraction is
    // floored by parseMapBody once the bounds are checked.
    limit: t.Optional(t.Number({ minimum: 1, maximum: MAX_MAP_LIMIT, default: DEFAULT_MAP_LIMIT })),
    // A number, not an integer: upstream's schema is `z.number().positive()` (api-v2.md §2.6).
    timeout: t.Optional(t.Number({ exclusiveMinimum: 0, description: "ms; exceeded → 408 MAP_TIMEOUT" })),
    filterByPath: t.Optional(t.Boolean({ default: true })),
    useIndex: t.Optional(t.Boolean({ default: true })),
    ignoreCache: t.Optional(t.Boolean({ default: false })),
    location: t.Optional(LocationSchema),
    headers: t.Optional(HeadersField),
    ...CloudProps,
    ...OriginProps,
  },
  { description: "POST /v2/map body" },
);

export type MapRequestInput = Static<typeof MapRequestSchema>;
type Req<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/** A validated map request (defaults applied; `url` normalised, `sourceURL` as sent). */
export type MapRequest = Omit<
  Req<MapRequestInput, "includePaths" | "excludePaths" | "allowExternalLinks" | "allowSubdomains" | "ignoreRobotsTxt" | "deduplicateSimilarURLs" | "regexOnFullURL" | "includeSubdomains" | "ignoreQueryParameters" | "sitemap" | "limit" | "filterByPath" | "useIndex" | "ignoreCache" | "origin">,
  "threatProtection" | "auditMetadata" | "location"
> & { sourceURL: string; location?: { country: string; languages?: string[] } };

/** Validates, refines and normalises a map body (`limit` floored); throws `BadRequestError` (400). */
export function parseMapBody(body: unknown): MapRequest {
  const v = validateBody(MapRequestSchema, body);
  const issues: Issue[] = [...refinePathPatterns(v), ...refineHeaders(v.headers), ...refineLocation(v.location)];
  const url = urlAt(v.url, ["url"], issues);
  throwIfIssues(issues);
  const { threatProtection: _t, auditMetadata: _a, ...rest } = v;
  const out = { ...rest, url: url!, sourceURL: sourceUrlOf(v.url), limit: Math.floor(v.limit ?? DEFAULT_MAP_LIMIT) } as MapRequest;
  if (v.location) out.location = { ...v.location, country: v.location.country ?? DEFAULT_COUNTRY };
  return out;
}
