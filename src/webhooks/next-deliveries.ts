/**
 * @module webhooks/next-deliveries
 * Which due outbox events the dispatcher sends next, when it has free delivery slots: the per-job order rules (which
 * events may go at all) and the fairness rules (who gets a slot first). webhooks/dispatcher owns the slots, the
 * attempts and their outcomes.
 *
 * - **Order.** A job's events are first sent in the order they were recorded, up to {@link WEBHOOK_MAX_PER_JOB} at
 *   once: an event is not sent before every earlier one of its job was sent at least once. Its `started` event is
 *   answered (or fails a first time) before any later event goes. Its terminal event (`completed`, `failed`,
 *   `cancelled`, a monitor check's `check.completed` / `check.failed`) waits until every earlier event of the job
 *   is settled: delivered, or failed for good. So a receiver sees `started`, the pages, then the end, also when an
 *   attempt failed: before, the end waited only for first attempts, and a receiver that answered one page with a 500
 *   got `started, page, page, completed, page`. An event waiting for a retry holds back nothing else: the job's later
 *   pages go on (a retried page may arrive after them, as upstream, which does not retry at all, sends them with no
 *   order). The end may then wait for the retries (1 + 5 + 15 minutes at most). Strict one-at-a-time order made a
 *   receiver taking 100 ms an event get a 100-page crawl's `completed` 11.5 s late, and one event it kept refusing
 *   (a 413 for one large page) held every later event of the job for ~21 minutes.
 * - **Fairness.** A destination (scheme, host and port as written in the URL) has at most
 *   {@link WEBHOOK_MAX_PER_DESTINATION} deliveries in flight, so a receiver that never answers (each attempt waits out
 *   the timeout) holds half of the slots, not all: with one global queue, oldest event first, one key's 12 batches
 *   to a dead receiver kept another key's events untried for 9.5 minutes. A free slot goes first to the key with the
 *   fewest deliveries in flight, then to the destination with the fewest, then the job with the fewest, then to a
 *   first attempt before a retry, then to the oldest event; and each destination's (and within it each job's)
 *   oldest due events are looked at before any one's second, so a healthy destination's fresh event goes ahead of
 *   another destination's backlog and retries, and one job's 60 due retries do not hide another job's event.
 *   Different jobs never wait for each other's order.
 */
import type { Database } from "bun:sqlite";
import type { DueRow } from "./delivery-attempt.ts";

/** Deliveries of one job in flight at once: a big crawl's pages leave room for other jobs' events. */
export const WEBHOOK_MAX_PER_JOB = 4;
/**
 * Deliveries to one destination (scheme, host, port) in flight at once: a receiver that never answers holds at most
 * this many of the dispatcher's slots (8 by default) for the 10 s timeout, and a healthy one still gets a job's
 * pages {@link WEBHOOK_MAX_PER_JOB} at a time.
 */
export const WEBHOOK_MAX_PER_DESTINATION = 4;

/** A due event the dispatcher may start: the row it sends, plus what fairness is judged by. */
export type Candidate = DueRow & {
  key_id: string;
  /** Failed attempts so far: 0 for a first attempt. */
  failures: number;
  /** `scheme://host:port` as written in the URL, lower-cased (see {@link DESTINATION_SQL}). */
  destination: string;
};

/**
 * The destination of `url` in SQL: lower-cased, everything before the first `/`, `?`, `#` or `\` after `://`. URLs
 * are stored as the caller wrote them (api/url.ts adds only a missing `http://`), so paths and query strings of one
 * receiver share a destination; an explicit default port (`:443`) or credentials in the URL make another one.
 * Computed in SQL so the due query can rank and leave out whole destinations; the dispatcher counts with the value
 * the query returned, so the two never disagree.
 */
const DESTINATION_SQL = `lower(substr(url, 1,
  instr(replace(replace(replace(substr(url, instr(url, '://') + 3), '?', '/'), '#', '/'), '\\', '/') || '/', '/') + instr(url, '://') + 1))`;

/** `type` of a job's terminal event, in SQL (`e` or `p` stands for the table alias). */
const terminal = (alias: string) =>
  `(${alias}.type LIKE '%.completed' OR ${alias}.type LIKE '%.failed' OR ${alias}.type LIKE '%.cancelled')`;

/**
 * SQL, true when the pending event `alias` holds back its job's later events until it was sent once: it is on its first
 * try with no attempt yet, or it is the job's `started` not yet answered (the first "Order" rule above).
 */
const barsLaterEvents = (alias: string) =>
  `(${alias}.state = 'pending' AND ${alias}.failures = 0
            AND (${alias}.type LIKE '%.started' OR NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.event_seq = ${alias}.seq)))`;

