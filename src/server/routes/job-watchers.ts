/**
 * @module server/routes/job-watchers
 * The open job WebSockets (routes/crawl-ws.ts) and the poll they share. Each socket used to poll the database on
 * its own timer (two reads every 500 ms): one key opening 18,000 sockets on its own crawl took 87% of a core, and
 * ~20,000 ran the server out of file descriptors, so other keys' requests failed. Now:
 *
 * - a key holds at most `perKey` open sockets (`CRAWLBOX_MAX_WATCHERS_PER_KEY`) and a job at most
 *   {@link MAX_WATCHERS_PER_JOB}; the socket routes close extras at once (1013, see crawl-ws.ts);
 * - a job has one timer however many sockets watch it: each tick reads the job's status once, and its new results
 *   once per distinct position of its sockets (after their first tick they all stand at the same one).
 */

/** Sockets one job may have open at once (a few dashboards and a script; any more is a loop gone wrong). */
export const MAX_WATCHERS_PER_JOB = 10;

/** What a tick reads: the job's status, and a page of its finished results (`JobResults.page`'s shape). */
export interface WatchedJobReader {
  status(jobId: string): { status: string } | undefined;
  page(jobId: string, skip: number, limit: number): { data: Record<string, unknown>[]; consumed: number; finished: number };
}

/** One open socket on a job, past its catch-up. */
export interface JobWatcher {
  readonly keyId: string;
  readonly jobId: string;
  /** Results (finished pages, failed ones included) already sent. */
  position: number;
  /** Sends one newly finished document. */
  send(doc: Record<string, unknown>): void;
  /** Ends the socket: the job ended (1000), vanished, or a read failed (1011, after `error` was sent). */
  end(code: number, reason: string, error?: string): void;
}

/** Results read per query while a tick catches up. */
const READ_PAGE_SIZE = 50;

interface WatchedJob {
  watchers: Set<JobWatcher>;
  timer: ReturnType<typeof setInterval>;
}

/** The open job sockets of one server: admission, and one poll per watched job. */
export class JobWatchers {
  private readonly jobs = new Map<string, WatchedJob>();
  private readonly perKey = new Map<string, number>();

  /**
   * @param reader the database reads of a tick
   * @param limits open sockets allowed per API key and per job
   * @param pollMs how often a watched job is looked at
   * @param doneReason the close reason of a socket whose job ended
   */
  constructor(
    private readonly reader: WatchedJobReader,
    private readonly limits: { perKey: number; perJob: number },
    private readonly pollMs: number,
    private readonly doneReason = "done",
  ) {}

  /** Why a new socket of `keyId` on `jobId` is refused (a close reason under 123 bytes), or undefined to admit it. */
  refusal(keyId: string, jobId: string): string | undefined {
    if ((this.perKey.get(keyId) ?? 0) >= this.limits.perKey) {
      return `Too many watchers: at most ${this.limits.perKey} open per API key; poll the job's status instead`;
    }
    if ((this.jobs.get(jobId)?.watchers.size ?? 0) >= this.limits.perJob) {
      return `Too many watchers: at most ${this.limits.perJob} open per job; poll the job's status instead`;
    }
    return undefined;
  }

  /** Starts sending `w` its job's new documents (its catch-up already sent); returns it, for {@link remove}. */
  add(w: JobWatcher): JobWatcher {
    let job = this.jobs.get(w.jobId);
    if (!job) {
      const jobId = w.jobId;
      job = { watchers: new Set(), timer: setInterval(() => this.tick(jobId), this.pollMs) };
      this.jobs.set(jobId, job);
    }
    job.watchers.add(w);
    this.perKey.set(w.keyId, (this.perKey.get(w.keyId) ?? 0) + 1);
    return w;
  }

  /** Forgets `w` (its socket closed); the job's poll stops with its last watcher. Removing twice is harmless. */
  remove(w: JobWatcher): void {
    const job = this.jobs.get(w.jobId);
    if (!job || !job.watchers.delete(w)) return;
    const n = (this.perKey.get(w.keyId) ?? 1) - 1;
    if (n > 0) this.perKey.set(w.keyId, n);
    else this.perKey.delete(w.keyId);
    if (job.watchers.size === 0) {
      clearInterval(job.timer);
      this.jobs.delete(w.jobId);
    }
  }

  /** Open sockets, for tests and diagnostics. */
  get size(): number {
    let n = 0;
    for (const job of this.jobs.values()) n += job.watchers.size;
    return n;
  }

  /** One look at `jobId` for all its sockets. */
  private tick(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    const watchers = [...job.watchers];
    const finish = (w: JobWatcher, code: number, reason: string, error?: string) => {
      this.remove(w);
      w.end(code, reason, error);
    };
    try {
      const current = this.reader.status(jobId);
      if (!current) {
        for (const w of watchers) finish(w, 1011, "Job vanished");
        return;
      }
      // Results from each distinct position, read once for every socket standing there.
      const reads = new Map<number, { docs: Record<string, unknown>[]; end: number; finished: number }>();
      for (const w of watchers) {
        let read = reads.get(w.position);
        if (!read) {
          read = this.readFrom(jobId, w.position);
          reads.set(w.position, read);
        }
        for (const doc of read.docs) w.send(doc);
        w.position = read.end;
        if (current.status !== "scraping" && read.end >= read.finished) finish(w, 1000, this.doneReason);
      }
    } catch (err) {
      for (const w of watchers) finish(w, 1011, "Server error", String(err));
    }
  }

  /** Every result of `jobId` finished after `position`; where that leaves the reader, and how many are finished. */
  private readFrom(jobId: string, position: number): { docs: Record<string, unknown>[]; end: number; finished: number } {
    const docs: Record<string, unknown>[] = [];
    let end = position;
    let finished = 0;
    for (;;) {
      const page = this.reader.page(jobId, end, READ_PAGE_SIZE);
      docs.push(...page.data);
      end += page.consumed;
      finished = page.finished;
      if (page.consumed === 0) break;
    }
    return { docs, end, finished };
  }
}
