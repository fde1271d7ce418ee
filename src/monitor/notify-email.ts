/**
 * @module monitor/notify-email
 * The email a finished check sends (`notification.email`, docs/monitor.md): when it found pages new, changed or
 * removed, or failed. Plain text: the monitor, the check's counts, each page that moved with its status, and, with
 * `includeDiffs`, each changed page's diff (cut at {@link DIFF_CHARS} a page and {@link BODY_CHARS} in all), and an
 * unsubscribe link of the recipient's own. It is queued in the mail outbox (mail/outbox.ts), one per confirmed
 * recipient (mail/recipients.ts), in the transaction that ends the check. Also the confirmation email an address gets
 * the first time a key names it.
 */
import type { MonitorNotification } from "../api/monitor.ts";
import type { CheckPage, MonitorRow, MonitorSummary } from "./rows.ts";

/** Characters of one page's diff in an email. */
const DIFF_CHARS = 20_000;
/** Characters of an email's body at most. */
const BODY_CHARS = 200_000;
/** Pages listed in one email at most. */
const MAX_LISTED = 200;

/** Characters of a monitor's name shown in a confirmation email (the name is the key holder's words). */
const NAME_IN_CONFIRMATION = 60;

/** The confirmation email of an address a key named: what asked, and the links to confirm or refuse. */
export function confirmationEmail(m: MonitorRow, base: string, confirmToken: string, unsubscribeToken: string): { subject: string; text: string } {
  // The name shortened and stripped of anything that looks like a link: the message is crawlbox's, not the key holder's.
  const name = m.name.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/gi, "…").replace(/\s+/g, " ").slice(0, NAME_IN_CONFIRMATION);
  return {
    subject: "[crawlbox] Confirm monitor notifications",
    text: [
      `A crawlbox server was asked to email this address when a monitor ("${name}") finds changes on the web pages it watches.`,
      "",
      `To receive them, open this link and confirm: ${base}/v2/monitor/email/confirm?token=${confirmToken}`,
      "",
      `If you did not ask for this, ignore this email: nothing more will be sent to you. To refuse for good: ${base}/v2/monitor/email/unsubscribe?token=${unsubscribeToken}`,
      "",
    ].join("\n"),
  };
}

/** The end of every notification: how to stop them. */
export function unsubscribeFooter(url: string): string {
  return `\n--\nTo stop these emails: ${url}\n`;
}

/** Whether a check that ended so is worth an email. */
function worthMailing(status: string, summary: MonitorSummary): boolean {
  return status === "failed" || summary.new + summary.changed + summary.removed > 0;
}

/**
 * The email's recipients, subject and text; undefined when the monitor sends none. `pages` reads the check's pages
 * only when an email is sent.
 */
export function checkEmail(
  m: MonitorRow,
  check: { id: string; status: string; summary: MonitorSummary; error?: string },
  pages: () => Pick<CheckPage, "url" | "status" | "diff">[],
  settings: MonitorNotification | undefined,
): { to: string[]; subject: string; text: string } | undefined {
  const email = settings?.email;
  if (!email?.enabled || email.recipients.length === 0 || !worthMailing(check.status, check.summary)) return undefined;
  const s = check.summary;
  const moved = pages().filter((p) => p.status === "new" || p.status === "changed" || p.status === "removed");
  const subject =
    check.status === "failed" ? `[crawlbox] ${m.name}: the check failed` : `[crawlbox] ${m.name}: ${s.changed} changed, ${s.new} new, ${s.removed} removed`;
  const lines = [
    `Monitor "${m.name}" (${m.id}), check ${check.id}: ${check.status}.`,
    `Pages: ${s.totalPages} (new ${s.new}, changed ${s.changed}, removed ${s.removed}, same ${s.same}, errors ${s.error}).`,
    ...(check.error ? [`Error: ${check.error}`] : []),
    "",
    ...moved.slice(0, MAX_LISTED).map((p) => `- ${p.status}: ${p.url}`),
    ...(moved.length > MAX_LISTED ? [`… and ${moved.length - MAX_LISTED} more (see the check).`] : []),
  ];
  let text = lines.join("\n");
  if (email.includeDiffs) {
    for (const p of moved) {
      const diff = p.status === "changed" ? p.diff?.text : undefined;
      if (!diff) continue;
      const part = `\n\n--- ${p.url}\n${diff.length > DIFF_CHARS ? `${diff.slice(0, DIFF_CHARS)}\n… (cut)` : diff}`;
      if (text.length + part.length > BODY_CHARS) {
        text += "\n\n… more diffs are in the check (GET /v2/monitor/{id}/checks/{checkId}).";
        break;
      }
      text += part;
    }
  }
  text += `\n\nThe check: GET /v2/monitor/${m.id}/checks/${check.id}\n`;
  return { to: email.recipients, subject, text };
}
