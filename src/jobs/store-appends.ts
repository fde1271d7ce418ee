/**
 * @module jobs/store-appends
 * What the job store checks and records when a request adds URLs to a batch (`appendToId`) or starts a job with
 * upstream's `x-idempotency-key`: the key not used before, the batch still taking URLs, the index of the request's
 * options among the batch's. In the caller's transaction, like jobs/store-steps: jobs/sqlite-store runs them in the
 * transaction that adds the URLs (or, for a large list, in the one that accepts its rows: jobs/task-intake.ts).
 */
import type { Database } from "bun:sqlite";
import { BadRequestError } from "../errors.ts";
import { readJob } from "./store-rows.ts";
import type { StoreContext } from "./store-steps.ts";
import { CREATING_STATUS } from "./task-intake.ts";
import type { AppendedOptions, Job } from "./types.ts";

/** Different option sets one batch keeps from `appendToId` requests (each is read with every page of the job). */
export const MAX_APPENDED_OPTION_SETS = 20;

/** Thrown by `createJob` when the key already used this idempotency key. */
export class IdempotencyConflictError extends Error {}

/**
 * Throws {@link IdempotencyConflictError} when `keyId` already used `idempotencyKey` (upstream's `x-idempotency-key`),
 * to create a job (one still being created included) or to add URLs to a batch (`batch_append_keys`). Call inside
 * the transaction that records it.
 */
export function assertIdempotencyKeyUnused(db: Database, keyId: string, idempotencyKey: string): void {
  const used = db
    .query(
      `SELECT 1 FROM jobs WHERE key_id = ?1 AND idempotency_key = ?2
       UNION ALL SELECT 1 FROM batch_append_keys WHERE key_id = ?1 AND idempotency_key = ?2 LIMIT 1`,
    )
    .get(keyId, idempotencyKey);
  if (used) throw new IdempotencyConflictError("Idempotency key already used");
}

/**
 * Checks that batch `jobId` takes more URLs (a cancelled or failed one refuses: 400, its results are final), records
 * the append's `idempotencyKey` (`batch_append_keys`, kept as long as the batch), and finds or adds the index of its
 * options `appended` for its tasks: undefined for the batch's own options.
 */
export function acceptAppend(ctx: StoreContext, jobId: string, appended: AppendedOptions | undefined, idempotencyKey: string | undefined): { job: Job; optionsIndex?: number } {
  const { db } = ctx;
  const found = readJob(db, jobId);
  const job = found?.status === CREATING_STATUS ? undefined : found;
  if (!job || job.status === "cancelled" || job.status === "failed") {
    throw new BadRequestError(`Batch ${jobId} is ${job?.status ?? "unknown"} and cannot take more URLs.`);
  }
  if (idempotencyKey !== undefined) {
    assertIdempotencyKeyUnused(db, job.keyId, idempotencyKey);
    db.query("INSERT INTO batch_append_keys (key_id, idempotency_key, job_id, created_at) VALUES (?, ?, ?, ?)").run(job.keyId, idempotencyKey, jobId, ctx.now());
  }
  if (!appended) return { job };
  // The request's own options go with its URLs: kept in the job, each task pointing at them. Options the job
  // already has (its own, or an earlier append's) are reused, so a client appending URL by URL adds nothing.
  // (An append without a webhook announces its pages to the batch's: its scrape options alone tell it apart.)
  const key = JSON.stringify(appended);
  const list = job.options.appended ?? [];
  const isOwn =
    JSON.stringify(appended.scrapeOptions) === JSON.stringify(job.options.scrapeOptions) &&
    (appended.webhook === undefined || JSON.stringify(appended.webhook) === JSON.stringify(job.options.webhook));
  if (isOwn) return { job };
  const index = list.findIndex((o) => JSON.stringify(o) === key);
  if (index !== -1) return { job, optionsIndex: index };
  if (list.length >= MAX_APPENDED_OPTION_SETS) {
    throw new BadRequestError(`Batch ${jobId} already has ${MAX_APPENDED_OPTION_SETS} different sets of options from appendToId; start a new batch for more.`);
  }
  db.query("UPDATE jobs SET options = ? WHERE id = ?").run(JSON.stringify({ ...job.options, appended: [...list, appended] }), jobId);
  return { job, optionsIndex: list.length };
}

/** A completed batch that takes more URLs runs again. In the caller's transaction. */
export function reopenIfCompleted(ctx: StoreContext, job: Job): void {
  if (job.status === "completed") {
    ctx.db.query("UPDATE jobs SET status = 'scraping', completed_at = NULL, updated_at = ? WHERE id = ?").run(ctx.now(), job.id);
  }
}
