/**
 * @module server/routes/batch
 * `/v2/batch/scrape` routes (api-v2.md §2.4, §3.2): start (scrape options flattened in the body,
 * `ignoreInvalidURLs` → `invalidURLs`, `appendToId`), plus the status, cancel and errors routes shared with
 * crawls (job-status.ts).
 */
import { Elysia } from "elysia";
import { BatchScrapeRequestSchema, parseBatchScrapeBody } from "../../api/batch.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";
import { jobStatusRoutes } from "./job-status.ts";

/** The batch scrape routes. */
export function batchRoutes(services: Services) {
  const { jobs, config } = services;
  return new Elysia({ name: "crawlbox-batch" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/batch/scrape",
      // The answer holds only the job's id, URL and refused URLs, so it is kept for replay even under zeroDataRetention.
      ({ body, who, request }) =>
        idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: true, log: services.log }, () => {
          const req = parseBatchScrapeBody(body);
          const base = publicBaseUrl(config.publicUrl, request);
          const job = jobs.createBatch(req, who, base, request.headers.get("x-idempotency-key") ?? undefined);
          const out: Record<string, unknown> = { success: true, id: job.id, url: `${base}/v2/batch/scrape/${job.id}` };
          if (req.invalidURLs !== undefined) out.invalidURLs = req.invalidURLs;
          return out;
        }),
      { detail: { tags: ["batch"], summary: "Scrape many URLs", parameters: [IDEMPOTENCY_PARAMETER], requestBody: { required: true, content: { "application/json": { schema: BatchScrapeRequestSchema as object } } } } },
    )
    .use(jobStatusRoutes(services, "batch", "/v2/batch/scrape"));
}
