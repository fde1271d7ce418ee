/**
 * @module server/routes/crawl
 * `/v2/crawl` routes (api-v2.md §1.1, §3.2): start, status pages with an absolute `next`, cancel, errors,
 * active/ongoing crawls, params-preview. Upstream's quirks are kept on purpose: cancel and errors answer
 * without a `success` field, `active` must win over `/:id`.
 */
import { Elysia } from "elysia";
import { parseCrawlBody, parseCrawlParamsPreviewBody, CrawlRequestSchema, CrawlParamsPreviewSchema } from "../../api/crawl.ts";
import { parseStatusPagination } from "../../api/pagination.ts";
import { UnsupportedOptionError } from "../../errors.ts";
import type { Job } from "../../jobs/types.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Warning upstream adds when robots.txt kept pages out of a finished crawl. */
export const ROBOTS_WARNING =
  "One or more pages were unable to be crawled because the robots.txt file prevented this. Please use the /scrape endpoint instead.";

/** The `next` link builder for a job's status pages. */
export function nextLinkBuilder(base: string, path: string, limit: number | undefined) {
  return (skip: number) => `${base}${path}?skip=${skip}${limit !== undefined ? `&limit=${limit}` : ""}`;
}

/** The body of `GET /v2/crawl/active`. */
function activeEntry(job: Job) {
  return {
    id: job.id,
    teamId: job.keyId,
    url: job.url,
    created_at: new Date(job.createdAt).toISOString(),
    options: { ...(job.options.crawlerOptions ?? {}), scrapeOptions: job.options.scrapeOptions },
  };
}

/** The crawl routes. */
export function crawlRoutes(services: Services) {
  const { jobs, config } = services;
  const active = ({ who }: { who: { keyId: string } }) => ({
    success: true,
    crawls: services.jobStore.list(who.keyId, "scraping").filter((j) => j.kind === "crawl").map(activeEntry),
  });
  return new Elysia({ name: "crawlbox-crawl" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/crawl",
      ({ body, who, request }) => {
        const req = parseCrawlBody(body);
        const base = publicBaseUrl(config.publicUrl, request);
        const idem = request.headers.get("x-idempotency-key") ?? undefined;
        const job = jobs.createCrawl(req, who, base, idem);
        return { success: true, id: job.id, url: `${base}/v2/crawl/${job.id}` };
      },
      { detail: { tags: ["crawl"], summary: "Start a crawl", requestBody: { required: true, content: { "application/json": { schema: CrawlRequestSchema as object } } } } },
    )
    .post(
      "/v2/crawl/params-preview",
      ({ body }) => {
        parseCrawlParamsPreviewBody(body);
        throw new UnsupportedOptionError("BAD_REQUEST", "Crawl params preview needs an LLM provider, which is not configured in this crawlbox build.");
      },
      { detail: { tags: ["crawl"], summary: "Turn a prompt into crawl options", requestBody: { required: true, content: { "application/json": { schema: CrawlParamsPreviewSchema as object } } } } },
    )
    .get("/v2/crawl/active", active, { detail: { tags: ["crawl"], summary: "Crawls of this key that are still running" } })
    .get("/v2/crawl/ongoing", active, { detail: { tags: ["crawl"], summary: "Alias of /v2/crawl/active" } })
    .get(
      "/v2/crawl/:id",
      ({ params, query, who, request }) => {
        const { skip, limit } = parseStatusPagination(query);
        const job = jobs.owned(params.id, who, "crawl");
        const base = publicBaseUrl(config.publicUrl, request);
        const body: Record<string, unknown> = { ...jobs.status(job, skip, limit, nextLinkBuilder(base, `/v2/crawl/${job.id}`, limit)) };
        if (job.status !== "scraping" && services.jobResults.errors(job.id).robotsBlocked.length > 0) body.warning = ROBOTS_WARNING;
        return body;
      },
      { detail: { tags: ["crawl"], summary: "Crawl status and results (paginated)" } },
    )
    .delete(
      "/v2/crawl/:id",
      ({ params, who }) => {
        jobs.cancel(jobs.owned(params.id, who, "crawl"));
        return { status: "cancelled" };
      },
      { detail: { tags: ["crawl"], summary: "Cancel a crawl" } },
    )
    .get(
      "/v2/crawl/:id/errors",
      ({ params, who }) => services.jobResults.errors(jobs.owned(params.id, who, "crawl").id),
      { detail: { tags: ["crawl"], summary: "Failed pages and robots-blocked URLs of a crawl" } },
    );
}
