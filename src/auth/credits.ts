/**
 * @module auth/credits
 * Credit and token accounting per key and UTC day. Costs are decided by the scrape path (docs/credits.md);
 * this ledger only counts and enforces quotas. A quota of 0 means unlimited. A charge made inside a transaction is
 * part of it (a crawl page and its credit commit together, or neither); any other is written behind the response
 * (storage/write-behind.ts), and every read of the ledger counts the queued ones too.
 */
import type { Database } from "bun:sqlite";
import { InsufficientCreditsError } from "../errors.ts";
import { WriteBehind } from "../storage/write-behind.ts";
import type { KeyIdentity } from "./keys.ts";

/** One charge not written yet. */
interface QueuedCharge {
  keyId: string;
  /** The UTC day it was made, `YYYY-MM-DD`. */
  day: string;
  credits: number;
  tokens: number;
}

/** What `/v2/team/credit-usage` reports for a key. */
export interface CreditUsage {
  creditsUsed: number;
  tokensUsed: number;
  /** Null when the key has no quota. */
  quota: number | null;
  remainingCredits: number | null;
}

/**
 * Credits promised to one piece of work in progress (a scrape, a map, a search): counted against the key's quota by
 * every other check until released, so that concurrent requests cannot each pass the check on the same last credit.
 * A hold is not usage: the work charges what it spent ({@link CreditLedger.charge}) and then releases the hold.
 */
export interface CreditHold {
  /**
   * Raises the hold to `credits` in all; throws {@link InsufficientCreditsError} when the quota cannot cover them.
   * After release it only checks.
   */
  raise(credits: number): void;
  /** Gives the hold back; a second call does nothing. */
  release(): void;
}

/** The hold of a key without a quota: nothing to count. */
const FREE_HOLD: CreditHold = { raise() {}, release() {} };

/** Counts credits and tokens, and refuses work once a quota is spent. */
export class CreditLedger {
  private readonly addStmt;
  private readonly sumStmt;
  private readonly historyStmt;
  private readonly queue: WriteBehind<QueuedCharge>;
  /** Each key's queued charges summed (what `usage` adds to the table's, without reading the queue). */
  private readonly queuedTotals = new Map<string, { credits: number; tokens: number }>();
  /** Each key's credits held by work in progress ({@link hold}). */
  private readonly heldTotals = new Map<string, number>();

  /** @param onWriteError told when queued charges cannot be written (they are kept and tried again) */
  constructor(
    private readonly db: Database,
    private readonly defaultQuota: number,
    private readonly now: () => number = Date.now,
    onWriteError?: (err: unknown) => void,
  ) {
    this.addStmt = db.query(
      `INSERT INTO credit_usage (key_id, day, credits, tokens) VALUES (?, ?, ?, ?)
       ON CONFLICT (key_id, day) DO UPDATE SET credits = credits + excluded.credits, tokens = tokens + excluded.tokens`,
    );
    this.sumStmt = db.query<{ credits: number | null; tokens: number | null }, [string]>(
      "SELECT SUM(credits) AS credits, SUM(tokens) AS tokens FROM credit_usage WHERE key_id = ?",
    );
    this.historyStmt = db.query<{ month: string; credits: number; tokens: number }, [string]>(
      `SELECT substr(day, 1, 7) AS month, SUM(credits) AS credits, SUM(tokens) AS tokens
       FROM credit_usage WHERE key_id = ? GROUP BY month ORDER BY month`,
    );
    this.queue = new WriteBehind(
      db,
      (rows) => {
        for (const r of rows) this.addStmt.run(r.keyId, r.day, r.credits, r.tokens);
      },
      onWriteError,
      (rows) => {
        for (const r of rows) this.addQueued(r.keyId, -r.credits, -r.tokens);
      },
    );
  }

  /** Writes the queued charges now (a graceful stop; tests). */
  flush(): void {
    this.queue.flush();
  }

  private addQueued(keyId: string, credits: number, tokens: number): void {
    const t = this.queuedTotals.get(keyId) ?? { credits: 0, tokens: 0 };
    t.credits += credits;
    t.tokens += tokens;
    if (t.credits === 0 && t.tokens === 0) this.queuedTotals.delete(keyId);
    else this.queuedTotals.set(keyId, t);
  }

  /** `keyId`'s charges not written yet. */
  private queuedOf(keyId: string): QueuedCharge[] {
    return this.queue.pending().filter((c) => c.keyId === keyId);
  }

