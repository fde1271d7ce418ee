/**
 * @module api/monitor
 * `POST /v2/monitor` and `PATCH /v2/monitor/{id}` bodies (the SDK's `CreateMonitorRequest` / `UpdateMonitorRequest`):
 * a name, a schedule (`cron`, or `text` such as "hourly" or "daily at 9:00", in a `timezone`), targets, and how to
 * be told (a webhook, and email through the operator's mail relay). Targets: `scrape` (URLs, with scrape options),
 * `crawl` (a site from a start URL, its crawl options checked as a crawl body's) and `search` (queries whose new
 * results are reported) (docs/monitor.md); their schemas, stored shapes and validation are api/monitor-targets.ts.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { BadRequestError } from "../errors.ts";
import { Int, oneOf, PromptField, strictObject } from "./common.ts";
import type { Issue } from "./issues.ts";
import { TargetSchema, targets, type MonitorTarget } from "./monitor-targets.ts";
import { throwIfIssues, validateBody } from "./validate.ts";
import { normalizeWebhook, webhookField, type Webhook } from "./webhook.ts";

/** Events a monitor announces: `monitor.check.completed` after every check, `monitor.check.failed` when one fails. */
export const MONITOR_WEBHOOK_EVENTS = ["check.completed", "check.failed"] as const;
/**
 * Names a monitor webhook's `events` may hold: each form of the three events that the outbox's filter matches
 * (webhooks/outbox.ts `webhookEventMatchesFilter`, api-v2.md §4): the full name, the name after the first dot, the
 * last part, and `check` (the part after the first dot, so both check events). Upstream clients send the full names,
 * often with `monitor.page` (one event per page as the check records it; sent only when asked for: the default is
 * {@link MONITOR_WEBHOOK_EVENTS}). Any other name (a typo) is a 400 rather than a webhook that stays silent.
 */
export const MONITOR_WEBHOOK_EVENT_FILTERS = ["monitor.check.completed", "monitor.check.failed", "check.completed", "check.failed", "completed", "failed", "check", "monitor.page", "page"] as const;
export type MonitorWebhookEventFilter = (typeof MONITOR_WEBHOOK_EVENT_FILTERS)[number];
export type MonitorWebhook = Webhook<MonitorWebhookEventFilter>;

/** Recipients one monitor's email notification may have. */
export const MAX_EMAIL_RECIPIENTS = 10;

/** A monitor's notification settings, as stored and answered. */
export interface MonitorNotification {
  email: { enabled: boolean; recipients: string[]; includeDiffs: boolean };
}

/** Longest a monitor keeps its checks. */
export const MAX_RETENTION_DAYS = 365;
export const DEFAULT_RETENTION_DAYS = 30;

const ScheduleSchema = strictObject({
  cron: t.Optional(t.String({ maxLength: 200 })),
  text: t.Optional(t.String({ maxLength: 200 })),
  timezone: t.Optional(t.String({ maxLength: 100 })),
});

const NotificationSchema = strictObject({
  email: t.Optional(strictObject({ enabled: t.Optional(t.Boolean()), recipients: t.Optional(t.Array(t.String({ maxLength: 254 }), { maxItems: 10 })), includeDiffs: t.Optional(t.Boolean()) })),
});

const common = {
  webhook: t.Optional(webhookField(MONITOR_WEBHOOK_EVENT_FILTERS, MONITOR_WEBHOOK_EVENTS)),
  notification: t.Optional(NotificationSchema),
  targets: t.Array(TargetSchema, { minItems: 1, maxItems: 20 }),
  retentionDays: t.Optional(Int({ minimum: 1, maximum: MAX_RETENTION_DAYS })),
  goal: t.Optional(PromptField),
  judgeEnabled: t.Optional(t.Boolean()),
};

export const CreateMonitorSchema = strictObject(
  { name: t.String({ minLength: 1, maxLength: 200 }), schedule: ScheduleSchema, ...common, origin: t.Optional(t.String()), integration: t.Optional(t.Union([t.String(), t.Null()])) },
  { description: "POST /v2/monitor body" },
);

export const UpdateMonitorSchema = strictObject(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    status: t.Optional(oneOf(["active", "paused"])),
    schedule: t.Optional(ScheduleSchema),
    webhook: t.Optional(t.Union([webhookField(MONITOR_WEBHOOK_EVENT_FILTERS, MONITOR_WEBHOOK_EVENTS), t.Null()])),
    notification: t.Optional(t.Union([NotificationSchema, t.Null()])),
    targets: t.Optional(common.targets),
    retentionDays: common.retentionDays,
    goal: t.Optional(t.Union([PromptField, t.Null()])),
    judgeEnabled: common.judgeEnabled,
    origin: t.Optional(t.String()),
  },
  { description: "PATCH /v2/monitor/{id} body" },
);

/** A schedule as given (normalised to `cron` by monitor/schedule.ts). */
export type MonitorScheduleInput = Static<typeof ScheduleSchema>;

