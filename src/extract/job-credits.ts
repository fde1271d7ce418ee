/**
 * @module extract/job-credits
 * The credits of one run of a research job (an extract job, an agent run) that may be a resumed one. What earlier
 * runs of the job already charged (a run cut short by a crash or a restart) covers this run's first credits, so a
 * resumed job charges the key once for its work, not once per run. Each charge is recorded with the job, in one
 * transaction, through `pay`; nothing is charged for a job that is not this process's any more.
 */
import type { Database } from "bun:sqlite";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { immediate } from "../storage/database.ts";

/** A research job's table, as far as charging goes: its credits column, written only by the run that owns the job. */
export interface CreditedJobs {
  /** Adds `credits` to job `id` while `owner` runs it; false when it does not (then nothing is added). */
  addCredits(id: string, owner: string, credits: number): boolean;
}

/** Counts and charges a job run's credits. */
export class JobCredits {
  /**
   * The credits of `job`'s run by `owner`: each charge is added to the job's row and charged to `who` in one
   * transaction, and neither happens when the job is no longer `owner`'s.
   */
  static forJob(db: Database, jobs: CreditedJobs, ledger: CreditLedger, who: KeyIdentity, job: { id: string; credits: number }, owner: string): JobCredits {
    return new JobCredits(job.credits, (due) =>
      immediate(db, () => {
        if (!jobs.addCredits(job.id, owner, due)) return false;
        ledger.charge(who, due);
        return true;
      }),
    );
  }

  /** Credits of this run's work so far. */
  private work = 0;
  /** Earlier runs' charges not yet matched by this run's work. */
  private covered: number;
  /** Charged to the key for the job, across runs. */
  private paid: number;

  /**
   * `alreadyPaid`: what the job's row says earlier runs charged. `pay(due)` charges the key and records it with the
   * job in one transaction, returning false when the job is not this run's any more (then nothing is charged).
   */
  constructor(
    alreadyPaid: number,
    private readonly pay: (due: number) => boolean,
  ) {
    this.covered = alreadyPaid;
    this.paid = alreadyPaid;
  }

  /** Counts `credits` of work; charges the part earlier runs did not pay. */
  charge(credits: number): void {
    if (credits <= 0) return;
    const due = credits - Math.min(this.covered, credits);
    // Counted only once the charge committed (a failed write fails the page, which then costs nothing).
    if (due > 0 && this.pay(due)) this.paid += due;
    this.covered -= credits - due;
    this.work += credits;
  }

  /** Credits of this run's work (what a limit like `maxCredits` compares with). */
  get spent(): number {
    return this.work;
  }

  /** What the job reports as `creditsUsed`: its work, or what the key paid across runs when that is more. */
  get total(): number {
    return Math.max(this.work, this.paid);
  }
}
