/**
 * @module monitor/crawl-target
 * A monitor's crawl target: a crawl job from its start URL with its crawl options (at most 100 pages) and the
 * monitor's change tracking (tag `monitor:<id>:<target>`), run by the server's job queue like any crawl and visible
 * as one (`GET /v2/crawl/{crawlId}`, the check's `targetResults`). Pages the previous crawl saw and this one did not
 * reach are re-checked by the crawl itself (change-tracking/crawl-recheck.ts), so a page gone from the site is
 * `removed`. The check waits for the crawl; a check stopped (the monitor deleted, the server stopping) cancels it.
 */
import { parseCrawlBody } from "../api/crawl.ts";
import { JobFinishedError } from "../errors.ts";
import type { JobResults } from "../jobs/results.ts";
import type { JobService } from "../jobs/service.ts";
import type { JobStore } from "../jobs/types.ts";
import type { ScrapeDocument } from "../scrape/document.ts";
import { sleep } from "../scheduler/abortable.ts";
import { monitoredOptions, type CrawlRunner } from "./check.ts";

/** How often a check looks at its crawl's progress. */
const POLL_MS = 250;
/** Documents read per query of the crawl's results. */
const RESULTS_PER_READ = 100;

/** What running a crawl target needs. */
export interface CrawlTargetDeps {
  jobs: Pick<JobService, "createCrawl" | "cancel" | "cancelMonitorCrawls">;
  jobStore: Pick<JobStore, "get">;
  jobResults: Pick<JobResults, "page" | "errors">;
  /** Base of the crawl's own `next` links (`CRAWLBOX_PUBLIC_URL`, else the server's own address). */
  publicBaseUrl: string;
}

/** The runner a check calls for each crawl target. */
export function crawlRunner(deps: CrawlTargetDeps): CrawlRunner {
  return async ({ monitorId, checkId, target, who, signal }, onPage) => {
    const req = parseCrawlBody({ url: target.url, ...target.crawlOptions, scrapeOptions: monitoredOptions(monitorId, target) });
    const job = deps.jobs.createCrawl(req, who, deps.publicBaseUrl, undefined, { monitorCheckId: checkId });
    try {
      for (;;) {
        const now = deps.jobStore.get(job.id);
        if (!now || now.status !== "scraping") break;
        await sleep(POLL_MS, signal);
      }
    } catch (err) {
      try {
        deps.jobs.cancel(job);
      } catch (finished) {
        if (!(finished instanceof JobFinishedError)) throw finished; // a crawl that finished meanwhile stays as it is
      }
      throw err;
    }
    for (let skip = 0; ; ) {
      const page = deps.jobResults.page(job.id, skip, RESULTS_PER_READ);
      if (page.consumed === 0) break;
      skip += page.consumed;
      for (const doc of page.data as unknown as ScrapeDocument[]) {
        await onPage({ url: String(doc.metadata.sourceURL ?? doc.metadata.url), document: doc });
      }
    }
    for (const e of deps.jobResults.errors(job.id).errors) await onPage({ url: e.url, error: `${e.code ?? "SCRAPE_FAILED"}: ${e.error}` });
    return job.id;
  };
}
