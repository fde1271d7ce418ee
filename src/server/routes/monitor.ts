/**
 * @module server/routes/monitor
 * `/v2/monitor` (the SDK's monitor methods; docs/monitor.md): create, list, read, update (PATCH), delete, run now,
 * list checks, read a check with its pages. Every answer is `{success: true, data}`, as the SDK reads it; the shapes
 * are the SDK's `Monitor`, `MonitorCheck` and `MonitorCheckDetail`.
 */
import { monitorPageView } from "../../monitor/page-view.ts";
import { Elysia } from "elysia";
import { CreateMonitorSchema, parseCreateMonitorBody, parseUpdateMonitorBody, UpdateMonitorSchema } from "../../api/monitor.ts";
import { monitorPages } from "../../api/monitor-targets.ts";
import { BadRequestError, NotFoundError } from "../../errors.ts";
import { estimatedRunsPerMonth } from "../../monitor/schedule.ts";
import type { MonitorService } from "../../monitor/service.ts";
import type { CheckRow, MonitorRow } from "../../monitor/rows.ts";
import { publicBaseUrl } from "../public-url.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** Pages of a check per answer unless `limit` says otherwise; at most {@link MAX_PAGE_LIMIT}. */
const DEFAULT_PAGE_LIMIT = 100;
const MAX_PAGE_LIMIT = 1_000;

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A query integer in [min, max], or `fallback` when absent; a 400 otherwise. */
function intParam(query: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new BadRequestError(`${name} must be an integer from ${min} to ${max}.`);
  return Number(raw);
}

function monitorView(m: MonitorRow, monitors: MonitorService): Record<string, unknown> {
  const pages = monitorPages(m.targets);
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    schedule: m.schedule,
    nextRunAt: iso(monitors.nextRunAt(m.id)?.getTime()),
    lastRunAt: iso(m.lastRunAt),
    currentCheckId: m.currentCheckId ?? null,
    targets: m.targets,
    webhook: m.webhook ?? null,
    notification: m.notification ?? null,
    ...(() => {
      const subs = monitors.recipientSubscriptions(m);
      return subs ? { emailRecipientSubscriptions: subs } : {};
    })(),
    retentionDays: m.retentionDays,
    estimatedCreditsPerMonth: m.status === "active" ? Math.round(pages * estimatedRunsPerMonth(m.schedule)) : 0,
    lastCheckSummary: m.lastSummary ?? null,
    goal: m.goal ?? null,
    judgeEnabled: m.judgeEnabled,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
  };
}

/**
 * How a check's notifications went (the SDK's `notificationStatus`): its emails (one per recipient) and its webhook
 * event, each as the outboxes keep them (7 days for emails, as long as the webhook outbox keeps events); null when
 * the check sent neither (or it is still running, or its records are gone).
 */
function notificationStatus(c: CheckRow, services: Services): Record<string, unknown> | null {
  const email = services.mail?.checkStatus(c.id) ?? null;
  const event = services.webhooks.deliveries(c.id, c.keyId, { limit: 1 }).deliveries[0];
  const webhook = event ? { webhookId: event.webhookId, type: event.type, status: event.status, attempts: event.attempts.length, lastError: event.lastError } : null;
  return email || webhook ? { email, webhook } : null;
}