/**
 * SQL, the seq of job `jobSql`'s first event that {@link barsLaterEvents} (NULL when none). It reads the job's pending
 * first-try events in order (index webhook_events_first_try) up to that one: only those with an attempt are passed over.
 */
const firstBarringSeq = (jobSql: string) => `(SELECT MIN(p.seq) FROM webhook_events p WHERE p.job_id = ${jobSql} AND ${barsLaterEvents("p")})`;

/**
 * SQL, true when `alias` is a terminal event and an earlier event of its job is still pending (the end goes last). Per
 * row, but one step: any earlier pending event answers it (index webhook_events_job).
 */
const waitsForEarlierSettle = (alias: string) => `(${terminal(alias)} AND EXISTS (
            SELECT 1 FROM webhook_events p WHERE p.job_id = ${alias}.job_id AND p.state = 'pending' AND p.seq < ${alias}.seq))`;

/**
 * SQL, true when the pending event `alias` is held back by its job's order rules, given the seq of the job's first
 * barring event ({@link firstBarringSeq}): an earlier event bars it until sent once ("an earlier one bars it" is "the
 * job's first barring one comes before it"), or it is the job's end and an earlier event is still pending. The barring
 * event is looked up once per job, not once per row: as an EXISTS per row, a job of 20,000 events whose pages each
 * had an interrupted attempt (pending, first try, not barring) cost every row a walk over all earlier ones: the due
 * query took 65-113 s (each poll; the process stalled) and the listing's last page 69 s; now 44 ms and 26 ms.
 */
const heldBy = (alias: string, barringSeqSql: string) =>
  `(COALESCE(${barringSeqSql}, ${alias}.seq) < ${alias}.seq OR ${waitsForEarlierSettle(alias)})`;

/**
 * SQL, true when the pending event `alias` of job `jobSql` is held back by the order rules ({@link heldBy}); for one
 * job's listing (webhooks/deliveries.ts), `jobSql` a bound parameter: the barring look-up then does not depend on the
 * row, and SQLite runs it once per statement. For a settled `alias` the result means nothing.
 */
export const heldByJobOrder = (alias: string, jobSql: string) => heldBy(alias, firstBarringSeq(jobSql));

/** What the due query leaves out and how much it returns. */
export interface DueQueryArgs {
  now: number;
  /** Jobs already at {@link WEBHOOK_MAX_PER_JOB} deliveries in flight. */
  fullJobs: string[];
  /** Destinations already at their limit. */
  fullDestinations: string[];
  /** Events in flight, or waiting out a crashed delivery (webhooks/crash-backoff). */
  skipSeqs: number[];
  /** Rows per destination at most (its limit). */
  perDestination: number;
  /** Rows per job at most (its limit). */
  perJob: number;
  limit: number;
}

/**
 * Prepares the due-event query on `db`: due pending events the order rules let go, without the left-out jobs,
 * destinations and events, ranked round-robin: every destination's first event, then its second, and so on; within a
 * destination, every job's oldest event before any job's second. At most the limits' worth of each job and
 * destination is returned: more could not start in this pump anyway.
 */
