/**
 * @module api/monitor
 * `POST /v2/monitor` and `PATCH /v2/monitor/{id}` bodies (the SDK's `CreateMonitorRequest` / `UpdateMonitorRequest`):
 * a name, a schedule (`cron`, or `text` such as "hourly" or "daily at 9:00", in a `timezone`), targets, and how to
 * be told (a webhook, and email through the operator's mail relay). Targets: `scrape` (URLs, with scrape options),
 * `crawl` (a site from a start URL, its crawl options checked as a crawl body's) and `search` (queries whose new
 * results are reported) (docs/monitor.md).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { BadRequestError } from "../errors.ts";
import { parseCrawlBody } from "./crawl.ts";
import { Int, oneOf, PromptField, strictObject, UrlField } from "./common.ts";
import type { Issue } from "./issues.ts";
import { ScrapeOptionsSchema, normalizeScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { refineScrapeOptions } from "./refine.ts";
import { urlAt } from "./url.ts";
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
/**
 * Most pages one check of a monitor reads: its scrape targets' URLs plus its crawl targets' `limit`s (a crawl target
 * without one counts at its default, this same number), all targets together. Search targets are priced per search
 * and not counted here (they scrape nothing).
 */
export const MAX_MONITOR_URLS = 100;
/** Longest a monitor keeps its checks. */
export const MAX_RETENTION_DAYS = 365;
export const DEFAULT_RETENTION_DAYS = 30;

/** Most queries of one search target, and results per query (default {@link DEFAULT_MONITOR_RESULTS}). */
export const MAX_MONITOR_QUERIES = 10;
export const MAX_MONITOR_RESULTS = 50;
export const DEFAULT_MONITOR_RESULTS = 10;

const ScheduleSchema = strictObject({
  cron: t.Optional(t.String({ maxLength: 200 })),
  text: t.Optional(t.String({ maxLength: 200 })),
  timezone: t.Optional(t.String({ maxLength: 100 })),
});

const TargetSchema = t.Union([
  strictObject({ id: t.Optional(t.String({ maxLength: 100 })), type: t.Literal("scrape"), urls: t.Array(UrlField, { minItems: 1, maxItems: MAX_MONITOR_URLS }), scrapeOptions: t.Optional(ScrapeOptionsSchema) }),
  strictObject({ id: t.Optional(t.String({ maxLength: 100 })), type: t.Literal("crawl"), url: UrlField, crawlOptions: t.Optional(
      t.Record(t.String(), t.Unknown(), {
        description: `The SDK's CrawlOptions: a POST /v2/crawl body without url, checked as one (unknown options are a 400); limit at most ${MAX_MONITOR_URLS}, and that by default`,
      }),
    ), scrapeOptions: t.Optional(ScrapeOptionsSchema) }),
  strictObject({
    id: t.Optional(t.String({ maxLength: 100 })),
    type: t.Literal("search"),
    queries: t.Array(t.String({ minLength: 1, maxLength: 500 }), {
      minItems: 1,
      maxItems: MAX_MONITOR_QUERIES,
      errorMessages: { maxItems: `A search target has at most ${MAX_MONITOR_QUERIES} queries.` },
    }),
    searchWindow: t.Optional(oneOf(["5m", "15m", "1h", "6h", "24h", "7d"])),
    includeDomains: t.Optional(t.Array(t.String())),
    excludeDomains: t.Optional(t.Array(t.String())),
    maxResults: t.Optional(
      Int({
        minimum: 1,
        maximum: MAX_MONITOR_RESULTS,
        default: DEFAULT_MONITOR_RESULTS,
        description: "Results read per query",
        errorMessages: { maximum: `A search target reads at most ${MAX_MONITOR_RESULTS} results per query.` },
      }),
    ),
  }),
]);

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

/** A scrape target as stored: its id, its URLs normalised, its scrape options normalised. */
export interface MonitorScrapeTarget {
  id: string;
  type: "scrape";
  urls: string[];
  scrapeOptions: ScrapeOptions;
}

/** A crawl target as stored: the crawl's start URL and its crawler options (a `limit` of at most 100 pages). */
export interface MonitorCrawlTarget {
  id: string;
  type: "crawl";
  url: string;
  crawlOptions: Record<string, unknown>;
  scrapeOptions: ScrapeOptions;
}

/** A search target as stored: its queries and filters; `maxResults` per query (default 10). */
export interface MonitorSearchTarget {
  id: string;
  type: "search";
  queries: string[];
  searchWindow?: "5m" | "15m" | "1h" | "6h" | "24h" | "7d";
  includeDomains?: string[];
  excludeDomains?: string[];
  maxResults: number;
}

/** A target crawlbox runs. */
export type MonitorTarget = MonitorScrapeTarget | MonitorCrawlTarget | MonitorSearchTarget;

/**
 * What a target may cost a check at most, at 1 credit a page: its URLs, its crawl's page limit, or its searches
 * (2 credits per started 10 results, per query). Quota checks and `estimatedCreditsPerMonth` use it.
 */
