/**
 * @module server/routes/scrape
 * `POST /v2/scrape` (synchronous scrape) and `GET /v2/scrape/{id}` (a stored result). The body is validated by
 * `parseScrapeBody` on the raw JSON, not by Elysia's `body:` hook, so unknown keys, URL rules and cross-field
 * refinements all give the same 400 shape; the schema is attached to the OpenAPI document only.
 */
import { Elysia } from "elysia";
import { UUID_PATTERN } from "../../api/common.ts";
import { parseScrapeBody, ScrapeRequestSchema } from "../../api/scrape.ts";
import { BadRequestError, CrawlboxError, NotFoundError } from "../../errors.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import { specFromOptions } from "../../scrape/from-options.ts";
import { queueWaitMs, scrapeWithinTimeout } from "../../scrape/limiter.ts";
import { authPlugin } from "../auth.ts";
import { fileSinkFor, publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Scrape ids are UUIDs (upstream's check, and its message, for anything else). */
const SCRAPE_ID = new RegExp(UUID_PATTERN);

/** True when the raw body asks for zero data retention (checked before validation, which may still refuse it). */
function zeroDataRetention(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { zeroDataRetention?: unknown }).zeroDataRetention === true;
}

/** The scrape routes. */
export function scrapeRoutes(services: Services) {
  const { scrape, limiter, results, config } = services;
  return new Elysia({ name: "crawlbox-scrape" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/scrape",
      ({ body, who, request }) =>
        // A scrape with zeroDataRetention keeps no copy of its page anywhere, so not in a replayable response either.
        idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: !zeroDataRetention(body), log: services.log }, async () => {
          const req = parseScrapeBody(body);
          const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, config);
          scrape.validate(spec);
          const files = fileSinkFor(services, who.keyId, publicBaseUrl(config.publicUrl, request));
          // Within the drain: still running when a stopping server's grace ends, it is answered 503 SERVER_STOPPING.
          const doc = await services.drain.run(request, (signal) =>
            limiter.run(
              queueWaitMs(spec.timeoutMs),
              (queuedMs) => scrapeWithinTimeout(spec, queuedMs, (s) => scrape.scrape(s, who, { signal, files, queue: { queuedMs }, resumable: true })),
              who.keyId,
            ),
          );
          services.scrapeStats.record(who.keyId, Date.now());
          // Upstream adds the id at the top level for its own website's calls (api-v2.md §3.1).
          return { success: true, data: doc, ...(req.origin.includes("website") ? { scrape_id: doc.metadata.scrapeId } : {}) };
        }),
      {
        detail: {
          tags: ["scrape"],
          summary: "Scrape one URL",
          parameters: [IDEMPOTENCY_PARAMETER],
          requestBody: { required: true, content: { "application/json": { schema: ScrapeRequestSchema as object } } },
        },
      },
    )
    .get(
      "/v2/scrape/:id",
      ({ params, who }) => {
        if (!SCRAPE_ID.test(params.id)) throw new BadRequestError("Invalid job ID format. Job ID must be a valid UUID.");
        const doc = results.get(params.id, who.keyId, Date.now());
        if (doc !== undefined) return { success: true, data: doc };
        // A crawl or batch page's scrapeId is its task id: its document, or why there is none, lives with the job.
        const page = services.jobResults.pageOutcome(params.id, who.keyId);
        if (page === undefined) throw new NotFoundError("Job not found.");
        if ("document" in page) return { success: true, data: page.document };
        // The page's own failure, as a synchronous scrape of it would have answered.
        if ("failure" in page) throw CrawlboxError.fromJSON(page.failure);
        throw new NotFoundError(
          page.unfinished === "cancelled" ? "Job not found: this page was cancelled with its job before it was scraped." : `Job not found yet: this page is ${page.unfinished === "queued" ? "queued" : "being scraped"}; ask again later.`,
        );
      },
      { detail: { tags: ["scrape"], summary: "A stored scrape result" } },
    );
}
