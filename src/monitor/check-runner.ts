/**
 * @module monitor/check-runner
 * A monitor's checks in this process: whether its checks can run at all, starting one (stored `queued`, or skipped
 * when the previous one is still running or the key cannot pay for its pages), the queue that runs
 * {@link CHECKS_AT_ONCE} at a time, running one (monitor/check.ts) and ending it (stored, announced, mailed), and
 * failing at start the checks a stopped server left. Apart from monitor/service.ts, which manages the monitors
 * themselves (their fields, owners and schedules) and hands their checks here.
 */
import type { Database } from "bun:sqlite";
import { monitorPages } from "../api/monitor-targets.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity, KeyStore } from "../auth/keys.ts";
import { BadRequestError, InsufficientCreditsError } from "../errors.ts";
import { LlmNotConfiguredError } from "../llm/errors.ts";
import type { Logger } from "../log.ts";
import { immediate } from "../storage/database.ts";
import { monitoredSpec, runCheck, type CheckDeps } from "./check.ts";
import { RunQueue } from "../extract/run-queue.ts";
import type { MailOutbox } from "../mail/outbox.ts";
import type { MonitorNotices } from "./notices.ts";
import { EMPTY_SUMMARY, type CheckPage, type CheckRow, type MonitorRow } from "./rows.ts";
import type { MonitorStore } from "./store.ts";

/** Checks running at once in this process (monitors on the same schedule start together); the others wait. */
const CHECKS_AT_ONCE = 2;

/** What {@link CheckRunner} uses of the service's dependencies (monitor/service.ts `MonitorServiceDeps`). */
export interface CheckRunnerDeps extends Omit<CheckDeps, "newId" | "now"> {
  db: Database;
  store: MonitorStore;
  ledger: CreditLedger;
  keys: Pick<KeyStore, "identityOf">;
  kickWebhooks: () => void;
  /** Cancels the running crawls a check started (jobs/service.ts cancelMonitorCrawls); how many. */
  stopCheckCrawls?: (checkId: string) => number;
  /** The mail outbox, when a relay is configured (`CRAWLBOX_SMTP_URL`): a check's end mails through it. */
  mail?: MailOutbox;
  log: Pick<Logger, "warn" | "info">;
}

/** Starts, queues, runs and ends the checks of every monitor (monitor/service.ts hands them over). */
export class CheckRunner {
  /** Checks waiting for a place in {@link queue}, by check id. */
  private readonly pending = new Map<string, (signal: AbortSignal) => Promise<void>>();
  private readonly queue: RunQueue;
  private closed = false;

  constructor(
    private readonly deps: CheckRunnerDeps,
    /** The service's webhook events and emails (monitor/notices.ts). */
    private readonly notices: MonitorNotices,
    private readonly now: () => number,
    private readonly newId: () => string,
  ) {
    this.queue = new RunQueue(
      CHECKS_AT_ONCE,
      (id, signal) => {
        const run = this.pending.get(id);
        this.pending.delete(id);
        return run ? run(signal) : Promise.resolve();
      },
      (id, err) => deps.log.warn("monitor check could not be recorded", { check: id, error: String(err) }),
    );
  }

  /**
   * At `crawlbox serve` start: fails the checks a stopped server left running (with what their pages did, and their
   * webhook); how many.
   */
  failAbandoned(): number {
    const abandoned = this.deps.store.runningChecks();
    for (const c of abandoned) {
      // The crawls it started ran on without it (a graceful stop cancels them; a kill does not): stop them too.
      const cancelled = this.deps.stopCheckCrawls?.(c.id) ?? 0;
      if (cancelled > 0) this.deps.log.info("cancelled the crawls of a check the server stopped during", { check: c.id, crawls: cancelled });
      const m = this.deps.store.get(c.monitorId);
      if (m) this.end(m, c, { status: "failed", ...this.deps.store.tally(c.id), error: "The server stopped during the check." });
    }
    return abandoned.length;
  }

  /**
   * What a monitor's checks need must be here, a 4xx now rather than failed checks later: a model for its judge, a
   * search backend for search targets, and scrape options this server can honour.
   */
  checkRunnable(m: MonitorRow): void {
    if (m.judgeEnabled && !this.deps.llm) throw new LlmNotConfiguredError("judgeEnabled (the model judges each change against the goal)");
    for (const target of m.targets) {
      if (target.type === "search") {
        if (!this.deps.searchTarget) throw new BadRequestError("A search target needs a search backend: set SEARXNG_ENDPOINT (docs/search.md).", undefined, "SEARCH_NOT_CONFIGURED");
        continue;
      }
      this.deps.scrape.validate(monitoredSpec(m.id, target, target.type === "scrape" ? target.urls[0]! : target.url, this.deps.config));
    }
  }

