/**
 * @module server/routes/account
 * The account routes clients call besides scraping (api-v2.md §1): credit and token usage (current and by
 * month), concurrency and queue status. "Team" is the calling API key: each key has its own quota and usage.
 */
import { Elysia } from "elysia";
import type { CreditLedger } from "../../auth/credits.ts";
import type { KeyIdentity } from "../../auth/keys.ts";
import { authPlugin } from "../auth.ts";
import { ACTIVITY_ENDPOINTS, activityLimitOf, type ActivityEndpoint } from "../../auth/activity.ts";
import { BadRequestError } from "../../errors.ts";
import type { Services } from "../services.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What unlimited keys report as remaining (the same figure upstream's self-host reports). */
export const UNLIMITED_REMAINING = 99_999_999;

function monthBounds(month: string): { startDate: string; endDate: string } {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const start = new Date(Date.UTC(y, m - 1, 1));
  const end = new Date(Date.UTC(y, m, 0, 23, 59, 59, 999));
  return { startDate: start.toISOString(), endDate: end.toISOString() };
}

/** The `/historical` answer: one period per calendar month with credits or tokens. */
function historical(ledger: CreditLedger, who: KeyIdentity, byKey: boolean, field: "creditsUsed" | "tokensUsed") {
  return {
    success: true,
    periods: ledger.history(who).map((h) => ({
      ...monthBounds(h.month),
      ...(byKey ? { apiKey: who.keyId } : {}),
      [field]: field === "creditsUsed" ? h.credits : h.tokens,
    })),
  };
}

/** Routes under /v2 that describe the calling key's account. `who` is resolved by the auth layer. */
export function accountRoutes(services: Services) {
  const { ledger, limiter } = services;
  const maxConcurrency = () => limiter.max + services.config.jobConcurrency;
  return new Elysia({ name: "crawlbox-account" })
    .use(authPlugin(services.keys, services.config.authEnabled))
    .get("/v2/team/credit-usage", ({ who }) => {
      const usage = ledger.usage(who);
      return {
        success: true,
        data: {
          remainingCredits: usage.remainingCredits ?? UNLIMITED_REMAINING,
          planCredits: usage.quota ?? UNLIMITED_REMAINING,
          creditsUsed: usage.creditsUsed,
          unlimited: usage.quota === null,
          billingPeriodStart: null,
          billingPeriodEnd: null,
        },
      };
    }, { detail: { tags: ["account"], summary: "Remaining credits of the calling key" } })
    .get("/v2/team/token-usage", ({ who }) => {
      const usage = ledger.usage(who);
      return {
        success: true,
        data: {
          remainingTokens: UNLIMITED_REMAINING,
          planTokens: UNLIMITED_REMAINING,
          tokensUsed: usage.tokensUsed,
          billingPeriodStart: null,
          billingPeriodEnd: null,
        },
      };
    }, { detail: { tags: ["account"], summary: "LLM tokens used by the calling key" } })
    .get(
      "/v2/team/activity",
      ({ who, query }) => {
        const endpoint = query.endpoint;
        if (endpoint !== undefined && !(ACTIVITY_ENDPOINTS as readonly string[]).includes(endpoint)) {
          throw new BadRequestError(`endpoint must be one of ${ACTIVITY_ENDPOINTS.join(", ")}.`, [{ code: "invalid_enum_value", path: ["endpoint"], message: "Invalid endpoint" }]);
        }
        const limit = activityLimitOf(query.limit);
        if (query.cursor !== undefined && !/^\d{1,15}$/.test(query.cursor)) throw new BadRequestError("cursor is not one this server gave.", [{ code: "custom", path: ["cursor"], message: "Invalid cursor" }]);
        return { success: true, ...services.activity.list(who.keyId, { limit, ...(endpoint ? { endpoint: endpoint as ActivityEndpoint } : {}), ...(query.cursor ? { cursor: Number(query.cursor) } : {}) }) };
      },
      { detail: { tags: ["account"], summary: "The calling key's jobs of the last 24 hours, newest first (?endpoint=, ?limit= default 50, at most 100, ?cursor=)" } },
    )
    .get("/v2/team/credit-usage/historical", ({ who, query }) => historical(ledger, who, query.byApiKey === "true", "creditsUsed"), {
      detail: { tags: ["account"], summary: "Credits used per month" },
    })
    .get("/v2/team/token-usage/historical", ({ who, query }) => historical(ledger, who, query.byApiKey === "true", "tokensUsed"), {
      detail: { tags: ["account"], summary: "LLM tokens used per month" },
    })
    // Both report the calling key's work (its synchronous scrapes, searches, extracts, and its crawl and batch
    // pages) against what the server runs at once (its scrape slots and job workers), so they agree.
    .get("/v2/concurrency-check", ({ who }) => {
      return { success: true, concurrency: limiter.usage(who.keyId).running + services.jobResults.queueCounts(who.keyId).active, maxConcurrency: maxConcurrency() };
    }, { detail: { tags: ["account"], summary: "The calling key's work running now, and the server's limit" } })
    .get("/v2/team/queue-status", ({ who }) => {
      const pages = services.jobResults.queueCounts(who.keyId);
      const mine = limiter.usage(who.keyId);
      const since = Date.now() - DAY_MS;
      const last = Math.max(services.scrapeStats.lastSuccessAt(who.keyId) ?? 0, services.jobResults.lastPageAt(who.keyId, since) ?? 0);
      return {
        success: true,
        jobsInQueue: mine.running + mine.waiting + pages.active + pages.queued,
        activeJobsInQueue: mine.running + pages.active,
        waitingJobsInQueue: mine.waiting + pages.queued,
        maxConcurrency: maxConcurrency(),
        mostRecentSuccess: last >= since ? new Date(last).toISOString() : null,
      };
    }, { detail: { tags: ["account"], summary: "The calling key's queue" } });
}