export function targetPages(target: MonitorTarget): number {
  if (target.type === "scrape") return target.urls.length;
  if (target.type === "crawl") return Number(target.crawlOptions.limit);
  return target.queries.length * 2 * Math.ceil(target.maxResults / 10);
}

/** What all of a monitor's targets may cost one check at most ({@link targetPages} summed). */
export function monitorPages(targets: readonly MonitorTarget[]): number {
  return targets.reduce((n, t) => n + targetPages(t), 0);
}

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

type TargetInput = Static<typeof TargetSchema>;

/** A crawl target, checked as the crawl body it becomes; its issues are reported under the target's own path. */
function crawlTarget(target: Extract<TargetInput, { type: "crawl" }>, id: string, i: number, issues: Issue[]): MonitorCrawlTarget | undefined {
  // The default limit is the most a monitor may read: a crawl target without one counts as MAX_MONITOR_URLS pages.
  const options = { limit: MAX_MONITOR_URLS, ...(target.crawlOptions ?? {}) };
  try {
    // Checked as the crawl body it becomes: the SDK's CrawlOptions is a crawl body's options (webhook, prompt and
    // the like included, of which the check keeps its crawler options). The target's url and scrapeOptions win.
    const { url: _url, ...rest } = options as Record<string, unknown>;
    const req = parseCrawlBody({ ...rest, url: target.url, scrapeOptions: target.scrapeOptions ?? rest.scrapeOptions ?? {} });
    if (req.crawlerOptions.limit > MAX_MONITOR_URLS) {
      issues.push({ code: "custom", path: ["targets", i, "crawlOptions", "limit"], message: `A monitor's crawl reads at most ${MAX_MONITOR_URLS} pages.` });
    }
    return { id, type: "crawl", url: req.url, crawlOptions: req.crawlerOptions as Record<string, unknown>, scrapeOptions: req.scrapeOptions };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    const found = Array.isArray(err.details) ? (err.details as Issue[]) : [{ code: "custom", path: [], message: err.message } as Issue];
    for (const x of found) {
      const [head, ...rest] = x.path;
      const path = head === "url" || head === "scrapeOptions" ? [head, ...rest] : ["crawlOptions", ...(head === undefined ? [] : [head, ...rest])];
      issues.push({ ...x, path: ["targets", i, ...path] });
    }
    return undefined;
  }
}

/**
 * The targets as stored, an id-less one named by its place (`target-1`, …). With `provisionalIds` (an update) those
 * names are not final (monitor/target-ids.ts), so only the ids the body gave must differ.
 */
function targets(input: TargetInput[], issues: Issue[], provisionalIds = false): MonitorTarget[] {
  const out: MonitorTarget[] = [];
  const ids = new Set<string>();
  input.forEach((target, i) => {
    const id = target.id ?? `target-${i + 1}`;
    if (!provisionalIds || target.id !== undefined) {
      if (ids.has(id)) issues.push({ code: "custom", path: ["targets", i, "id"], message: `Two targets have the id ${JSON.stringify(id)}.` });
      ids.add(id);
    }
    if (target.type === "search") {
      // The schema enforces the number of queries and maxResults (MAX_MONITOR_QUERIES, MAX_MONITOR_RESULTS).
      const maxResults = target.maxResults ?? DEFAULT_MONITOR_RESULTS;
      const s: MonitorSearchTarget = { id, type: "search", queries: target.queries, maxResults };
      if (target.searchWindow) s.searchWindow = target.searchWindow;
      if (target.includeDomains) s.includeDomains = target.includeDomains;
      if (target.excludeDomains) s.excludeDomains = target.excludeDomains;
      out.push(s);
      return;
    }
    if (target.type === "crawl") {
      const crawl = crawlTarget(target, id, i, issues);
      if (crawl) out.push(crawl);
      return;
    }
    const normalised = target.urls.map((u, j) => urlAt(u, ["targets", i, "urls", j], issues)).filter((u): u is string => u !== undefined);
    // The shape was checked with the body; this applies the options' defaults, as a scrape body's are.
    const options = validateBody(ScrapeOptionsSchema, target.scrapeOptions ?? {});
    issues.push(...refineScrapeOptions(options, ["targets", i, "scrapeOptions"]));
    out.push({ id, type: "scrape", urls: [...new Set(normalised)], scrapeOptions: normalizeScrapeOptions(options) });
  });
  // Scrape URLs and crawl limits together (docs/monitor.md "Limits and cost"): three crawls of 100 pages are 300.
  const pages = out.reduce((n, t) => (t.type === "search" ? n : n + targetPages(t)), 0);
  if (pages > MAX_MONITOR_URLS) {
    issues.push({ code: "custom", path: ["targets"], message: `A monitor checks at most ${MAX_MONITOR_URLS} pages (its scrape targets' URLs plus its crawl targets' limits, ${MAX_MONITOR_URLS} for a crawl without one); these targets have ${pages}.` });
  }
  return out;
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
