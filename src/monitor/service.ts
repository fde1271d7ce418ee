/**
 * @module monitor/service
 * `/v2/monitor`: scheduled change monitoring (the SDK's `createMonitor`, `listMonitors`, `getMonitor`,
 * `updateMonitor`, `deleteMonitor`, `runMonitor`, `listMonitorChecks`, `getMonitorCheck`). Each active monitor has
 * an in-process croner job on its schedule; a tick (or `POST /v2/monitor/{id}/run`) starts a check (monitor/check.ts)
 * unless one is still running (`skipped_overlap`) or the key cannot pay for its pages (`skipped_no_credits`).
 * A finished check announces `monitor.check.completed` (or `monitor.check.failed`) to the monitor's webhook, with
 * its summary and the pages that are new, changed or removed. Monitors live in SQLite and are scheduled again at
 * every start; a check a stopped server left running is failed then. Starting, queueing, running and ending checks
 * is monitor/check-runner.ts; this file manages the monitors and their schedules.
 */
import type { Database } from "bun:sqlite";
import { Cron } from "croner";
import type { MonitorFields } from "../api/monitor.ts";
import type { MonitorTarget } from "../api/monitor-targets.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity, KeyStore } from "../auth/keys.ts";
import { carryTargetIds } from "./target-ids.ts";
import { ownerActive } from "../jobs/owner-active.ts";
import { BadRequestError, NotFoundError, TooManyRequestsError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { immediate } from "../storage/database.ts";
import type { CheckDeps } from "./check.ts";
import { CheckRunner } from "./check-runner.ts";
import type { MailOutbox } from "../mail/outbox.ts";
import type { MailRecipients, RecipientSubscription } from "../mail/recipients.ts";
import { MonitorNotices } from "./notices.ts";
import { normalizeSchedule } from "./schedule.ts";
import type { CheckRow, MonitorRow } from "./rows.ts";
import type { MonitorStore } from "./store.ts";

/** Monitors one key may have. */
export const MAX_MONITORS_PER_KEY = 50;

/** Dependencies of {@link MonitorService}. */
export interface MonitorServiceDeps extends Omit<CheckDeps, "newId" | "now" | "config"> {
  /** The checks' settings, and whether requests are authenticated (with `CRAWLBOX_AUTH=off` they are `anonymous`'s). */
  config: CheckDeps["config"] & { authEnabled: boolean };
  db: Database;
  store: MonitorStore;
  ledger: CreditLedger;
  keys: Pick<KeyStore, "identityOf" | "isActive">;
  kickWebhooks: () => void;
  /** Cancels the running crawls a check started (jobs/service.ts cancelMonitorCrawls); how many. */
  stopCheckCrawls?: (checkId: string) => number;
  /** The mail outbox, when a relay is configured (`CRAWLBOX_SMTP_URL`): email notifications need it. */
  mail?: MailOutbox;
  /** The recipients' opt-in (with `mail`). */
  recipients?: MailRecipients;
  /**
   * The server's public base URL (`CRAWLBOX_PUBLIC_URL`) for the links in emails: never taken from a request, whose
   * headers a key's holder writes. Email notifications need it.
   */
  publicBaseUrl?: string;
  log: Pick<Logger, "warn" | "info">;
  now?: () => number;
  newId?: () => string;
}

/** Runs and manages monitors. */
export class MonitorService {
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly crons = new Map<string, Cron>();
  /** Its webhook events and emails (monitor/notices.ts). */
  private readonly notices: MonitorNotices;
  /** Its checks: started, queued, run and ended (monitor/check-runner.ts). */
  private readonly checks: CheckRunner;
  private closed = false;

  constructor(private readonly deps: MonitorServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? (() => crypto.randomUUID());
    const { db, store, kickWebhooks, mail, recipients, publicBaseUrl } = deps;
    this.notices = new MonitorNotices({ db, store, kickWebhooks, now: this.now, ...(mail ? { mail } : {}), ...(recipients ? { recipients } : {}), ...(publicBaseUrl ? { publicBaseUrl } : {}) });
    this.checks = new CheckRunner(deps, this.notices, this.now, this.newId);
  }

  /**
   * At `crawlbox serve` start: fails the checks a stopped server left running (with what their pages did, and their
   * webhook), and schedules every active monitor; one that cannot be scheduled is logged, not fatal.
   */
  start(): { scheduled: number; failed: number } {
    const failed = this.checks.failAbandoned();
    let scheduled = 0;
    for (const m of this.deps.store.active()) {
      try {
        this.arm(m);
        scheduled++;
      } catch (err) {
        this.deps.log.warn("monitor could not be scheduled", { monitor: m.id, error: String(err) });
      }
    }
    return { scheduled, failed };
  }

  /** Creates a monitor for `who` and schedules it. */
  create(fields: MonitorFields & { name: string; schedule: NonNullable<MonitorFields["schedule"]>; targets: MonitorTarget[] }, who: KeyIdentity): MonitorRow {
    const now = this.now();
    const m: MonitorRow = {
      id: this.newId(),
      keyId: who.keyId,
      name: fields.name,
      status: "active",
      schedule: normalizeSchedule(fields.schedule),
      targets: fields.targets,
      retentionDays: fields.retentionDays ?? 30,
      judgeEnabled: fields.judgeEnabled ?? false,
      createdAt: now,
      updatedAt: now,
    };
    if (fields.webhook) m.webhook = fields.webhook;
    if (fields.notification) m.notification = fields.notification;
    if (fields.goal) m.goal = fields.goal;
    this.notices.checkMailable(m);
    this.checks.checkRunnable(m);
    immediate(this.deps.db, () => {
      if (this.deps.store.count(who.keyId) >= MAX_MONITORS_PER_KEY) {
        throw new TooManyRequestsError("TOO_MANY_MONITORS", `This key already has ${MAX_MONITORS_PER_KEY} monitors; delete one first.`);
      }
      this.deps.store.save(m);
      this.notices.askConfirmations(m);
    });
    void this.deps.mail?.deliver();
    this.arm(m);
    return m;
  }

  /** The monitor `id` of `keyId`, or a 404. */
  get(id: string, keyId: string): MonitorRow {
    const m = this.deps.store.get(id);
    if (!m || m.keyId !== keyId) throw new NotFoundError("Monitor not found.");
    return m;
  }

  list(keyId: string, limit: number, offset: number): MonitorRow[] {
    return this.deps.store.list(keyId, limit, offset);
  }

  /** Applies an update (a schedule, targets, pausing, …) and schedules the monitor again. */
  update(id: string, fields: MonitorFields, who: KeyIdentity): MonitorRow {
    const m = this.get(id, who.keyId);
    if (fields.name !== undefined) m.name = fields.name;
    if (fields.status !== undefined) m.status = fields.status;
    if (fields.schedule !== undefined) {
      // A partial schedule changes what it names: a new cron (or text) keeps the zone, a new zone keeps the cron.
      const s = fields.schedule;
      const when = s.cron !== undefined ? { cron: s.cron } : s.text !== undefined ? { text: s.text } : { cron: m.schedule.cron };
      const kept = s.cron === undefined && s.text === undefined && m.schedule.text ? { text: m.schedule.text } : {};
      m.schedule = { ...normalizeSchedule({ ...when, timezone: s.timezone ?? m.schedule.timezone }), ...kept };
    }
    // Targets given without ids keep the ids (and so the page histories) of the same targets before the update.
    if (fields.targets !== undefined) m.targets = fields.targetIdsGiven ? carryTargetIds(fields.targets, fields.targetIdsGiven, m.targets) : fields.targets;
    if (fields.retentionDays !== undefined) m.retentionDays = fields.retentionDays;
    if (fields.judgeEnabled !== undefined) m.judgeEnabled = fields.judgeEnabled;
    if (fields.goal !== undefined) {
      if (fields.goal === null) delete m.goal;
      else m.goal = fields.goal;
    }
    if (fields.webhook !== undefined) {
      if (fields.webhook === null) delete m.webhook;
      else m.webhook = fields.webhook;
    }
    if (fields.notification !== undefined) {
      if (fields.notification === null) delete m.notification;
      else m.notification = fields.notification;
      // Only a change of the settings is checked: a monitor with email on still takes other updates (pausing it)
      // after the relay was removed from the configuration.
      this.notices.checkMailable(m);
    }
    if (m.judgeEnabled && !m.goal) throw new BadRequestError("judgeEnabled needs a goal: what a meaningful change is.");
    this.checks.checkRunnable(m);
    m.updatedAt = this.now();
    immediate(this.deps.db, () => {
      this.deps.store.save(m);
      this.notices.askConfirmations(m);
    });
    void this.deps.mail?.deliver();
    this.arm(m);
    return m;
  }

  /** Deletes a monitor, its schedule and its checks; a running check is stopped, its unsent emails cancelled. */
  delete(id: string, keyId: string): void {
    const m = this.get(id, keyId);
    this.disarm(m.id);
    if (m.currentCheckId) this.checks.abort(m.currentCheckId, new Error("monitor deleted"));
    immediate(this.deps.db, () => {
      this.deps.store.delete(m.id);
      this.deps.store.deleteHistory(m.id);
      this.deps.mail?.cancelMonitor(m.id);
    });
  }

  /** Starts a check now (`trigger: manual`); returns it as stored (running, or skipped). */
  run(id: string, who: KeyIdentity): CheckRow {
    return this.checks.startCheck(this.get(id, who.keyId), "manual");
  }

  /** The next time the monitor's schedule fires, if it is scheduled. */
  nextRunAt(id: string): Date | undefined {
    return this.crons.get(id)?.nextRun() ?? undefined;
  }

  /** What a scheduled tick does (also called by tests instead of waiting for the clock). */
  tick(id: string, scheduledFor = this.now()): CheckRow | undefined {
    const m = this.deps.store.get(id);
    if (!m || m.status !== "active" || this.closed) return undefined;
    if (!ownerActive(this.deps.keys, this.deps.config.authEnabled, m.keyId)) {
      // Its key was revoked, or removed from CRAWLBOX_API_KEYS: nobody may be charged or told any more, and nobody
      // could list, pause or delete the monitor. Paused, not deleted (the key's data stays).
      m.status = "paused";
      m.updatedAt = this.now();
      this.deps.store.save(m);
      this.disarm(m.id);
      this.deps.log.info("monitor paused: its API key was revoked or is no longer configured", { monitor: m.id });
      return undefined;
    }
    return this.checks.startCheck(m, "scheduled", scheduledFor);
  }

  /** Stops every schedule and running check (a running check is failed at the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.checks.close();
    for (const id of [...this.crons.keys()]) this.disarm(id);
  }


  private arm(m: MonitorRow): void {
    this.disarm(m.id);
    if (m.status !== "active" || this.closed) return;
    const job = new Cron(m.schedule.cron, { timezone: m.schedule.timezone, protect: true, unref: true, catch: (err: unknown) => this.deps.log.warn("monitor tick failed", { monitor: m.id, error: String(err) }) }, () => {
      this.tick(m.id);
    });
    this.crons.set(m.id, job);
  }

  private disarm(id: string): void {
    this.crons.get(id)?.stop();
    this.crons.delete(id);
  }


  /** The opt-in standing of the monitor's email recipients (the SDK's `emailRecipientSubscriptions`), if it mails. */
  recipientSubscriptions(m: MonitorRow): RecipientSubscription[] | undefined {
    return this.notices.recipientSubscriptions(m);
  }

  /** What an email link's token is (nothing changes); undefined for an unknown token (or no mail relay). */
  emailLink(token: string): { email: string; status: string; action: "confirm" | "unsubscribe" } | undefined {
    return this.deps.recipients?.lookup(token);
  }

  /** Carries out an email link (confirm, or unsubscribe); undefined for an unknown token (or no mail relay). */
  followEmailLink(token: string): { email: string; status: string } | undefined {
    return this.deps.recipients?.follow(token);
  }
}