  private quotaOf(who: KeyIdentity): number | null {
    const q = who.creditQuota ?? this.defaultQuota;
    return q > 0 ? q : null;
  }

  /** Usage so far for `who`. */
  usage(who: KeyIdentity): CreditUsage {
    const row = this.sumStmt.get(who.keyId);
    const queued = this.queuedTotals.get(who.keyId);
    const creditsUsed = (row?.credits ?? 0) + (queued?.credits ?? 0);
    const tokensUsed = (row?.tokens ?? 0) + (queued?.tokens ?? 0);
    const quota = this.quotaOf(who);
    return {
      creditsUsed,
      tokensUsed,
      quota,
      remainingCredits: quota === null ? null : Math.max(0, quota - creditsUsed),
    };
  }

  /** Monthly totals for `who`, oldest first (the `/historical` routes). */
  history(who: KeyIdentity): { month: string; credits: number; tokens: number }[] {
    const months = this.historyStmt.all(who.keyId);
    for (const c of this.queuedOf(who.keyId)) {
      const month = c.day.slice(0, 7);
      const m = months.find((x) => x.month === month);
      if (m) {
        m.credits += c.credits;
        m.tokens += c.tokens;
      } else months.push({ month, credits: c.credits, tokens: c.tokens });
    }
    return months.sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  }

  /**
   * Throws {@link InsufficientCreditsError} (402) when `who` cannot spend `credits` more: what is spent and what other
   * work in progress holds both count.
   */
  assertCanSpend(who: KeyIdentity, credits = 1): void {
    // Without a quota there is nothing to enforce: no usage query on every request's path.
    if (this.quotaOf(who) === null) return;
    this.assertRoom(who, credits, 0);
  }

  /**
   * Holds `credits` of `who`'s quota for work about to start (402 when they are not there), until the hold is
   * released. Work that checks and then charges after an await uses this instead of {@link assertCanSpend}.
   */
  hold(who: KeyIdentity, credits: number): CreditHold {
    if (this.quotaOf(who) === null) return FREE_HOLD;
    this.assertRoom(who, credits, 0);
    let held = 0;
    const set = (n: number) => {
      const total = (this.heldTotals.get(who.keyId) ?? 0) + n - held;
      if (total > 0) this.heldTotals.set(who.keyId, total);
      else this.heldTotals.delete(who.keyId);
      held = n;
    };
    set(credits);
    let released = false;
    return {
      raise: (n) => {
        // Released (a document conversion going on past its request's deadline): still checked, no longer held.
        if (released) return this.assertRoom(who, n, 0);
        if (n <= held) return;
        this.assertRoom(who, n, held);
        set(n);
      },
      release: () => {
        if (released) return;
        released = true;
        set(0);
      },
    };
  }

  /**
   * Runs `work` with `credits` held, then charges what `costOf` says it spent and gives the hold back, in that order:
   * a concurrent check of the key sees the credits held or spent, never neither. Work that throws is not charged.
   */
  async holding<T>(who: KeyIdentity, credits: number, work: () => Promise<T>, costOf: (result: T) => number): Promise<T> {
    const hold = this.hold(who, credits);
    try {
      const result = await work();
      this.charge(who, costOf(result));
      return result;
    } finally {
      hold.release();
    }
  }

  /** Throws unless the quota covers `credits` on top of what is spent and held (less `ownHeld`, the caller's hold). */
  private assertRoom(who: KeyIdentity, credits: number, ownHeld: number): void {
    const { remainingCredits } = this.usage(who);
    if (remainingCredits === null) return;
    const heldByOthers = (this.heldTotals.get(who.keyId) ?? 0) - ownHeld;
    if (remainingCredits - heldByOthers < credits) throw new InsufficientCreditsError();
  }

  /**
   * Records spent credits and LLM tokens (counts: anything but a finite, non-negative number is refused), on the day
   * they are spent: inside an open transaction as part of it, else on the next event-loop turn (counted by every
   * read at once).
   */
  charge(who: KeyIdentity, credits: number, tokens = 0): void {
    for (const n of [credits, tokens]) if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new TypeError(`not a count of credits or tokens: ${n}`);
    if (credits === 0 && tokens === 0) return;
    const day = new Date(this.now()).toISOString().slice(0, 10);
    if (this.db.inTransaction) this.addStmt.run(who.keyId, day, credits, tokens);
    else {
      this.queue.push({ keyId: who.keyId, day, credits, tokens });
      this.addQueued(who.keyId, credits, tokens);
    }
  }
}
