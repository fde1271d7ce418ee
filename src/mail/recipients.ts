/**
 * @module mail/recipients
 * Who may receive a key's monitor emails (upstream's recipient opt-in): an address named in a monitor's
 * `notification.email.recipients` is `pending` until its owner follows the link of the one confirmation email it
 * gets, then `confirmed`; every email carries an unsubscribe link, after which it is `unsubscribed` for that key and
 * gets nothing more, even if named again. So a key's holder cannot make crawlbox mail an address that did not ask
 * for it more than once (its one confirmation email). Per key and address, kept in SQLite (migration 22); the links' token (256 random bits) is the
 * capability.
 */
import type { Database } from "bun:sqlite";

/** An address's standing with a key. */
export type RecipientStatus = "pending" | "confirmed" | "unsubscribed";

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
   * Records `emails` for `keyId`: the ones new to the key are added `pending` and returned with their tokens (each
   * is to get a confirmation email); the others are left as they are.
   */
  ensure(keyId: string, emails: string[]): { email: string; token: string }[] {
    const fresh: { email: string; token: string }[] = [];
    const insert = this.db.query("INSERT OR IGNORE INTO mail_recipients (key_id, email, status, token, created_at, updated_at) VALUES (?, ?, 'pending', ?, ?, ?)");
    for (const email of emails) {
      const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
      const at = this.now();
      if (insert.run(keyId, email, token, at, at).changes > 0) fresh.push({ email, token });
    }
    return fresh;
  }

  /** The standing of each of `emails` with `keyId` (pending when unknown). */
  subscriptions(keyId: string, emails: string[]): RecipientSubscription[] {
    const get = this.db.query<{ status: RecipientStatus }, [string, string]>("SELECT status FROM mail_recipients WHERE key_id = ? AND email = ?");
    return emails.map((email) => {
      const row = get.get(keyId, email);
      return { email, status: row?.status ?? "pending", source: "opt_in" as const, confirmationEmailSent: row !== null };
    });
  }

  /** Of `emails`, the confirmed ones, each with its unsubscribe token. */
  confirmed(keyId: string, emails: string[]): { email: string; token: string }[] {
    const get = this.db.query<{ token: string }, [string, string]>("SELECT token FROM mail_recipients WHERE key_id = ? AND email = ? AND status = 'confirmed'");
    return emails.flatMap((email) => {
      const row = get.get(keyId, email);
      return row ? [{ email, token: row.token }] : [];
    });
  }

  /**
   * Follows a link: `confirm` makes a pending address confirmed (an unsubscribed one stays so), `unsubscribe` makes
   * any unsubscribed. Returns the address, or undefined for an unknown token.
   */
  follow(token: string, action: "confirm" | "unsubscribe"): { email: string; status: RecipientStatus } | undefined {
    const row = this.db.query<{ email: string; status: RecipientStatus }, [string]>("SELECT email, status FROM mail_recipients WHERE token = ?").get(token);
    if (!row) return undefined;
    const status: RecipientStatus = action === "unsubscribe" ? "unsubscribed" : row.status === "unsubscribed" ? "unsubscribed" : "confirmed";
    this.db.query("UPDATE mail_recipients SET status = ?, updated_at = ? WHERE token = ?").run(status, this.now(), token);
    return { email: row.email, status };
  }
}
