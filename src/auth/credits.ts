/**
 * @module auth/credits
 * Credit and token accounting per key and UTC day. Costs are decided by the scrape path (docs/credits.md);
 * this ledger only counts and enforces quotas. A quota of 0 means unlimited.
 */
import type { Database } from "bun:sqlite";
import { InsufficientCreditsError } from "../errors.ts";
import type { KeyIdentity } from "./keys.ts";

/** What `/v2/team/credit-usage` reports for a key. */
export interface CreditUsage {
  creditsUsed: number;
  tokensUsed: number;
  /** Null when the key has no quota. */
  quota: number | null;
  remainingCredits: number | null;
}

/** Counts credits and tokens, and refuses work once a quota is spent. */
export class CreditLedger {
  private readonly addStmt;
  private readonly sumStmt;
  private readonly historyStmt;

  constructor(
    db: Database,
    private readonly defaultQuota: number,
    private readonly now: () => number = Date.now,
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
  }

  private quotaOf(who: KeyIdentity): number | null {
    const q = who.creditQuota ?? this.defaultQuota;
    return q > 0 ? q : null;
  }

  /** Usage so far for `who`. */
  usage(who: KeyIdentity): CreditUsage {
    const row = this.sumStmt.get(who.keyId);
    const creditsUsed = row?.credits ?? 0;
    const quota = this.quotaOf(who);
    return {
      creditsUsed,
      tokensUsed: row?.tokens ?? 0,
      quota,
      remainingCredits: quota === null ? null : Math.max(0, quota - creditsUsed),
    };
  }

  /** Monthly totals for `who`, oldest first (the `/historical` routes). */
  history(who: KeyIdentity): { month: string; credits: number; tokens: number }[] {
    return this.historyStmt.all(who.keyId);
  }

  /** Throws {@link InsufficientCreditsError} (402) when `who` cannot spend `credits` more. */
  assertCanSpend(who: KeyIdentity, credits = 1): void {
    // Without a quota there is nothing to enforce: no usage query on every request's path.
    if (this.quotaOf(who) === null) return;
    const { remainingCredits } = this.usage(who);
    if (remainingCredits !== null && remainingCredits < credits) throw new InsufficientCreditsError();
  }

  /** Records spent credits and LLM tokens (counts: anything but a finite, non-negative number is refused). */
  charge(who: KeyIdentity, credits: number, tokens = 0): void {
    for (const n of [credits, tokens]) if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new TypeError(`not a count of credits or tokens: ${n}`);
    if (credits === 0 && tokens === 0) return;
    const day = new Date(this.now()).toISOString().slice(0, 10);
    this.addStmt.run(who.keyId, day, credits, tokens);
  }
}
