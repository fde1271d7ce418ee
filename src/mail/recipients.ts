/**
 * @module mail/recipients
 * Who may receive a key's monitor emails (upstream's recipient opt-in): an address named in a monitor's
 * `notification.email.recipients` is `pending` until its owner confirms through the link of the one confirmation
 * email it gets, then `confirmed`; every notification carries an unsubscribe link (and the List-Unsubscribe
 * headers), after which the address is `unsubscribed` for that key and gets nothing more, even if named again.
 *
 * Addresses are kept lower-cased, so case variants are one address. An address gets at most one confirmation email a
 * day, whichever keys name it ({@link ASK_INTERVAL_MS}); one not asked yet (that limit, or the key's hourly mail limit)
 * is asked when its monitor is next saved or checked. Per key and address, in SQLite (migration 23). The confirm and
 * the unsubscribe link each have a token of their own (256 random bits), the capability.
 */
import type { Database } from "bun:sqlite";
import { randomToken } from "../auth/token.ts";

/** An address's standing with a key. */
export type RecipientStatus = "pending" | "confirmed" | "unsubscribed";

/** Shortest time between two confirmation emails to one address, whichever keys ask. */
export const ASK_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** As the SDK's `MonitorEmailRecipientSubscription`. */
export interface RecipientSubscription {
  email: string;
  status: RecipientStatus;
  source: "opt_in";
  confirmationEmailSent: boolean;
}

/** The key's recipients. */
export class MailRecipients {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records `emails` for `keyId` (new ones `pending`) and returns the pending ones not yet asked that may be asked
   * now (no confirmation email to that address in the last day), with their tokens. Call {@link markAsked} for each
   * one whose confirmation email was queued.
   */
  toAsk(keyId: string, emails: string[]): { email: string; confirmToken: string; unsubscribeToken: string }[] {
    const at = this.now();
    const insert = this.db.query(
      "INSERT OR IGNORE INTO mail_recipients (key_id, email, status, confirm_token, unsubscribe_token, created_at, updated_at) VALUES (?, ?, 'pending', ?, ?, ?, ?)",
    );
    const row = this.db.query<{ confirm_token: string; unsubscribe_token: string }, [string, string]>(
      "SELECT confirm_token, unsubscribe_token FROM mail_recipients WHERE key_id = ? AND email = ? AND status = 'pending' AND asked_at IS NULL",
    );
    const recent = this.db.query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM mail_recipients WHERE email = ? AND asked_at > ?");
    const out: { email: string; confirmToken: string; unsubscribeToken: string }[] = [];
    for (const raw of emails) {
      const email = raw.toLowerCase();
      insert.run(keyId, email, randomToken(), randomToken(), at, at);
      const r = row.get(keyId, email);
      if (r && recent.get(email, at - ASK_INTERVAL_MS)!.n === 0) out.push({ email, confirmToken: r.confirm_token, unsubscribeToken: r.unsubscribe_token });
    }
    return out;
  }

  /** Notes that `email`'s confirmation email for `keyId` was queued. */
  markAsked(keyId: string, email: string): void {
    this.db.query("UPDATE mail_recipients SET asked_at = ?, updated_at = ? WHERE key_id = ? AND email = ?").run(this.now(), this.now(), keyId, email);
  }

  /** The standing of each of `emails` with `keyId` (pending when unknown). */
  subscriptions(keyId: string, emails: string[]): RecipientSubscription[] {
    const get = this.db.query<{ status: RecipientStatus; asked_at: number | null }, [string, string]>("SELECT status, asked_at FROM mail_recipients WHERE key_id = ? AND email = ?");
    return emails.map((email) => {
      const row = get.get(keyId, email.toLowerCase());
      return { email, status: row?.status ?? "pending", source: "opt_in" as const, confirmationEmailSent: row?.asked_at !== null && row?.asked_at !== undefined };
    });
  }

  /** Of `emails`, the confirmed ones, each with its unsubscribe token. */
  confirmed(keyId: string, emails: string[]): { email: string; token: string }[] {
    const get = this.db.query<{ unsubscribe_token: string }, [string, string]>("SELECT unsubscribe_token FROM mail_recipients WHERE key_id = ? AND email = ? AND status = 'confirmed'");
    return emails.flatMap((email) => {
      const row = get.get(keyId, email.toLowerCase());
      return row ? [{ email: email.toLowerCase(), token: row.unsubscribe_token }] : [];
    });
  }

  /** What a link's token is: the address, its status, and which link it is; undefined for an unknown token. */
  lookup(token: string): { email: string; status: RecipientStatus; action: "confirm" | "unsubscribe" } | undefined {
    const c = this.db.query<{ email: string; status: RecipientStatus }, [string]>("SELECT email, status FROM mail_recipients WHERE confirm_token = ?").get(token);
    if (c) return { ...c, action: "confirm" };
    const u = this.db.query<{ email: string; status: RecipientStatus }, [string]>("SELECT email, status FROM mail_recipients WHERE unsubscribe_token = ?").get(token);
    return u ? { ...u, action: "unsubscribe" } : undefined;
  }

  /**
   * Carries out a link: its confirm token makes a pending address confirmed (an unsubscribed one stays so), its
   * unsubscribe token makes it unsubscribed. Returns the address and its new status; undefined for an unknown token.
   */
  follow(token: string): { email: string; status: RecipientStatus } | undefined {
    const found = this.lookup(token);
    if (!found) return undefined;
    const status: RecipientStatus = found.action === "unsubscribe" || found.status === "unsubscribed" ? "unsubscribed" : "confirmed";
    const column = found.action === "confirm" ? "confirm_token" : "unsubscribe_token";
    this.db.query(`UPDATE mail_recipients SET status = ?, updated_at = ? WHERE ${column} = ?`).run(status, this.now(), token);
    return { email: found.email, status };
  }
}