function checkView(c: CheckRow, m: MonitorRow, services: Services): Record<string, unknown> {
  const skipped = c.status.startsWith("skipped");
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    trigger: c.trigger,
    scheduledFor: iso(c.scheduledFor),
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    // What the check ran with; a check stored before that was kept (migration 30) is answered from the monitor now.
    estimatedCredits: skipped ? 0 : (c.estimatedCredits ?? monitorPages(m.targets)),
    reservedCredits: null,
    actualCredits: c.credits,
    // Pages are charged as they are scraped: nothing is reserved, and what a finished check cost is final.
    billingStatus: skipped ? "not_applicable" : c.status === "running" || c.status === "queued" ? "reserved" : "confirmed",
    summary: c.summary,
    targetResults: (c.targets ?? m.targets).map((t) => ({ targetId: t.id, type: t.type, ...(c.targetResults?.[t.id] ?? {}) })),
    notificationStatus: notificationStatus(c, services),
    error: c.error ?? null,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

/** The monitor routes. */
export function monitorRoutes(services: Services) {
  const { config, monitors, monitorStore } = services;
  const q = (query: unknown) => query as Record<string, string | undefined>;
  return new Elysia({ name: "crawlbox-monitor" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post("/v2/monitor", ({ body, who }) => ({ success: true, data: monitorView(monitors.create(parseCreateMonitorBody(body), who), monitors) }), {
      detail: { tags: ["monitor"], summary: "Create a monitor", requestBody: { required: true, content: { "application/json": { schema: CreateMonitorSchema as object } } } },
    })
    .get(
      "/v2/monitor",
      ({ query, who }) => {
        const limit = intParam(q(query), "limit", 50, 1, 100);
        const offset = intParam(q(query), "offset", 0, 0, 1_000_000);
        return { success: true, data: monitors.list(who.keyId, limit, offset).map((m) => monitorView(m, monitors)) };
      },
      { detail: { tags: ["monitor"], summary: "The key's monitors" } },
    )
    .get("/v2/monitor/:id", ({ params, who }) => ({ success: true, data: monitorView(monitors.get(params.id, who.keyId), monitors) }), {
      detail: { tags: ["monitor"], summary: "A monitor" },
    })
    .patch("/v2/monitor/:id", ({ params, body, who }) => ({ success: true, data: monitorView(monitors.update(params.id, parseUpdateMonitorBody(body), who), monitors) }), {
      detail: { tags: ["monitor"], summary: "Update a monitor", requestBody: { required: true, content: { "application/json": { schema: UpdateMonitorSchema as object } } } },
    })
    .delete(
      "/v2/monitor/:id",
      ({ params, who }) => {
        monitors.delete(params.id, who.keyId);
        return { success: true };
      },
      { detail: { tags: ["monitor"], summary: "Delete a monitor and its checks" } },
    )
    .post(
      "/v2/monitor/:id/run",
      ({ params, who }) => {
        const check = monitors.run(params.id, who);
        return { success: true, data: checkView(check, monitors.get(params.id, who.keyId), services) };
      },
      { detail: { tags: ["monitor"], summary: "Check a monitor now" } },
    )
    .get(
      "/v2/monitor/:id/checks",
      ({ params, query, who }) => {
        const m = monitors.get(params.id, who.keyId);
        const limit = intParam(q(query), "limit", 50, 1, 100);
        const offset = intParam(q(query), "offset", 0, 0, 1_000_000);
        return { success: true, data: monitorStore.checks(m.id, limit, offset).map((c) => checkView(c, m, services)) };
      },
      { detail: { tags: ["monitor"], summary: "A monitor's checks, newest first" } },
    )
    .get(
      "/v2/monitor/:id/checks/:checkId",
      ({ params, query, who, request }) => {
        const m = monitors.get(params.id, who.keyId);
        const check = monitorStore.getCheck(m.id, params.checkId);
        if (!check) throw new NotFoundError("Monitor check not found.");
        const limit = intParam(q(query), "limit", DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT);
        const skip = intParam(q(query), "skip", 0, 0, 1_000_000);
        const status = q(query).status;
        if (status !== undefined && !["same", "new", "changed", "removed", "error"].includes(status)) throw new BadRequestError("status must be same, new, changed, removed or error.");
        const pages = monitorStore.pages(check.id, limit + 1, skip, status);
        const more = pages.length > limit;
        const next = more ? `${publicBaseUrl(config.publicUrl, request)}/v2/monitor/${m.id}/checks/${check.id}?skip=${skip + limit}&limit=${limit}${status ? `&status=${status}` : ""}` : null;
        return { success: true, data: { ...checkView(check, m, services), pages: pages.slice(0, limit).map(monitorPageView), next }, next };
      },
      { detail: { tags: ["monitor"], summary: "A check with its pages" } },
    );
}
