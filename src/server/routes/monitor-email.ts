/**
 * @module server/routes/monitor-email
 * The links of monitor emails (mail/recipients.ts): `GET /v2/monitor/email/confirm?token=` makes the address a
 * confirmed recipient of the key's monitor notifications, `GET /v2/monitor/email/unsubscribe?token=` stops them for
 * good (POST works too, for clients that follow links with it). No key: the token is the capability, as the address's
 * owner opens the link in a mail reader. A browser (asking for HTML) gets a short page with no script; any other
 * client the /v2 JSON: `{success: true, email, status}`, or the error envelope (an unknown token is a 404).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../errors.ts";
import type { Services } from "../services.ts";

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (status: number, text: string) =>
  new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>crawlbox</title><style>body{font:15px system-ui,sans-serif;margin:3em auto;max-width:40em}</style></head><body><p>${text}</p></body></html>`, { status, headers: HEADERS });

/** The confirm and unsubscribe routes (no API key). */
export function monitorEmailRoutes(services: Services) {
  const follow = (action: "confirm" | "unsubscribe") => ({ query, request }: { query: Record<string, string | undefined>; request: Request }) => {
    const token = query.token ?? "";
    const done = /^[A-Za-z0-9_-]{43}$/.test(token) ? services.monitors.followEmailLink(token, action) : undefined;
    const html = (request.headers.get("accept") ?? "").includes("text/html");
    if (!html) {
      if (!done) throw new NotFoundError("This link is not known (or no longer): nothing was changed.");
      return { success: true, email: done.email, status: done.status };
    }
    if (!done) return page(404, "This link is not known (or no longer): nothing was changed.");
    if (done.status === "confirmed") return page(200, `${escape(done.email)} will receive this server's notifications for the monitors that name it. Every email has a link to stop them.`);
    return page(200, `${escape(done.email)} will receive no more notifications from the monitors of this key, even if named again.`);
  };
  const detail = (summary: string) => ({ detail: { tags: ["monitor"], summary, security: [] } });
  return new Elysia({ name: "crawlbox-monitor-email" })
    .get("/v2/monitor/email/confirm", follow("confirm"), detail("Confirm a monitor email recipient (the link of its confirmation email)"))
    .post("/v2/monitor/email/confirm", follow("confirm"), detail("Confirm a monitor email recipient"))
    .get("/v2/monitor/email/unsubscribe", follow("unsubscribe"), detail("Stop a key's monitor emails to an address (the link in every email)"))
    .post("/v2/monitor/email/unsubscribe", follow("unsubscribe"), detail("Stop a key's monitor emails to an address"));
}
