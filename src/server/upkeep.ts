/**
 * @module server/upkeep
 * The periodic upkeep of a crawlbox server, all of its schedule in one place: expiring files, results, idempotency
 * claims, extract and agent runs, monitor checks, feedback, extractors, cached pages, profiles and change history;
 * trimming stored scrape results; compacting the page cache; delivering and expiring the mail outbox; expiring finished
 * jobs. Kept apart from server/services.ts, the composition root, which creates the stores this prunes and calls
 * these functions at the points where it always scheduled each job (so the scheduler's jobs keep their order). It
 * creates nothing: it only registers jobs on the given scheduler, and only when the process runs background work.
 */
import type { Database } from "bun:sqlite";
import type { AgentStore } from "../agent/store.ts";
import { pruneTraces } from "../agent/trace.ts";
import type { ActivityLog } from "../auth/activity.ts";
import type { ChangeHistory } from "../change-tracking/history.ts";
import type { Config } from "../config.ts";
import type { ExtractStore } from "../extract/store.ts";
import type { FeedbackStore } from "../feedback/store.ts";
import type { IdempotencyStore } from "../idempotency/store.ts";
import type { JobResults } from "../jobs/results.ts";
import type { ExtractorStore } from "../llm/deterministic/store.ts";
import type { Logger } from "../log.ts";
import type { MailOutbox } from "../mail/outbox.ts";
import type { MonitorStore } from "../monitor/store.ts";
import type { UploadRefStore } from "../parse/upload-refs.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { FileStore } from "../storage/files.ts";
import type { PageCache } from "../storage/page-cache.ts";
import type { ProfileStore } from "../storage/profiles.ts";
import { truncateWal } from "../storage/database.ts";
import type { ScrapeResults } from "../storage/scrape-results.ts";

/** Schedules one upkeep job: its name (for logs), its cron pattern (seconds field first) and what it runs. */
export type Upkeep = (name: string, cron: string, run: () => void) => void;

/**
 * Periodic upkeep (expiry, compaction, the mail outbox) belongs to the server: a one-off `crawlbox scrape` on the
 * same data folder (background: false) must not run it beside the server (it sent the outbox's due mail, which
 * the server sends too: the outbox has no claim across processes).
 */
export function upkeepOn(scheduler: Scheduler, background: boolean): Upkeep {
  return (name: string, cron: string, run: () => void) => {
    if (background) scheduler.every(name, cron, run);
  };
}

/** What the stored-data upkeep expires, trims and compacts. */
export interface StorageUpkeep {
  config: Config;
  log: Logger;
  now: () => number;
  db: Database;
  files: FileStore;
  uploadRefs: UploadRefStore;
  results: ScrapeResults;
  activity: ActivityLog;
  idempotency: IdempotencyStore;
  feedback: FeedbackStore;
  extractors: ExtractorStore;
  cache: PageCache;
  profiles: ProfileStore;
  changeHistory: ChangeHistory;
  /**
   * The stores the composition root creates only after this upkeep is scheduled (server/services.ts keeps its order of
   * creation): read when the hourly job runs, which is never before the service graph is built.
   */
  later: () => { extractStore: ExtractStore; agentStore: AgentStore; monitorStore: MonitorStore };
}

/** Schedules the upkeep of stored data: expiry every minute and every hour, cache compaction every five minutes. */
export function scheduleStorageUpkeep(upkeep: Upkeep, s: StorageUpkeep): void {
  const { config, log, now, db, files, uploadRefs, results, activity, idempotency, feedback, extractors, cache, profiles, changeHistory } = s;
  upkeep("expire-files-trim-results", "0 * * * * *", () => {
    void files.prune();
    uploadRefs.prune();
    // Checked every minute: a busy server stores hundreds of results a second.
    results.trim(config.maxStoredResults);
  });
  upkeep("expire-results", "0 7 * * * *", () => {
    const { extractStore, agentStore, monitorStore } = s.later();
    activity.prune();
    results.prune(now());
    idempotency.prune(now());
    extractStore.prune(now());
    agentStore.prune(now());
    pruneTraces(db);
    monitorStore.prune(now());
    feedback.prune(now());
    extractors.prune(now());
    cache.prune(now() - config.cacheRetentionMs);
    profiles.prune(now() - config.profileRetentionMs);
    changeHistory.prune(now() - config.changeHistoryRetentionMs);
  });
  // Every five minutes: pages fetched again and again (maxAge: 0) leave their old copies behind quickly (a soak at
  // ~140 misses a second left 473 MB of segments for 208 live pages before the hourly run).
  upkeep("compact-cache", "0 */5 * * * *", () => {
    void cache
      .compact()
      .then((r) => r.segments > 0 && log.info("page cache compacted", { ...r }))
      .catch((err: unknown) => log.warn("page cache compaction failed", { error: err instanceof Error ? err.message : String(err) }));
  });
}

/** Schedules the mail outbox's upkeep: due mail delivered every 30 seconds, old entries expired hourly. */
export function scheduleMailUpkeep(upkeep: Upkeep, mail: MailOutbox): void {
  upkeep("deliver-mail", "*/30 * * * * *", () => void mail.deliver());
  upkeep("expire-mail", "0 23 * * * *", () => mail.prune());
}

/**
 * Schedules the hourly expiry of finished jobs' results, and the hourly emptying of the write-ahead log after it
 * (storage/database.ts `truncateWal`: what expired is zeroed in the database, and its old copies leave the log).
 */
export function scheduleJobUpkeep(upkeep: Upkeep, jobResults: JobResults, db: Database): void {
  upkeep("expire-jobs", "0 17 * * * *", () => void jobResults.prune());
  upkeep("truncate-wal", "0 37 * * * *", () => truncateWal(db));
}
