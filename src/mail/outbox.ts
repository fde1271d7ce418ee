/**
 * @module mail/outbox
 * Mail crawlbox sends (monitors' email notifications, docs/monitor.md), kept in SQLite (migration 22) from the moment
 * it is decided until the relay took it: written in the same transaction as what it reports, sent by
 * {@link MailOutbox.deliver} (kicked at once, and every 30 s by the scheduler), and tried again after 1, 5, 30 and
 * 120 minutes when the relay is down or answers a temporary error. A permanent refusal (a 5xx answer), or the fifth
 * failure, gives up; the error is kept with the message (and, for a message sent, the recipients the relay refused).
 * A key may have at most {@link MAX_MAILS_PER_KEY_PER_HOUR} messages queued an hour. Sent and abandoned messages are
 * dropped after 7 days. A message the relay took but whose row could not be marked (the server stopping under it) is
 * sent again: delivery is at least once.
 */
import type { Database } from "bun:sqlite";
import { sendMail, SmtpError, type SmtpSettings } from "./smtp.ts";

/** Minutes before each retry. */
const RETRY_MINUTES = [1, 5, 30, 120];
/** How long sent and abandoned messages are kept. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** Messages sent per delivery round at most (the next round takes the rest). */
const BATCH = 50;
/** Messages one key may queue in an hour; more are dropped (and logged). */
export const MAX_MAILS_PER_KEY_PER_HOUR = 100;

/** What a queued message reports: a monitor's check. */
export interface MailAbout {
  monitorId: string;
  checkId: string;
}

/** The emails one check queued (one per recipient), by where they are. */
export interface CheckMailStatus {
  emails: number;
  sent: number;
  /** Waiting for the relay, or for a retry. */
  pending: number;
  /** Given up (refused for good, five failures, or the monitor deleted). */
  failed: number;
  /** The latest error or note kept (a retry's reason, recipients the relay refused), or null. */
  lastError: string | null;
}

interface Row {
  id: string;
  recipients: string;
  subject: string;
  body: string;
  headers: string | null;
  attempts: number;
}

/** The outbox, and its delivery through the configured relay. */
export class MailOutbox {
  private delivering: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly smtp: SmtpSettings,
    private readonly log: (message: string, fields?: Record<string, unknown>) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Keeps a message for `keyId` (call inside the transaction that decides it); {@link deliver} sends it. Undefined
   * (nothing kept) past the key's hourly limit.
   */
  enqueue(keyId: string, to: string[], subject: string, body: string, headers?: Record<string, string>, about?: MailAbout): string | undefined {
    const id = crypto.randomUUID();
    const at = this.now();
    const lastHour = this.db.query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM mail_outbox WHERE key_id = ? AND created_at > ?").get(keyId, at - 3_600_000)!.n;
    if (lastHour >= MAX_MAILS_PER_KEY_PER_HOUR) {
      this.log("mail: a key's hourly limit was reached; a notification was dropped", { keyId, limit: MAX_MAILS_PER_KEY_PER_HOUR });
      return undefined;
    }
    this.db
      .query("INSERT INTO mail_outbox (id, key_id, recipients, subject, body, headers, next_at, created_at, monitor_id, check_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(id, keyId, JSON.stringify(to), subject, body, headers ? JSON.stringify(headers) : null, at, at, about?.monitorId ?? null, about?.checkId ?? null);
    return id;
  }

  /**
   * Gives up the unsent messages about `monitorId` (it was deleted: nobody should hear of it again), keeping why. A
   * message the relay is taking at that moment still goes.
   */
  cancelMonitor(monitorId: string): void {
    this.db
      .query("UPDATE mail_outbox SET failed_at = ?, last_error = ? WHERE monitor_id = ? AND sent_at IS NULL AND failed_at IS NULL")
      .run(this.now(), "cancelled: the monitor was deleted", monitorId);
  }

  /** Where the messages about check `checkId` are (a check's `notificationStatus`); undefined when it queued none. */
  checkStatus(checkId: string): CheckMailStatus | undefined {
    const rows = this.db
      .query<{ sent_at: number | null; failed_at: number | null; last_error: string | null }, [string]>("SELECT sent_at, failed_at, last_error FROM mail_outbox WHERE check_id = ? ORDER BY created_at")
      .all(checkId);
    if (rows.length === 0) return undefined;
    const sent = rows.filter((r) => r.sent_at !== null).length;
    const failed = rows.filter((r) => r.sent_at === null && r.failed_at !== null).length;
    const lastError = rows.findLast((r) => r.last_error !== null)?.last_error ?? null;
    return { emails: rows.length, sent, pending: rows.length - sent - failed, failed, lastError };
  }

  /** Sends what is due, one message at a time; a call while a round runs makes it run once more after. Never rejects. */
  deliver(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.delivering) {
      this.again = true;
      return this.delivering;
    }
    this.delivering = (async () => {
      do {
        this.again = false;
        const due = this.db.query<Row, [number, number]>("SELECT id, recipients, subject, body, headers, attempts FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL AND next_at <= ? ORDER BY next_at LIMIT ?").all(this.now(), BATCH);
        for (const m of due) {
          if (this.stopped) return;
          await this.sendOne(m);
        }
      } while (this.again && !this.stopped);
    })()
      .catch((e: unknown) => this.log("mail: a delivery round failed", { error: (e as Error).message }))
      .finally(() => (this.delivering = undefined));
    return this.delivering;
  }