/** The monitor fields a create or an update sets, validated. */
export interface MonitorFields {
  name?: string;
  status?: "active" | "paused";
  schedule?: MonitorScheduleInput;
  webhook?: MonitorWebhook | null;
  targets?: MonitorTarget[];
  retentionDays?: number;
  goal?: string | null;
  judgeEnabled?: boolean;
  /** `null` removes it; absent (or `{}` in the body) leaves it as it is. */
  notification?: MonitorNotification | null;
  /**
   * An update's: for each of `targets`, whether the body gave its id. The others' positional ids are provisional:
   * the service settles them against the monitor's targets (monitor/target-ids.ts). Absent: every id is final.
   */
  targetIdsGiven?: boolean[];
}

/**
 * The notification settings (`email: {enabled?, recipients, includeDiffs?}`, enabled unless said otherwise), or
 * `null` to remove them; an enabled email needs 1 to {@link MAX_EMAIL_RECIPIENTS} addresses. An empty object says
 * nothing, so it changes nothing (undefined): only `null` removes settings, and a PATCH that sends `{}` (a client
 * serialising an unset form, say) must not silently stop a monitor's emails. Whether a mail relay is configured is
 * the service's check (monitor/service.ts).
 */
function notification(input: Static<typeof NotificationSchema> | null | undefined, issues: Issue[]): MonitorNotification | null | undefined {
  if (input === undefined || input === null) return input as null | undefined;
  if (input.email === undefined) return undefined;
  // Lower-cased: case variants are one mailbox in practice, and one recipient (mail/recipients.ts).
  const recipients = [...new Set((input.email.recipients ?? []).map((r) => r.trim().toLowerCase()))];
  const enabled = input.email.enabled !== false;
  recipients.forEach((r, i) => {
    // Printable ASCII only (no SMTPUTF8): what every relay takes in RCPT TO.
    if (r.length > 254 || !/^[\x21-\x7e]+$/.test(r) || !/^[^@<>(),;:"]+@[^@<>(),;:"]+\.[^@<>(),;:"]+$/.test(r)) issues.push({ code: "custom", path: ["notification", "email", "recipients", i], message: `Not an e-mail address: ${r.slice(0, 80)}` });
  });
  if (enabled && recipients.length === 0) issues.push({ code: "custom", path: ["notification", "email", "recipients"], message: "An email notification needs at least one recipient." });
  if (recipients.length > MAX_EMAIL_RECIPIENTS) issues.push({ code: "custom", path: ["notification", "email", "recipients"], message: `At most ${MAX_EMAIL_RECIPIENTS} recipients.` });
  return { email: { enabled, recipients, includeDiffs: input.email.includeDiffs ?? false } };
}

function webhook(input: unknown, issues: Issue[]): MonitorWebhook | null | undefined {
  if (input === undefined || input === null) return input as null | undefined;
  const w = normalizeWebhook<MonitorWebhookEventFilter>(input as string | { url: string; events?: MonitorWebhookEventFilter[] }, MONITOR_WEBHOOK_EVENTS, ["webhook"]);
  issues.push(...w.issues);
  return w.webhook as MonitorWebhook | undefined;
}

/** Validates a create body; throws `BadRequestError` (400) with zod-shaped details. */
export function parseCreateMonitorBody(body: unknown): MonitorFields & { name: string; schedule: MonitorScheduleInput; targets: MonitorTarget[] } {
  const v = validateBody(CreateMonitorSchema, body);
  const issues: Issue[] = [];
  const out = { name: v.name, schedule: v.schedule, targets: targets(v.targets, issues), retentionDays: v.retentionDays ?? DEFAULT_RETENTION_DAYS, judgeEnabled: v.judgeEnabled ?? false } as MonitorFields & { name: string; schedule: MonitorScheduleInput; targets: MonitorTarget[] };
  const w = webhook(v.webhook, issues);
  if (w) out.webhook = w;
  const n = notification(v.notification, issues);
  if (n) out.notification = n;
  if (v.goal !== undefined) out.goal = v.goal;
  if (out.judgeEnabled && !out.goal) issues.push({ code: "custom", path: ["judgeEnabled"], message: "judgeEnabled needs a goal: what a meaningful change is." });
  throwIfIssues(issues);
  return out;
}

/** Validates an update body; throws `BadRequestError` (400). */
export function parseUpdateMonitorBody(body: unknown): MonitorFields {
  const v = validateBody(UpdateMonitorSchema, body);
  const issues: Issue[] = [];
  const out: MonitorFields = {};
  if (v.name !== undefined) out.name = v.name;
  if (v.status !== undefined) out.status = v.status;
  if (v.schedule !== undefined) out.schedule = v.schedule;
  if (v.targets !== undefined) {
    out.targets = targets(v.targets, issues, true);
    out.targetIdsGiven = v.targets.map((target) => target.id !== undefined);
  }
  if (v.retentionDays !== undefined) out.retentionDays = v.retentionDays;
  if (v.goal !== undefined) out.goal = v.goal;
  if (v.judgeEnabled !== undefined) out.judgeEnabled = v.judgeEnabled;
  if (v.webhook !== undefined) out.webhook = webhook(v.webhook, issues) ?? null;
  const n = notification(v.notification, issues);
  if (n !== undefined) out.notification = n;
  throwIfIssues(issues);
  if (Object.keys(out).length === 0) throw new BadRequestError("Nothing to update: give at least one field.");
  return out;
}
