/**
 * @module monitor/notices
 * What a monitor tells the outside world: `monitor.page` webhook events as a check records pages, the check's own
 * end (`monitor.check.completed` / `.failed`, with the pages that are news) and its emails: one per confirmed
 * recipient with an unsubscribe link, and confirmation emails for addresses not asked yet. Everything here is queued
 * (webhook outbox, mail outbox) inside the caller's transaction; delivery happens elsewhere.
 */
import type { Database } from "bun:sqlite";
import { BadRequestError } from "../errors.ts";
import type { MailOutbox } from "../mail/outbox.ts";
import type { MailRecipients, RecipientSubscription } from "../mail/recipients.ts";
import { enqueueWebhookEvent, webhookEventMatchesFilter } from "../webhooks/index.ts";
import { checkEmail, confirmationEmail, unsubscribeFooter } from "./notify-email.ts";
import { monitorPageView } from "./page-view.ts";
import type { CheckPage, CheckRow, MonitorRow } from "./rows.ts";
import type { MonitorStore } from "./store.ts";

/** Pages of a check read for its email (the email lists at most 200 of the pages that moved). */
const MAX_MAILED_PAGES = 5_000;

/** What {@link MonitorNotices} writes to and reads. */
export interface MonitorNoticesDeps {
  db: Database;
  store: MonitorStore;
  kickWebhooks: () => void;
  mail?: MailOutbox;
  recipients?: MailRecipients;
  /** `CRAWLBOX_PUBLIC_URL`, for the links in emails (never a request's own host). */
  publicBaseUrl?: string;
  now: () => number;
}

/** A monitor's webhook events and emails. */
export class MonitorNotices {
  constructor(private readonly d: MonitorNoticesDeps) {}

  /**
   * Upstream's `monitor.page`, one event per page as the check records it, for a webhook whose `events` ask for it
   * (the default, both check events, does not): the page as `GET …/checks/{checkId}` lists it, with the monitor's and
   * the check's ids. The check's own event comes after its pages (the dispatcher sends a job's end last).
   */
  announcePage(m: MonitorRow, checkId: string, page: CheckPage): void {
    const webhook = (this.d.store.get(m.id) ?? m).webhook;
    // Only when named: a webhook stored without `events` means the two check events (api/monitor.ts), not everything.
    if (!webhook?.events?.some((name) => webhookEventMatchesFilter([name], "monitor.page"))) return;
    const data = [{ monitorId: m.id, checkId, ...monitorPageView(page) }];
    const queued = enqueueWebhookEvent(this.d.db, { jobId: checkId, keyId: m.keyId, jobKind: "monitor", event: "page", success: page.status !== "error", data, webhook, ...(page.error ? { error: page.error } : {}) }, { now: this.d.now() });
    if (queued) this.d.kickWebhooks();
  }

  /** The opt-in standing of the monitor's email recipients (the SDK's `emailRecipientSubscriptions`), if it mails. */
  recipientSubscriptions(m: MonitorRow): RecipientSubscription[] | undefined {
    if (!m.notification || !this.d.recipients) return undefined;
    return this.d.recipients.subscriptions(m.keyId, m.notification.email.recipients);
  }

  /** Where the links of the monitor's emails point: `CRAWLBOX_PUBLIC_URL` (docs/monitor.md). */
  private linkBase(): string {
    return this.d.publicBaseUrl ?? "";
  }

  /**
   * Queues a confirmation email for each pending address of the monitor not asked yet that may be asked now (inside
   * the caller's transaction); an address whose email could not be queued is asked next time. Whether any was.
   */
  askConfirmations(m: MonitorRow): boolean {
    const email = m.notification?.email;
    if (!email?.enabled || !this.d.mail || !this.d.recipients) return false;
    let asked = false;
    for (const r of this.d.recipients.toAsk(m.keyId, email.recipients)) {
      const mail = confirmationEmail(m, this.linkBase(), r.confirmToken, r.unsubscribeToken);
      if (this.d.mail.enqueue(m.keyId, [r.email], mail.subject, mail.text) === undefined) continue;
      this.d.recipients.markAsked(m.keyId, r.email);
      asked = true;
    }
    return asked;
  }

  /** A 400 for an email notification when no mail relay is configured. */
  checkMailable(m: MonitorRow): void {
    if (m.notification?.email.enabled && !this.d.mail) {
      throw new BadRequestError("Email notifications need a mail relay, and none is configured: set CRAWLBOX_SMTP_URL (docs/monitor.md), or use a webhook.", [{ code: "custom", path: ["notification", "email"], message: "no mail relay configured (CRAWLBOX_SMTP_URL)" }], "MAIL_NOT_CONFIGURED");
    }
    if (m.notification?.email.enabled && !this.d.publicBaseUrl) {
      throw new BadRequestError("Email notifications carry links back to this server (to confirm, to unsubscribe): set CRAWLBOX_PUBLIC_URL to the address recipients reach it at (docs/monitor.md).", [{ code: "custom", path: ["notification", "email"], message: "no public URL configured (CRAWLBOX_PUBLIC_URL)" }], "MAIL_NOT_CONFIGURED");
    }
  }

  /**
   * Queues what a check's end announces, inside the caller's transaction: an email per confirmed recipient,
   * confirmation emails still owed, and the webhook's check event. Whether any email was queued (to deliver now).
   */
  announceEnd(m: MonitorRow, check: CheckRow, end: Parameters<MonitorStore["endCheck"]>[1]): boolean {
    let mailed = false;
    const mail = this.d.mail ? checkEmail(m, { id: check.id, ...end }, () => this.d.store.pages(check.id, MAX_MAILED_PAGES, 0), m.notification) : undefined;
    // One email per confirmed recipient, each with its own unsubscribe link; pending ones get nothing yet (and are
    // asked now if they could not be before).
    for (const r of mail ? this.d.recipients!.confirmed(m.keyId, mail.to) : []) {
      const unsubscribe = `${this.linkBase()}/v2/monitor/email/unsubscribe?token=${r.token}`;
      const headers = { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
      if (this.d.mail!.enqueue(m.keyId, [r.email], mail!.subject, mail!.text + unsubscribeFooter(unsubscribe), headers, { monitorId: m.id, checkId: check.id }) !== undefined) mailed = true;
    }
    if (this.askConfirmations(m)) mailed = true;
    if (!m.webhook) return mailed;
    const event = end.status === "failed" ? "check.failed" : "check.completed";
    const data = [{ monitorId: m.id, checkId: check.id, status: end.status, summary: end.summary, pages: this.d.store.changedPages(check.id) }];
    enqueueWebhookEvent(this.d.db, { jobId: check.id, keyId: m.keyId, jobKind: "monitor", event, success: end.status !== "failed", data, webhook: m.webhook, ...(end.error ? { error: end.error } : {}) }, { now: this.d.now() });
    return mailed;
  }
}