export function prepareDueQuery(db: Database): (args: DueQueryArgs) => Candidate[] {
  // An event is held back by an earlier pending event of its job still on its first try (failures = 0) that has not
  // been sent yet, or that is the job's `started` (a barrier for what follows); a terminal event by any earlier
  // pending event at all (index webhook_events_job). In flight, an event is pending with an attempt row.
  // The ranking reads no column stored after `body` (`failures`, ...): for page events that means reading the whole
  // document of every due row (20,000 due events with 20 kB bodies: 780 ms a query, 65 ms without). Only the rows
  // returned are read in full.
  // The order rules are judged once per job with due events (job_order, heldBy), not once per due event: per row, a
  // job's 20,000 due pages with interrupted attempts took 65-113 s a query, now 44 ms. Both CTEs are MATERIALIZED:
  // inlined, the planner evaluated the job's look-up per row again, and found the jobs by reading every event kept.
  // The cost: about 1.5 µs more per job with due events (20,000 jobs of one due event each: 60 ms, now 89 ms).
  const query = db.query<Candidate, [number, string, string, string, number, number, number]>(
    `WITH due AS MATERIALIZED (
       SELECT seq, job_id, type, ${DESTINATION_SQL} AS destination
         FROM webhook_events e
        WHERE state = 'pending' AND next_attempt_at <= ?1
          AND e.job_id NOT IN (SELECT value FROM json_each(?2))
          AND e.seq NOT IN (SELECT value FROM json_each(?3))
          -- Here, not after the holding look-ups: a dead receiver's events (most of the due ones) would each cost one.
          AND ${DESTINATION_SQL} NOT IN (SELECT value FROM json_each(?4))
     ), job_order AS MATERIALIZED (
       SELECT j.job_id, ${firstBarringSeq("j.job_id")} AS barring_seq
         FROM (SELECT DISTINCT job_id FROM due) j
     ), open AS (
       SELECT d.seq, d.job_id, d.destination
         FROM due d JOIN job_order o ON o.job_id = d.job_id
        WHERE NOT ${heldBy("d", "o.barring_seq")}
     ), by_job AS (
       SELECT *, ROW_NUMBER() OVER (PARTITION BY job_id ORDER BY seq) AS job_rank
         FROM open
     ), ranked AS (
       SELECT *, ROW_NUMBER() OVER (PARTITION BY destination ORDER BY job_rank, seq) AS rank
         FROM by_job WHERE job_rank <= ?7
     )
     SELECT w.seq, w.id, w.job_id, w.key_id, w.type, w.url, w.headers, w.body, w.failures, r.destination
       FROM ranked r JOIN webhook_events w ON w.seq = r.seq
      WHERE r.rank <= ?5 ORDER BY r.rank, r.seq LIMIT ?6`,
  );
  return (a) =>
    query.all(a.now, JSON.stringify(a.fullJobs), JSON.stringify(a.skipSeqs), JSON.stringify(a.fullDestinations), a.perDestination, a.limit, a.perJob);
}

/** What a delivery in flight occupies. */
export type Slot = Pick<Candidate, "job_id" | "key_id" | "destination">;

/** Deliveries in flight per job, key and destination, against the per-job and per-destination limits. */
export class SlotLoad {
  private readonly jobs = new Map<string, number>();
  private readonly keys = new Map<string, number>();
  private readonly destinations = new Map<string, number>();

  /** @param limits the per-job and per-destination limits ({@link WEBHOOK_MAX_PER_JOB}, {@link WEBHOOK_MAX_PER_DESTINATION}) */
  constructor(
    private readonly limits: { perJob: number; perDestination: number },
    inflight: Iterable<Slot> = [],
  ) {
    for (const s of inflight) this.add(s);
  }

  add(s: Slot): void {
    bump(this.jobs, s.job_id);
    bump(this.keys, s.key_id);
    bump(this.destinations, s.destination);
  }

  /** Whether `s`'s job or destination has no room left. */
  full(s: Slot): boolean {
    return (this.jobs.get(s.job_id) ?? 0) >= this.limits.perJob || (this.destinations.get(s.destination) ?? 0) >= this.limits.perDestination;
  }

  fullJobs(): string[] {
    return [...this.jobs].filter(([, n]) => n >= this.limits.perJob).map(([job]) => job);
  }

  fullDestinations(): string[] {
    return [...this.destinations].filter(([, n]) => n >= this.limits.perDestination).map(([d]) => d);
  }

  /** Orders two candidates for a free slot: negative when `a` goes first (the rules in the module doc). */
  compare(a: Candidate, b: Candidate): number {
    return (
      (this.keys.get(a.key_id) ?? 0) - (this.keys.get(b.key_id) ?? 0) ||
      (this.destinations.get(a.destination) ?? 0) - (this.destinations.get(b.destination) ?? 0) ||
      (this.jobs.get(a.job_id) ?? 0) - (this.jobs.get(b.job_id) ?? 0) ||
      Number(a.failures > 0) - Number(b.failures > 0) ||
      a.seq - b.seq
    );
  }
}

function bump(map: Map<string, number>, k: string): void {
  map.set(k, (map.get(k) ?? 0) + 1);
}

/**
 * Picks up to `free` of `rows` for the free slots, best first by {@link SlotLoad.compare}, counting each pick into
 * `load` before choosing the next, so slots spread over keys and destinations. Rows whose job or destination is full
 * are passed over.
 */
export function pickFairly(rows: readonly Candidate[], load: SlotLoad, free: number): Candidate[] {
  const left = [...rows];
  const picked: Candidate[] = [];
  while (picked.length < free) {
    let best = -1;
    for (let i = 0; i < left.length; i++) {
      if (!load.full(left[i]!) && (best < 0 || load.compare(left[i]!, left[best]!) < 0)) best = i;
    }
    if (best < 0) break;
    const [row] = left.splice(best, 1);
    load.add(row!);
    picked.push(row!);
  }
  return picked;
}
