/**
 * @module server/routes/webhooks
 * `GET /v2/webhooks/deliveries?jobId=&skip=&limit=`: the webhook events of a crawl or batch job with every
 * delivery attempt (timestamps, status codes, errors, next attempt). Only the key that owns the job's events sees
 * them; any other key gets an empty list, exactly as for a job without events. crawlbox-specific (upstream keeps
 * its `webhook_logs` internal).
 */
import { Elysia } from "elysia";
import { parseStatusPagination } from "../../api/pagination.ts";
import { BadRequestError } from "../../errors.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** Longest accepted job id (ids are UUIDs; this only bounds the query). */
const MAX_JOB_ID_LENGTH = 200;

/** The webhook routes. */
export function webhookRoutes(services: Services) {
  return new Elysia({ name: "crawlbox-webhooks" })
    .use(authPlugin(services.keys, services.config.authEnabled))
    .get(
      "/v2/webhooks/deliveries",
      ({ query, who }) => {
        const jobId = query["jobId"];
        if (typeof jobId !== "string" || jobId.length === 0 || jobId.length > MAX_JOB_ID_LENGTH) {
          throw new BadRequestError("Query parameter jobId is required", [{ code: "custom", path: ["jobId"], message: "Required" }]);
        }
        const { skip, limit } = parseStatusPagination(query);
        const page = services.webhooks.deliveries(jobId, who.keyId, { skip, limit });
        return { success: true, total: page.total, data: page.deliveries };
      },
      {
        // Parsed by hand (like the status pagination) so that every bad value gets the same 400 shape.
        detail: {
          tags: ["webhooks"],
          summary: "Webhook deliveries of a crawl or batch job",
          parameters: [
            { name: "jobId", in: "query", required: true, schema: { type: "string" }, description: "Crawl or batch scrape id" },
            { name: "skip", in: "query", required: false, schema: { type: "string", pattern: "^\\d+$" } },
            { name: "limit", in: "query", required: false, schema: { type: "string", pattern: "^\\d+$" }, description: "1..1000, default 1000" },
          ],
        },
      },
    );
}
