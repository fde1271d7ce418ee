/**
 * @module server/routes/batch
 * `/v2/batch/scrape` routes (api-v2.md §2.4, §3.2): start (scrape options flattened in the body,
 * `ignoreInvalidURLs` → `invalidURLs`, `appendToId`), status pages, cancel, errors.
 */
import { Elysia } from "elysia";
import { BatchScrapeRequestSchema, parseBatchScrapeBody } from "../../api/batch.ts";
import { parseStatusPagination } from "../../api/pagination.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";
import { nextLinkBuilder } from "./crawl.ts";

/** The batch scrape routes. */
export function batchRoutes(services: Services) {
  const { jobs, config } = services;
  return new Elysia({ name: "crawlbox-batch" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/batch/scrape",
      ({ body, who, request }) => {
        const req = parseBatchScrapeBody(body);
        const base = publicBaseUrl(config.publicUrl, request);
        const job = jobs.createBatch(req, who, base, request.headers.get("x-idempotency-key") ?? undefined);
        const out: Record<string, unknown> = { success: true, id: job.id, url: `${base}/v2/batch/scrape/${job.id}` };
        if (req.invalidURLs !== undefined) out.invalidURLs = req.invalidURLs;
        return out;
      },
      { detail: { tags: ["batch"], summary: "Scrape many URLs", requestBody: { required: true, content: { "application/json": { schema: BatchScrapeRequestSchema as object } } } } },
    )
    .get(
      "/v2/batch/scrape/:id",
      ({ params, query, who, request }) => {
        const { skip, limit } = parseStatusPagination(query);
        const job = jobs.owned(params.id, who, "batch");
        const base = publicBaseUrl(config.publicUrl, request);
        return jobs.status(job, skip, limit, nextLinkBuilder(base, `/v2/batch/scrape/${job.id}`, limit));
      },
      { detail: { tags: ["batch"], summary: "Batch status and results (paginated)" } },
    )
    .delete(
      "/v2/batch/scrape/:id",
      ({ params, who }) => {
        jobs.cancel(jobs.owned(params.id, who, "batch"));
        return { status: "cancelled" };
      },
      { detail: { tags: ["batch"], summary: "Cancel a batch" } },
    )
    .get(
      "/v2/batch/scrape/:id/errors",
      ({ params, who }) => services.jobResults.errors(jobs.owned(params.id, who, "batch").id),
      { detail: { tags: ["batch"], summary: "Failed pages of a batch" } },
    );
}
