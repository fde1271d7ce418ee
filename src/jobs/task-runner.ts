/**
 * @module jobs/task-runner
 * Runs one task of a job through the same scrape path as `POST /v2/scrape`, and decides what its outcome
 * means: done (with, for crawls, the links that pass the crawl rules), retry later, or failed.
 */
import type { ScrapeOptions } from "../api/scrape-options.ts";
import type { CreditHold, CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity, KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { CrawlDenialError, StartPageDisallowedError } from "../crawl/errors.ts";
import { CrawlboxError, KeyRevokedError, toCrawlboxError } from "../errors.ts";
import { specFromOptions } from "../scrape/from-options.ts";
import type { FileSink } from "../scrape/render-context.ts";
import type { ScrapeService } from "../scrape/service.ts";
import { backoffMs, isRetryableStatus, MAX_PAGE_ATTEMPTS, MAX_THROTTLED_ATTEMPTS, RETRY_MAX_DELAY_MS, retryAfterMs } from "./retry-policy.ts";
import { HIDDEN_RECHECK_DEPTH } from "../change-tracking/crawl-recheck.ts";
import { jobRetryFloorMs } from "../llm/server-down.ts";
import type { CrawlDenialReason } from "../crawl/filter.ts";
import { ownerActive } from "./owner-active.ts";
import { taskOptions, type Job, type NewTask, type Task } from "./types.ts";
import type { Outcome, TaskRunner } from "./worker-pool.ts";

/** What a crawl adds around its pages: the kickoff (robots, sitemaps) and link discovery. */
export interface CrawlPlanner {
  /** The tasks a crawl starts with: its kickoff and its start page (depth 0). */
  initialTasks(startUrl: string, crawlerOptions: Record<string, unknown>): NewTask[];
  /**
   * Reads robots.txt and sitemaps for a crawl: first pages, robots-blocked URLs, a `Crawl-delay` if any. `again`:
   * the kickoff ran before without its result being stored (see `discover`).
   */
  kickoff(job: Job, signal: AbortSignal, again?: boolean): Promise<{ discovered: NewTask[]; robotsBlocked: string[]; delayMs?: number }>;
  /**
   * Filters the links found on a crawled page into new tasks (depth + 1). A task on its second attempt or later has
   * its links judged afresh: the planner's memory of what it handed over may hold links that were never stored.
   */
  discover(job: Job, task: Task, links: string[], signal: AbortSignal): Promise<{ discovered: NewTask[]; robotsBlocked: string[] }>;
  /**
   * Where a crawled page that redirected to `finalUrl` stands: the crawl rule it breaks (`denied`), or the
   * target's dedup key (possibly the task's own: the store tells). Undefined when there was no redirect.
   */
  judgeRedirect(job: Job, task: Task, finalUrl: string): { denied: CrawlDenialReason } | { key: string } | undefined;
  /**
   * The crawl rule (include/exclude patterns, …) the start page, landed on `finalUrl`, breaks as a result, if any:
   * upstream crawls such a start page and follows its links, but it is an error of the crawl, not one of its pages.
   */
  judgeStart(job: Job, finalUrl: string): CrawlDenialReason | undefined;
  /**
   * The crawl's new origin when its start page landed on `finalUrl` on another host (not just `www.` added or
   * dropped): the site lives there, and its links must not all count as external. Undefined otherwise.
   */
  originAfterRedirect(job: Job, finalUrl: string): string | undefined;
  /**
   * The pause robots.txt asks of this crawl between requests to `url`'s host (its `Crawl-delay`, at most 60 s), in
   * ms; undefined when the crawl sets its own `delay`, ignores robots.txt, or the host asks for none.
   */
  crawlDelayMs(job: Job, url: string, signal: AbortSignal): Promise<number | undefined>;
  /**
   * Whether robots.txt lets the crawl fetch its start page (every other page is checked when it is discovered):
   * `true`, `"disallowed"` by a rule, or `"unreachable"` (a robots.txt that answered 5xx or timed out counts as
   * disallowing all); one that could not be fetched at all, the site not reached, allows (the page's own fetch
   * reports why).
   */
  startAllowed(job: Job, signal: AbortSignal): Promise<true | "disallowed" | "unreachable">;
  /**
   * Whether robots.txt lets the crawl fetch `url`, a changeTracking re-check of a page only the previous crawl saw
   * (change-tracking/crawl-recheck.ts): the drain hook that planned it judged the crawl's other rules, but runs
   * inside a store transaction and cannot fetch robots.txt. A robots.txt that disallows it now is obeyed.
   */
  recheckAllowed(job: Job, url: string, signal: AbortSignal): Promise<boolean>;
}

/** Dependencies of the task runner. */
export interface TaskRunnerDeps {
  scrape: ScrapeService;
  keys: KeyStore;
  /** Holds a page's credits from its scrape until the store has charged them (the pool settles the outcome). */
  ledger: CreditLedger;
  planner: CrawlPlanner;
  config: Pick<Config, "defaultTimeoutMs" | "retryBaseDelayMs" | "authEnabled">;
  /**
   * Ends a job as failed with `message` (its waiting tasks set aside, its running pages but `keepTaskId` stopped, its
   * `failed` webhook sent): for a job whose key was revoked. `keepTaskId` is the page that found it out, whose own
   * failure is recorded after this: recorded first, a job's last page completed the job instead.
   */
  failJob(jobId: string, message: string, keepTaskId: string): void;
  /** File sink for a job's pages (screenshots), bound to its owner and public URL. */
  filesFor(job: Job): FileSink;
  now?: () => number;
  /** Where pages failing with an unexpected error (not a page's own) are reported with their cause. */
  log?: Pick<Logger, "error">;
}

/** Creates the runner the worker pool calls for each task. */
export function createTaskRunner(deps: TaskRunnerDeps): TaskRunner {
  const now = deps.now ?? Date.now;
  /** Per job whose key was revoked: how many times in a row failing it failed (its pause grows with them). */
  const failJobTries = new Map<string, number>();
  return async function runTask(task: Task, job: Job, signal: AbortSignal): Promise<Outcome> {
    // A key revoked (or gone from CRAWLBOX_API_KEYS at a restart) stops its jobs here, before the next page runs.
    if (!ownerActive(deps.keys, deps.config.authEnabled, job.keyId)) return revoked(job, task);
    if (task.kind === "kickoff") {
      try {
        const k = await deps.planner.kickoff(job, signal, task.attempts > 1);
        return {
          kind: "done",
          completion: {
            document: null,
            credits: 0,
            discovered: k.discovered,
            robotsBlocked: k.robotsBlocked,
            limit: (job.options.crawlerOptions?.limit as number | undefined) ?? Number.MAX_SAFE_INTEGER,
            ...(k.delayMs !== undefined ? { optionsPatch: { delayMs: k.delayMs } } : {}),
          },
        };
      } catch (err) {
        // Without robots.txt or sitemaps the crawl still runs from its start page.
        return { kind: "done", completion: { document: null, credits: 0 } };
      }
    }

    // The page's credits are held from its scrape until the store has charged them with its result: between the two
    // the runner still awaits robots.txt files and Crawl-delays, and a concurrent check of the key must see them.
    const who = deps.keys.identityOf(job.keyId);
    let hold: CreditHold;
    try {
      hold = deps.ledger.hold(who, 0);
    } catch (err) {
      return { kind: "failed", error: toCrawlboxError(err) }; // the key's quota is spent (402)
    }
    let outcome: Outcome | undefined;
    try {
      outcome = await runPage(task, job, signal, who, hold);
    } finally {
      if (outcome?.kind !== "done" || outcome.completion.credits === 0) hold.release();
    }
    return outcome.kind === "done" && outcome.completion.credits > 0 ? { ...outcome, settle: hold.release } : outcome;
  };

  /**
   * The outcome of `task`, a page whose job's key was revoked: the job fails now (its `failed` webhook sent, nothing
   * more charged), and the page with KEY_REVOKED (in the job's /errors, not retried) once its runner records it. In
   * that order: the page's failure recorded first would complete a job it was the last page of (a `completed`
   * webhook), and the job's failure could no longer change that. The same holds when failing the job fails (the
   * store busy or full): the page is handed back instead, its attempt given back, and its next claim finds the key
   * revoked again and tries once more.
   */
  function revoked(job: Job, task: Task): Outcome {
    const error = new KeyRevokedError();
    try {
      deps.failJob(job.id, error.message, task.id);
    } catch (err) {
      // The whole job waits (leased-page pauses it until `notBefore`), longer each time: each of its pages would
      // otherwise be claimed, handed back and claimed again at once, a transaction each, ahead of every newer job.
      const tries = (failJobTries.get(job.id) ?? 0) + 1;
      failJobTries.set(job.id, tries);
      if ((tries & (tries - 1)) === 0) deps.log?.error("failing the job of a revoked key failed", { job: job.id, tries, cause: String(err) });
      return { kind: "retry", notBefore: now() + backoffMs(tries, deps.config.retryBaseDelayMs), reason: error.code, giveAttemptBack: true };
    }
    failJobTries.delete(job.id);
    return { kind: "failed", error };
  }

  /** A page task: scraped with the job's options, its outcome judged (retry, redirect, links found). */
  async function runPage(task: Task, job: Job, signal: AbortSignal, who: KeyIdentity, hold: CreditHold): Promise<Outcome> {
    // A URL added by `appendToId` is scraped with the options of the request that added it.
    const options = taskOptions(job.options, task.optionsIndex).scrapeOptions as unknown as ScrapeOptions;
    let spec;
    try {
      spec = specFromOptions(task.url, task.sourceUrl, options, { zeroDataRetention: job.options.zeroDataRetention }, deps.config);
    } catch (err) {
      return { kind: "failed", error: toCrawlboxError(err) };
    }
    const isStart = job.kind === "crawl" && task.depth === 0 && task.url === job.url;
    const sitemapOnly = job.kind === "crawl" && job.options.crawlerOptions?.sitemap === "only";
    try {
      const startRobots = isStart ? await deps.planner.startAllowed(job, signal) : true;
      if (startRobots !== true) {
        // Also a robots-blocked URL of the crawl, for its status's warning and `/errors`' robotsBlocked (upstream's
        // recordRobotsBlocked of the start URL).
        const denied = new StartPageDisallowedError(task.url, startRobots === "unreachable").toJSON();
        return { kind: "done", completion: { document: null, credits: 0, denied, robotsBlocked: [task.url] } };
      }
      // A changeTracking re-check of a page only the previous crawl saw: reported hidden, its links not followed.
      const hidden = task.depth === HIDDEN_RECHECK_DEPTH;
      // robots.txt holds for it as for any page of the crawl (upstream filters these URLs with the crawl's
      // filterLinks): one it refuses now is not fetched, costs nothing and is listed as robots-blocked.
      if (hidden && job.kind === "crawl" && !(await deps.planner.recheckAllowed(job, task.url, signal))) {
        return { kind: "done", completion: { document: null, credits: 0, robotsBlocked: [task.url] } };
      }
      const page = await deps.scrape.scrapePage(spec, who, {
        signal,
        creditHold: hold,
        files: deps.filesFor(job),
        scrapeId: task.id,
        storeResult: false,
        chargeCredits: false, // charged when the job store stores the page (setChargeHook)
        // sitemap:"only": the sitemap's pages (and the start page) alone, no page's links followed (upstream's sitemapOnly).
        collectLinks: job.kind === "crawl" && !hidden && !sitemapOnly,
        ...(hidden ? { visibility: "hidden" as const } : {}),
        // The changeTracking baseline is recorded below, only for a result kept (not for an attempt retried).
        deferCommit: true,
        // Before its last attempt the page is retried below on a retryable failure: its LLM calls leave a model server
        // that cannot be reached to that retry instead of knocking again within the second (llm/render-call.ts).
        ...(task.attempts < MAX_PAGE_ATTEMPTS ? { retriedByJob: true } : {}),
      });
      const status = page.document.metadata.statusCode;
      if (isRetryableStatus(status)) {
        const throttled = status === 429 || status === 503;
        const wait = throttled ? retryAfterMs(page.headers["retry-after"], now(), deps.config.retryBaseDelayMs) : undefined;
        if (task.attempts < (throttled ? MAX_THROTTLED_ATTEMPTS : MAX_PAGE_ATTEMPTS)) {
          return { kind: "retry", notBefore: now() + (wait ?? backoffMs(task.attempts, deps.config.retryBaseDelayMs)), reason: `HTTP ${status}`, httpStatus: status };
        }
      }
      // A crawl page that redirected: refused when it left the crawl's scope (api-v2.md §5.6), except the start
      // page, whose landing on another host moves the crawl's origin there (its links are the site's own); otherwise
      // its target is claimed.
      const finalUrl = page.document.metadata.url;
      const origin = isStart && finalUrl ? deps.planner.originAfterRedirect(job, finalUrl) : undefined;
      let movedDelayMs: number | undefined;
      if (origin) {
        job = { ...job, options: { ...job.options, originUrl: origin } };
        // The crawl's pages are on that host now: its robots.txt says how fast (the kickoff read the start host's).
        // Without one readable, the crawl goes on at the start host's pace.
        movedDelayMs = await deps.planner.crawlDelayMs(job, origin, signal).catch(() => undefined);
      }
      // A re-check's redirect is judged too: one leaving the crawl's scope fails as any page's would, and one landing on
      // a page this crawl already has is that page's duplicate.
      const verdict = job.kind === "crawl" && finalUrl ? deps.planner.judgeRedirect(job, task, finalUrl) : undefined;
      if (verdict && "denied" in verdict && !isStart) {
        return { kind: "failed", error: new CrawlDenialError(task.url, finalUrl, verdict.denied) };
      }
      let discovered: NewTask[] = [];
      let robotsBlocked: string[] = [];
      // Links of every page in the results are followed, an error page's too (api-v2.md §5: links are pulled from
      // each crawled page's HTML): a site's 404 page still has its navigation, and an SPA answers 404 with its app.
      if (job.kind === "crawl" && page.links) {
        const d = await deps.planner.discover(job, task, page.links, signal);
        discovered = d.discovered;
        robotsBlocked = d.robotsBlocked;
      }
      // What the page found counts whether or not it is a result; where a start page landed is the crawl's new site
      // (its links above were judged from there).
      const found = {
        discovered,
        robotsBlocked,
        limit: (job.options.crawlerOptions?.limit as number | undefined) ?? Number.MAX_SAFE_INTEGER,
        ...(origin ? { optionsPatch: { originUrl: origin, ...(movedDelayMs !== undefined ? { delayMs: movedDelayMs } : {}) } } : {}),
      };
      // A start page the crawl's rules refuse (includePaths that leave out the root, say): its links are followed,
      // but it is the crawl's error, not a result, and costs nothing (upstream's CrawlDenialError of the source page).
      const startDenied = isStart && finalUrl ? deps.planner.judgeStart(job, finalUrl) : undefined;
      if (startDenied) {
        return { kind: "done", completion: { document: null, credits: 0, denied: new CrawlDenialError(task.url, finalUrl!, startDenied, true).toJSON(), ...found } };
      }
      // A page that was running when its key was revoked is not stored, so not charged either (nor a baseline).
      if (!ownerActive(deps.keys, deps.config.authEnabled, job.keyId)) return revoked(job, task);
      // This attempt is the page's result: it becomes the changeTracking baseline (unless the job was stopped, when
      // the pool hands the page back instead of storing it).
      if (!signal.aborted) page.commit?.();
      return {
        kind: "done",
        completion: {
          document: page.document as Record<string, unknown>,
          credits: page.document.metadata.creditsUsed,
          ...found,
          ...(verdict && "key" in verdict ? { redirect: { key: verdict.key, url: finalUrl } } : {}),
        },
      };
    } catch (err) {
      const e = err instanceof CrawlboxError ? err : toCrawlboxError(err);
      // Not a page's own failure (a bug, the database): the operator needs the cause, which the client never sees.
      // A page cut short by a stop is not one: the pool hands it back to the queue.
      if (!(err instanceof CrawlboxError) && !signal.aborted) deps.log?.error("page task failed unexpectedly", { job: job.id, task: task.id, code: e.code, message: e.message, cause: String((err as Error)?.stack ?? err) });
      if (e.retryable && task.attempts < MAX_PAGE_ATTEMPTS && !signal.aborted) {
        // A rate-limited LLM provider said when to come back (`Retry-After`): wait at least that long (capped), with our
        // backoff's jitter on top so that pages limited at the same moment do not all come back at the same instant.
        const hinted = (e.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
        const backoff = backoffMs(task.attempts, deps.config.retryBaseDelayMs);
        const asked = typeof hinted === "number" ? retryAfterMs(String(hinted), now(), deps.config.retryBaseDelayMs) : undefined;
        const wait = asked === undefined ? backoff : Math.min(RETRY_MAX_DELAY_MS, Math.max(asked, backoff) + Math.round(Math.random() * backoff));
        // A model server found unreachable: the retry waits past the server-down memo (llm/server-down.ts), so that
        // the page asks the server again rather than meet the memo of its own failure.
        return { kind: "retry", notBefore: now() + Math.max(wait, jobRetryFloorMs(e)), reason: e.code };
      }
      return { kind: "failed", error: e };
    }
  }
}
