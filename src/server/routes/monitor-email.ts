/**
 * @module server/routes/monitor-email
 * The links of monitor emails (mail/recipients.ts): `/v2/monitor/email/confirm?token=` and
 * `/v2/monitor/email/unsubscribe?token=`. No key: the token is the capability, as the address's owner opens the link
 * in a mail reader. Opening a link (GET, HEAD) changes nothing, because mail scanners open links on their own: a
 * browser gets a page with one button that POSTs; any other client the /v2 JSON of where the address stands. POST
 * carries the link out (also the one-click unsubscribe of RFC 8058's `List-Unsubscribe-Post`), answering the page or
 * `{success: true, email, status}`. An unknown token is a 404 (the error envelope, or a page).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../errors.ts";
import type { Services } from "../services.ts";

const headers = (nonceForm: boolean) => ({
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'${nonceForm ? "; form-action 'self'" : ""}`,
});

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (status: number, body: string, form = false) =>
  new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>crawlbox</title><style>body{font:15px system-ui,sans-serif;margin:3em auto;max-width:40em}</style></head><body>${body}</body></html>`, { status, headers: headers(form) });

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const UNKNOWN = "This link is not known (or no longer): nothing was changed.";

/** The confirm and unsubscribe routes (no API key). */
export function monitorEmailRoutes(services: Services) {
  const wantsHtml = (request: Request) => (request.headers.get("accept") ?? "").includes("text/html");
  /** GET (and HEAD): where the address stands, and for a browser the button that carries the link out. */
  const show = (kind: "confirm" | "unsubscribe") => ({ query, request }: { query: Record<string, string | undefined>; request: Request }) => {
    const token = query.token ?? "";
    const found = TOKEN.test(token) ? services.monitors.emailLink(token) : undefined;
    const known = found && found.action === kind ? found : undefined;
    if (!wantsHtml(request)) {
      if (!known) throw new NotFoundError(UNKNOWN);
      return { success: true, email: known.email, status: known.status };
    }
    if (!known) return page(404, `<p>${UNKNOWN}</p>`);
    const question = kind === "confirm" ? `Send ${escape(known.email)} the notifications of the monitor that asked?` : `Stop sending ${escape(known.email)} these monitor notifications?`;
    const button = kind === "confirm" ? "Yes, send them" : "Yes, stop them";
    return page(200, `<p>${question}</p><form method="post" action="${kind}?token=${token}"><button type="submit">${button}</button></form>`, true);
  };
  /** POST: carries the link out. */
  const follow = (kind: "confirm" | "unsubscribe") => ({ query, request }: { query: Record<string, string | undefined>; request: Request }) => {
    const token = query.token ?? "";
    const found = TOKEN.test(token) ? services.monitors.emailLink(token) : undefined;
    const done = found && found.action === kind ? services.monitors.followEmailLink(token) : undefined;
    if (!wantsHtml(request)) {
      if (!done) throw new NotFoundError(UNKNOWN);
      return { success: true, email: done.email, status: done.status };
    }
    if (!done) return page(404, `<p>${UNKNOWN}</p>`);
    if (done.status === "confirmed") return page(200, `<p>${escape(done.email)} will receive these notifications. Every email has a link to stop them.</p>`);
    return page(200, `<p>${escape(done.email)} will receive no more notifications from the monitors that asked, even if named again.</p>`);
  };
  const detail = (summary: string) => ({ detail: { tags: ["monitor"], summary, security: [] } });
  return new Elysia({ name: "crawlbox-monitor-email" })
    .get("/v2/monitor/email/confirm", show("confirm"), detail("Where a monitor email recipient stands (the confirmation link; changes nothing)"))
    .post("/v2/monitor/email/confirm", follow("confirm"), detail("Confirm a monitor email recipient"))
    .get("/v2/monitor/email/unsubscribe", show("unsubscribe"), detail("Where a monitor email recipient stands (the unsubscribe link; changes nothing)"))
    .post("/v2/monitor/email/unsubscribe", follow("unsubscribe"), detail("Stop a key's monitor emails to an address (also RFC 8058 one-click)"));
}