  /** Starts a check of `m` (stored `queued`), or stores it skipped; returns it as stored. */
  startCheck(m: MonitorRow, trigger: "scheduled" | "manual", scheduledFor?: number): CheckRow {
    const now = this.now();
    const who = this.deps.keys.identityOf(m.keyId);
    // Crawl targets are counted at their page limit: a check the key could not finish paying for is not started.
    const pages = monitorPages(m.targets);
    // Queued until it gets one of the process's check places (at once when one is free: then it reads `running`).
    // What it runs is kept with it (its targets, their estimate): the monitor's targets may change afterwards.
    const check: CheckRow = {
      id: this.newId(),
      monitorId: m.id,
      keyId: m.keyId,
      status: "queued",
      trigger,
      credits: 0,
      summary: EMPTY_SUMMARY,
      targets: m.targets.map((t) => ({ id: t.id, type: t.type })),
      estimatedCredits: pages,
      createdAt: now,
      updatedAt: now,
    };
    if (scheduledFor !== undefined) check.scheduledFor = scheduledFor;
    const skipped = (status: CheckRow["status"], error: string): CheckRow => {
      const row: CheckRow = { ...check, status, error, finishedAt: now };
      this.deps.store.addCheck(row);
      return row;
    };
    const row = immediate(this.deps.db, () => {
      if (this.deps.store.runningCheck(m.id)) return skipped("skipped_overlap", "The previous check of this monitor was still running.");
      try {
        this.deps.ledger.assertCanSpend(who, pages);
      } catch (err) {
        if (err instanceof InsufficientCreditsError) return skipped("skipped_no_credits", `The key cannot pay for the check's ${pages} pages.`);
        throw err;
      }
      this.deps.store.addCheck(check);
      return check;
    });
    if (row !== check) return row; // skipped
    this.pending.set(check.id, (signal) => this.execute(m, check, who, signal));
    this.queue.schedule(check.id);
    return this.deps.store.getCheck(m.id, check.id) ?? row;
  }

  private async execute(m: MonitorRow, check: CheckRow, who: KeyIdentity, signal: AbortSignal): Promise<void> {
    if (!this.deps.store.get(m.id)) return; // deleted while the check waited for its turn (its row went with it)
    if (!this.deps.store.markRunning(check.id, this.now())) return; // ended while it waited (a restart failed it)
    try {
      const { summary, credits, targetResults } = await runCheck(
        { ...this.deps, newId: this.newId, now: this.now },
        {
          monitorId: m.id,
          checkId: check.id,
          who,
          targets: m.targets,
          ...(m.judgeEnabled && m.goal ? { judgeGoal: m.goal } : {}),
          signal,
          recordTokens: (t) => this.deps.ledger.charge(who, 0, t),
          previousPage: (targetId, url) => this.deps.store.lastPage(m.id, targetId, url, check.id),
          comparedScrapeId: (targetId, url, answer) => this.deps.store.comparedScrapeId({ monitorId: m.id, keyId: who.keyId, targetId, url, beforeCheckId: check.id, ...answer }),
          onPage: (page: CheckPage, index: number) => {
            this.deps.store.addPage(check.id, index, page);
            this.notices.announcePage(m, check.id, page);
          },
        },
      );
      const status = summary.error === 0 ? "completed" : summary.error === summary.totalPages ? "failed" : "partial";
      this.end(m, check, { status, summary, credits, targetResults, ...(status === "failed" ? { error: "Every page of the check failed; see its pages." } : {}) });
    } catch (err) {
      if (this.closed || !this.deps.store.get(m.id)) return; // stopping (failed at the next start) or deleted
      this.end(m, check, { status: "failed", ...this.deps.store.tally(check.id), error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Ends a check: stored, mailed, announced with the pages it recorded as news (read back, whoever ended it). */
  private end(started: MonitorRow, check: CheckRow, end: Parameters<MonitorStore["endCheck"]>[1]): void {
    let mailed = false;
    immediate(this.deps.db, () => {
      if (!this.deps.store.endCheck(check.id, end, this.now())) return;
      // The monitor as it is now: a webhook or notification removed or changed while the check ran is the one that counts.
      mailed = this.notices.announceEnd(this.deps.store.get(started.id) ?? started, check, end);
    });
    this.deps.kickWebhooks();
    if (mailed) void this.deps.mail!.deliver();
  }

  /** Stops a running check (its monitor was deleted). */
  abort(checkId: string, reason: Error): void {
    this.queue.abort(checkId, reason);
  }

  /** Stops every running check, and takes no more (a running check is failed at the next start). */
  close(): void {
    this.closed = true;
    this.queue.close();
  }
}
