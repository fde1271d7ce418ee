/**
 * @module server/routes/batch
 * `/v2/batch/scrape` routes (api-v2.md §2.4, §3.2): start (scrape options flattened in the body,
 * `ignoreInvalidURLs` → `invalidURLs`, `appendToId`), plus the status, cancel and errors routes shared with
 * crawls (job-status.ts).
 */
import { Elysia } from "elysia";
import { BatchScrapeRequestSchema, parseBatchScrapeBodyYielding } from "../../api/batch.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import { INLINE_TASKS } from "../../jobs/pending-tasks.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";
import { jobStatusRoutes } from "./job-status.ts";

/** A body whose URL list is long enough to be read a slice at a time (more than a pending row's 2,000). */
function isLargeList(body: unknown): boolean {
  const urls = body !== null && typeof body === "object" ? (body as { urls?: unknown }).urls : undefined;
  return Array.isArray(urls) && urls.length > INLINE_TASKS;
}

/** The batch scrape routes. */
export function batchRoutes(services: Services) {
  const { jobs, config } = services;
  return new Elysia({ name: "crawlbox-batch" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/batch/scrape",
      // The answer holds only the job's id, URL and refused URLs, so it is kept for replay even under zeroDataRetention.
      // A body of up to ~264,000 URLs is read, checked and stored a slice at a time (jobs/task-intake.ts), the event
      // loop given back first: parsing the body's JSON is behind (tens of ms), the Idempotency-Key's hash may be next.
      async ({ body, who, request }) => {
        if (isLargeList(body)) await new Promise((resolve) => setImmediate(resolve));
        return idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: true, log: services.log }, async () => {
          const req = await parseBatchScrapeBodyYielding(body);
          const base = publicBaseUrl(config.publicUrl, request);
          const job = await jobs.createBatchYielding(req, who, base, request.headers.get("x-idempotency-key") ?? undefined);
          const out: Record<string, unknown> = { success: true, id: job.id, url: `${base}/v2/batch/scrape/${job.id}` };
          if (req.invalidURLs !== undefined) out.invalidURLs = req.invalidURLs;
          return out;
        });
      },
      { detail: { tags: ["batch"], summary: "Scrape many URLs", parameters: [IDEMPOTENCY_PARAMETER], requestBody: { required: true, content: { "application/json": { schema: BatchScrapeRequestSchema as object } } } } },
    )
    .use(jobStatusRoutes(services, "batch", "/v2/batch/scrape"));
}
