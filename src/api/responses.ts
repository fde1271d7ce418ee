/**
 * @module api/responses
 * Response schemas for the OpenAPI document (api-v2.md §3). They describe, they do not police: documents
 * and metadata are open objects (`additionalProperties: true`) because arbitrary `<meta>` names are copied
 * into metadata and [LATEST] keeps adding document fields. Do not use them as Elysia `response:` validators
 * on hot paths without checking the cost.
 */
import { t } from "elysia";
import { Int } from "./common.ts";

const open = { additionalProperties: true } as const;

/** `Document.metadata` (§3.1): `statusCode` and `proxyUsed` always present. */
export const DocumentMetadataSchema = t.Object(
  {
    title: t.Optional(t.String()),
    description: t.Optional(t.String()),
    language: t.Optional(t.String()),
    url: t.Optional(t.String({ description: "Final URL after redirects" })),
    sourceURL: t.Optional(t.String({ description: "The requested URL, unnormalised" })),
    statusCode: Int(),
    scrapeId: t.Optional(t.String()),
    error: t.Optional(t.String()),
    contentType: t.Optional(t.String()),
    numPages: t.Optional(Int()),
    totalPages: t.Optional(Int()),
    proxyUsed: t.Union([t.Literal("basic"), t.Literal("stealth")]),
    cacheState: t.Optional(t.Union([t.Literal("hit"), t.Literal("miss")])),
    cachedAt: t.Optional(t.String()),
    creditsUsed: t.Optional(t.Number()),
    concurrencyLimited: t.Optional(t.Boolean()),
  },
  open,
);

/** A scraped document (§3.1). */
export const DocumentSchema = t.Object(
  {
    markdown: t.Optional(t.String()),
    html: t.Optional(t.String()),
    rawHtml: t.Optional(t.String()),
    links: t.Optional(t.Array(t.String())),
    images: t.Optional(t.Array(t.String())),
    screenshot: t.Optional(t.String()),
    summary: t.Optional(t.String()),
    answer: t.Optional(t.String()),
    highlights: t.Optional(t.String()),
    json: t.Optional(t.Unknown()),
    changeTracking: t.Optional(t.Object({}, open)),
    attributes: t.Optional(t.Array(t.Object({ selector: t.String(), attribute: t.String(), values: t.Array(t.String()) }))),
    actions: t.Optional(t.Object({}, open)),
    warning: t.Optional(t.String()),
    /** PDF parsed with `parsers: [{type:"pdf", pages:true}]`: each page's own markdown. */
    pages: t.Optional(t.Array(t.Object({ pageNumber: t.Integer(), markdown: t.String() }))),
    metadata: DocumentMetadataSchema,
  },
  open,
);

/** `POST /v2/scrape` 200. */
export const ScrapeResponseSchema = t.Object(
  { success: t.Literal(true), data: DocumentSchema, scrape_id: t.Optional(t.String()), warning: t.Optional(t.String()) },
  open,
);

/** The error envelope (§3.4): `{success:false, code?, error, details?}`. */
export const ErrorEnvelopeSchema = t.Object(
  { success: t.Literal(false), code: t.Optional(t.String()), error: t.String(), details: t.Optional(t.Unknown()) },
  open,
);

/** `POST /v2/crawl` and `POST /v2/batch/scrape` 200. */
export const JobCreatedResponseSchema = t.Object(
  {
    success: t.Literal(true),
    id: t.String(),
    url: t.String(),
    invalidURLs: t.Optional(t.Array(t.String())),
    promptGeneratedOptions: t.Optional(t.Object({}, open)),
  },
  open,
);

/** `GET /v2/crawl/:id` and `GET /v2/batch/scrape/:id` 200 (§3.2). */
export const JobStatusResponseSchema = t.Object(
  {
    success: t.Literal(true),
    status: t.Union([t.Literal("scraping"), t.Literal("completed"), t.Literal("failed"), t.Literal("cancelled")]),
    completed: Int(),
    total: Int(),
    creditsUsed: t.Number(),
    expiresAt: t.String(),
    next: t.Optional(t.Union([t.String(), t.Null()])),
    data: t.Array(DocumentSchema),
    warning: t.Optional(t.String()),
    /** crawlbox's: why a `failed` job failed (upstream's body has no such field). */
    error: t.Optional(t.String()),
  },
  open,
);

/** `POST /v2/map` 200. */
export const MapResponseSchema = t.Object(
  {
    success: t.Literal(true),
    id: t.Optional(t.String()),
    links: t.Array(t.Object({ url: t.String(), title: t.Optional(t.String()), description: t.Optional(t.String()) }, open)),
    warning: t.Optional(t.String()),
  },
  open,
);

/** `POST /v2/search` 200. */
export const SearchResponseSchema = t.Object(
  {
    success: t.Literal(true),
    data: t.Object(
      {
        web: t.Optional(t.Array(t.Object({}, open))),
        images: t.Optional(t.Array(t.Object({}, open))),
        news: t.Optional(t.Array(t.Object({}, open))),
      },
      open,
    ),
    creditsUsed: t.Optional(t.Number()),
    id: t.Optional(t.String()),
    warning: t.Optional(t.String()),
  },
  open,
);
