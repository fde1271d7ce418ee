/**
 * @module server/routes/job-status
 * The routes crawls and batches share (api-v2.md §3.2): paginated status with an absolute `next`, cancel
 * (`{status:"cancelled"}` without `success`, as upstream) and errors (`{errors, robotsBlocked}`).
 */
import { Elysia } from "elysia";
import { parseStatusPagination } from "../../api/pagination.ts";
import type { JobKind } from "../../jobs/types.ts";
import { fewCrawlResultsWarning } from "../../crawl/base-domain.ts";
import { unappliedPatternsWarning } from "../../crawl/path-pattern.ts";
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

/** Status, cancel and errors routes for jobs of `kind` under `prefix` (`/v2/crawl` or `/v2/batch/scrape`). */
export function jobStatusRoutes(services: Services, kind: JobKind, prefix: string) {
  const { jobs, config } = services;
  const tag = kind === "crawl" ? "crawl" : "batch";
  // Upstream's crawl routes look a job up by its group, whatever started it: a batch's id works on /v2/crawl/{id}
  // too (the SDK's getCrawlStatus, and its watcher, whose kind defaults to "crawl"). Batch routes serve batches.
  const kinds: readonly JobKind[] = kind === "crawl" ? ["crawl", "batch"] : [kind];
  return new Elysia({ name: `crawlbox-${kind}-status` })
    .use(authPlugin(services.keys, config.authEnabled))
    .get(
      `${prefix}/:id`,
      ({ params, query, who, request }) => {
        const { skip, limit } = parseStatusPagination(query);
        const job = jobs.owned(params.id, who, kinds);
        const base = publicBaseUrl(config.publicUrl, request);
        const body: Record<string, unknown> = { ...jobs.status(job, skip, limit, nextLinkBuilder(base, `${prefix}/${job.id}`, limit)) };
        if (job.status !== "scraping") {
          const robotsBlocked = services.jobResults.errors(job.id).robotsBlocked;
          // A start page robots.txt refused: crawlEntireDomain or a higher path would not help (ignoreRobotsTxt would,
          // which its /errors entry says), so upstream's "Only N result(s)" hint is left out.
          const startBlocked = job.url !== null && robotsBlocked.includes(job.url);
          const warnings = [
            robotsBlocked.length > 0 ? ROBOTS_WARNING : undefined,
            job.kind === "crawl" && !startBlocked ? fewCrawlResultsWarning(job, services.jobResults.documentCount(job.id, 2)) : undefined,
            job.kind === "crawl" ? unappliedPatternsWarning(job.options.crawlerOptions as { includePaths?: string[]; excludePaths?: string[] } | undefined) : undefined,
          ].filter(Boolean);
          if (warnings.length > 0) body.warning = warnings.join(" ");
        }
        return body;
      },
      { detail: { tags: [tag], summary: `${tag} status and results (paginated)` } },
    )
    .delete(
      `${prefix}/:id`,
      // Answered once none of the job's tasks is left waiting (set aside a chunk at a time: jobs/service.ts).
      async ({ params, who }) => {
        await jobs.cancelAndSettle(jobs.owned(params.id, who, kinds));
        return { status: "cancelled" };
      },
      { detail: { tags: [tag], summary: `Cancel a ${tag}` } },
    )
    .get(`${prefix}/:id/errors`, ({ params, who }) => services.jobResults.errors(jobs.owned(params.id, who, kinds).id), {
      detail: { tags: [tag], summary: `Failed pages and robots-blocked URLs of a ${tag}` },
    });
}
