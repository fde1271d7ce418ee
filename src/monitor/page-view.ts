/**
 * @module monitor/page-view
 * A check's page as clients read it: in `GET /v2/monitor/{id}/checks/{checkId}` (server/routes/monitor.ts) and in a
 * `monitor.page` webhook event (monitor/notices.ts), the same fields in both, absent ones as `null` (the SDK's
 * MonitorCheckPage).
 */
import type { CheckPage } from "./rows.ts";

/** The page's public view. */
export function monitorPageView(p: CheckPage): Record<string, unknown> {
  return {
    id: p.id,
    targetId: p.targetId,
    url: p.url,
    status: p.status,
    previousScrapeId: p.previousScrapeId ?? null,
    currentScrapeId: p.scrapeId ?? null,
    statusCode: p.statusCode ?? null,
    error: p.error ?? null,
    diff: p.diff ?? null,
    snapshot: p.snapshot ?? null,
    judgment: p.judgment ?? null,
    createdAt: new Date(p.createdAt).toISOString(),
  };
}
