/**
 * @module extract/job-credits
 * The credits of one run of a research job (an extract job, an agent run) that may be a resumed one. What earlier
 * runs of the job already charged (a run cut short by a crash or a restart) covers this run's first credits, so a
 * resumed job charges the key once for its work, not once per run. Each charge is recorded with the job, in one
 * transaction, through `pay`; nothing is charged for a job that is not this process's any more.
 */

/** Counts and charges a job run's credits. */
export class JobCredits {
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
