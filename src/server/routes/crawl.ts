/**
 * @module server/routes/crawl
 * `/v2/crawl` routes (api-v2.md §1.1, §3.2): start, active/ongoing crawls, params-preview, and the status,
 * cancel and errors routes shared with batches (job-status.ts). `active` must win over `/:id`: it is
 * registered first.
 */
import { Elysia } from "elysia";
import { parseCrawlBody, parseCrawlParamsPreviewBody, CrawlRequestSchema, CrawlParamsPreviewSchema } from "../../api/crawl.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import type { Job } from "../../jobs/types.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import { jobStatusRoutes } from "./job-status.ts";
import type { Services } from "../services.ts";

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
      // The answer holds only the job's id and URL, so it is kept for replay even under zeroDataRetention.
      ({ body, who, request }) =>
        idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: true, log: services.log }, async () => {
          let req = parseCrawlBody(body);
          // A prompt becomes crawler options first; the caller's explicit options win (llm/crawl-prompt.ts).
          let generated: Record<string, unknown> | undefined;
          // The LLM's turn within the drain: still running when a stopping server's grace ends, it is answered 503.
          if (req.prompt !== undefined) ({ req, generated } = await services.drain.run(request, (signal) => services.crawlPrompts.resolve(req, body, who, signal)));
          const base = publicBaseUrl(config.publicUrl, request);
          const idem = request.headers.get("x-idempotency-key") ?? undefined;
          const job = jobs.createCrawl(req, who, base, idem);
          return { success: true, id: job.id, url: `${base}/v2/crawl/${job.id}`, ...(generated ? { promptGeneratedOptions: generated } : {}) };
        }),
      { detail: { tags: ["crawl"], summary: "Start a crawl", parameters: [IDEMPOTENCY_PARAMETER], requestBody: { required: true, content: { "application/json": { schema: CrawlRequestSchema as object } } } } },
    )
    .post(
      "/v2/crawl/params-preview",
      async ({ body, who, request }) => {
        const req = parseCrawlParamsPreviewBody(body);
        const generated = await services.drain.run(request, (signal) => services.crawlPrompts.generate(req.url, req.prompt, who, signal));
        return { success: true, data: { url: req.url, ...generated } };
      },
      { detail: { tags: ["crawl"], summary: "Turn a prompt into crawl options", requestBody: { required: true, content: { "application/json": { schema: CrawlParamsPreviewSchema as object } } } } },
    )
    .get("/v2/crawl/active", active, { detail: { tags: ["crawl"], summary: "Crawls of this key that are still running" } })
    .get("/v2/crawl/ongoing", active, { detail: { tags: ["crawl"], summary: "Alias of /v2/crawl/active" } })
    .use(jobStatusRoutes(services, "crawl", "/v2/crawl"));
}