  /** Stops delivering, waiting for the message being sent (call before the database closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.delivering;
  }

  /** Where a message is: `sent`, `pending` (with its attempts) or `failed` (with why). */
  status(id: string): { state: "sent" | "pending" | "failed"; attempts: number; error?: string } | undefined {
    const r = this.db.query<{ sent_at: number | null; failed_at: number | null; attempts: number; last_error: string | null }, [string]>("SELECT sent_at, failed_at, attempts, last_error FROM mail_outbox WHERE id = ?").get(id);
    if (!r) return undefined;
    const state = r.sent_at !== null ? "sent" : r.failed_at !== null ? "failed" : "pending";
    return { state, attempts: r.attempts, ...(r.last_error ? { error: r.last_error } : {}) };
  }

  /** Drops sent and abandoned messages older than 7 days. */
  prune(): void {
    const before = this.now() - KEEP_MS;
    this.db.query("DELETE FROM mail_outbox WHERE (sent_at IS NOT NULL AND sent_at < ?) OR (failed_at IS NOT NULL AND failed_at < ?)").run(before, before);
  }

  private async sendOne(m: Row): Promise<void> {
    // The round's list was read before the previous sends: a message given up since (its monitor deleted) stays unsent.
    if (!this.db.query("SELECT 1 FROM mail_outbox WHERE id = ? AND sent_at IS NULL AND failed_at IS NULL").get(m.id)) return;
    const attempts = m.attempts + 1;
    let refused: string[];
    try {
      ({ refused } = await sendMail(this.smtp, { to: JSON.parse(m.recipients) as string[], subject: m.subject, text: m.body, ...(m.headers ? { headers: JSON.parse(m.headers) as Record<string, string> } : {}) }));
    } catch (e) {
      const error = (e as Error).message.slice(0, 500);
      const permanent = e instanceof SmtpError && e.permanent;
      const wait = RETRY_MINUTES[attempts - 1];
      if (permanent || wait === undefined) {
        this.db.query("UPDATE mail_outbox SET failed_at = ?, attempts = ?, last_error = ? WHERE id = ?").run(this.now(), attempts, error, m.id);
        this.log("mail: gave up on a message", { id: m.id, attempts, error });
      } else {
        this.db.query("UPDATE mail_outbox SET next_at = ?, attempts = ?, last_error = ? WHERE id = ?").run(this.now() + wait * 60_000, attempts, error, m.id);
        this.log("mail: will try again", { id: m.id, attempts, inMinutes: wait, error });
      }
      return;
    }
    // Sent: marked outside the send's own error handling, so that a database error is not taken for the relay's.
    const note = refused.length > 0 ? `the relay refused ${refused.join(", ")}`.slice(0, 500) : null;
    this.db.query("UPDATE mail_outbox SET sent_at = ?, attempts = ?, last_error = ? WHERE id = ?").run(this.now(), attempts, note, m.id);
  }
}
