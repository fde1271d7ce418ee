/**
 * Monitors' email notifications through a local SMTP relay (test/mail/fake-smtp.ts): recipients opt in through a
 * confirmation email's link and can unsubscribe; a check that finds pages new, changed or removed mails the confirmed
 * ones (with the diffs when asked), a quiet check none; the relay
 * answering a temporary error is tried again later, a permanent one gives up; without a relay configured an email
 * notification is a 400; settings are answered as stored and removed with null (`{}` changes nothing); bad recipients are 400s.
 * The SMTP client itself is covered in smtp-client.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { mailBody, mailHeader, startFakeSmtp, type FakeSmtp } from "./fake-smtp.ts";
import { untilCheckEnds } from "../helpers/monitor-checks.ts";

/** The server's public URL as configured: the links in emails point there (the test reaches it at `api`). */
const PUBLIC = "http://crawlbox.test";
let api: string;
let site: ReturnType<typeof Bun.serve>;
let smtp: FakeSmtp;
let h: Harness;
let app: Firecrawl;
let base: string;
const pages = new Map<string, string>();
const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = pages.get(new URL(req.url).pathname);
      return p ? new Response(p, { headers: { "content-type": "text/html" } }) : new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  smtp = await startFakeSmtp({ auth: { user: "crawl", pass: "s3cret:x" } });
  // A relay on loopback without TLS: the URL says so (starttls=off), or its password would not be sent.
  h = await createHarness({ smtpUrl: `smtp://crawl:${encodeURIComponent("s3cret:x")}@127.0.0.1:${smtp.port}?starttls=off`, smtpFrom: "monitor@example.test", publicUrl: PUBLIC });
  api = h.listen();
  app = new Firecrawl({ apiKey: h.key, apiUrl: api });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  smtp.stop();
});

async function runAndSettle(id: string): Promise<any> {
  const { id: checkId } = (await app.runMonitor(id)) as any;
  return untilCheckEnds(() => app.getMonitorCheck(id, checkId) as Promise<any>);
}

/** A link of a recorded email (`confirm` or `unsubscribe`). */
const linkIn = (m: Parameters<typeof mailBody>[0], kind: "confirm" | "unsubscribe") => {
  const found = new RegExp(`https?://\\S+/v2/monitor/email/${kind}\\?token=[\\w-]+`).exec(mailBody(m));
  if (!found) throw new Error(`no ${kind} link in: ${mailBody(m)}`);
  expect(found[0]).toStartWith(`${PUBLIC}/`);
  return found[0].replace(PUBLIC, api);
};

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await Bun.sleep(25);
};

describe("monitor email notifications", () => {
  test("recipients opt in: one confirmation email each; a check that finds news mails the confirmed ones (diffs when asked); unsubscribing stops it", async () => {
    pages.set("/price", html("Kettle", "The kettle costs 25 EUR."));
    pages.set("/about", html("About", "A small shop."));
    const notification = { email: { recipients: ["ops@example.test", " Dev@Example.test "], includeDiffs: true } };
    const m: any = await app.createMonitor({ name: "Shöp", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/price`, `${base}/about`] }], notification } as any);
    expect(m.notification).toEqual({ email: { enabled: true, recipients: ["ops@example.test", "dev@example.test"], includeDiffs: true } });
    expect(m.emailRecipientSubscriptions).toEqual([
      { email: "ops@example.test", status: "pending", source: "opt_in", confirmationEmailSent: true },
      { email: "dev@example.test", status: "pending", source: "opt_in", confirmationEmailSent: true },
    ]);
    await until(() => smtp.received.length >= 2);
    const asks = smtp.received.splice(0);
    expect(asks.map((a) => a.to[0]).sort()).toEqual(["dev@example.test", "ops@example.test"]);
    expect(mailHeader(asks[0]!, "Subject")).toBe("[crawlbox] Confirm monitor notifications");
    const opsAsk = asks.find((a) => a.to[0] === "ops@example.test")!;
    // Another key naming ops (in any case) the same day asks nothing: one confirmation email a day per address.
    const other = new Firecrawl({ apiKey: h.services.keys.create("other-mail").key, apiUrl: api });
    const theirs: any = await other.createMonitor({ name: "Theirs", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/about`] }], notification: { email: { recipients: ["OPS@example.test", "Ops@Example.test"] } } } as any);
    expect(theirs.emailRecipientSubscriptions).toEqual([{ email: "ops@example.test", status: "pending", source: "opt_in", confirmationEmailSent: false }]);

    // Nobody confirmed yet: the check sends nothing.
    await runAndSettle(m.id);
    await Bun.sleep(300);
    expect(smtp.received).toHaveLength(0);

    // ops confirms (the link, opened with no key); Dev does not.
    // Opening the link (a browser, a mail scanner: GET, HEAD) changes nothing; the page's button POSTs.
    const opened = await fetch(linkIn(opsAsk, "confirm"), { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('<form method="post"');
    await fetch(linkIn(opsAsk, "confirm"), { method: "HEAD" });
    expect(await (await fetch(linkIn(opsAsk, "confirm"))).json()).toEqual({ success: true, email: "ops@example.test", status: "pending" });
    const confirmed = await fetch(linkIn(opsAsk, "confirm"), { method: "POST", headers: { accept: "text/html" } });
    expect(await confirmed.text()).toContain("ops@example.test will receive");
    expect(await (await fetch(linkIn(opsAsk, "confirm"))).json()).toEqual({ success: true, email: "ops@example.test", status: "confirmed" });
    // The other key's standing is its own.
    expect(((await other.getMonitor(theirs.id)) as any).emailRecipientSubscriptions[0].status).toBe("pending");
    await other.deleteMonitor(theirs.id);
    expect(((await app.getMonitor(m.id)) as any).emailRecipientSubscriptions.map((r: any) => r.status)).toEqual(["confirmed", "pending"]);

    pages.set("/price", html("Kettle", "The kettle costs 29 EUR."));
    const second = await runAndSettle(m.id);
    await until(() => smtp.received.length >= 1);
    const news = smtp.received[0]!;
    expect(news).toMatchObject({ from: "monitor@example.test", to: ["ops@example.test"], user: "crawl" });
    expect(mailHeader(news, "Subject")).toBe("[crawlbox] Shöp: 1 changed, 0 new, 0 removed");
    expect(mailHeader(news, "List-Unsubscribe")).toBe(`<${linkIn(news, "unsubscribe").replace(api, PUBLIC)}>`);
    expect(mailHeader(news, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const body = mailBody(news);
    expect(body).toContain(`- changed: ${base}/price`);
    expect(body).toContain("+The kettle costs 29 EUR.");
    expect(body).toContain(`GET /v2/monitor/${m.id}/checks/${second.id}`);

    // A quiet check sends nothing; after unsubscribing, news send nothing either, and naming the address again asks nothing.
    await runAndSettle(m.id);
    await Bun.sleep(300);
    expect(smtp.received).toHaveLength(1);
    // As a mail client sends RFC 8058's one-click unsubscribe: a form body (it was a 400 for not being JSON).
    const oneClick = await fetch(linkIn(news, "unsubscribe"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(await oneClick.json()).toEqual({ success: true, email: "ops@example.test", status: "unsubscribed" });
    const form = new FormData();
    form.append("List-Unsubscribe", "One-Click");
    expect((await fetch(linkIn(news, "unsubscribe"), { method: "POST", body: form })).status).toBe(200);
    pages.set("/price", html("Kettle", "The kettle costs 31 EUR."));
    await runAndSettle(m.id);
    await app.updateMonitor(m.id, { notification: { email: { recipients: ["ops@example.test"] } } } as any);
    await Bun.sleep(300);
    expect(smtp.received).toHaveLength(1);
    expect(((await app.getMonitor(m.id)) as any).emailRecipientSubscriptions).toEqual([{ email: "ops@example.test", status: "unsubscribed", source: "opt_in", confirmationEmailSent: true }]);
    const unknown = await fetch(`${linkIn(news, "unsubscribe").split("?")[0]}?token=${"x".repeat(43)}`);
    expect([unknown.status, ((await unknown.json()) as any).code]).toEqual([404, "NOT_FOUND"]);
    smtp.received.splice(0);
    await app.deleteMonitor(m.id);
  });

  test("a temporary refusal is tried again later; a permanent one gives up; the outbox keeps why, and each check answers how its notifications went; deleting the monitor cancels what is unsent", async () => {
    const hooks: string[] = [];
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => (hooks.push(((await req.json()) as any).type), new Response("ok")) });
    pages.set("/a", html("A", "one"));
    const m: any = await app.createMonitor({ name: "Retry", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/a`] }], notification: { email: { recipients: ["retry@example.test"] } }, webhook: { url: `http://127.0.0.1:${receiver.port}/hook` } } as any);
    await until(() => smtp.received.length >= 1);
    expect((await fetch(linkIn(smtp.received.splice(0)[0]!, "confirm"), { method: "POST" })).status).toBe(200);
    const before = smtp.received.length;
    smtp.failNext([451]);
    const first = await runAndSettle(m.id);
    const row = () => h.services.db.query("SELECT attempts, next_at, sent_at, failed_at, last_error FROM mail_outbox ORDER BY created_at DESC LIMIT 1").get() as any;
    await until(() => row()?.attempts === 1);
    expect(row()).toMatchObject({ attempts: 1, sent_at: null, failed_at: null });
    expect(row().last_error).toContain("451");
    expect(row().next_at - Date.now()).toBeGreaterThan(50_000);
    const status = async (checkId: string) => ((await app.getMonitorCheck(m.id, checkId)) as any).notificationStatus;
    await until(() => hooks.length >= 1);
    await Bun.sleep(100);
    expect(await status(first.id)).toEqual({
      email: { emails: 1, sent: 0, pending: 1, failed: 0, lastError: expect.stringContaining("451") },
      webhook: { webhookId: expect.any(String), type: "monitor.check.completed", status: "delivered", attempts: 1, lastError: null },
    });
    // Its time comes: it is sent.
    h.services.db.query("UPDATE mail_outbox SET next_at = 0 WHERE sent_at IS NULL").run();
    await h.services.mail!.deliver();
    expect(row()).toMatchObject({ attempts: 2, failed_at: null });
    expect(row().sent_at).toEqual(expect.any(Number));
    expect(smtp.received.length).toBe(before + 1);
    expect((await status(first.id)).email).toMatchObject({ emails: 1, sent: 1, pending: 0, failed: 0 });

    pages.set("/a", html("A", "two"));
    smtp.failNext([550]);
    const second = await runAndSettle(m.id);
    await until(() => row()?.failed_at !== null);
    expect(row()).toMatchObject({ attempts: 1, sent_at: null });
    expect(row().last_error).toContain("550");
    expect(smtp.received.length).toBe(before + 1);
    expect((await status(second.id)).email).toMatchObject({ emails: 1, sent: 0, pending: 0, failed: 1, lastError: expect.stringContaining("550") });

    // A quiet check mails nothing: its status has the webhook alone.
    const quiet = await runAndSettle(m.id);
    await until(() => hooks.length >= 3);
    await Bun.sleep(100);
    expect(await status(quiet.id)).toMatchObject({ email: null, webhook: { status: "delivered" } });

    // An email still waiting for a retry when its monitor is deleted is never sent.
    pages.set("/a", html("A", "three"));
    smtp.failNext([451]);
    await runAndSettle(m.id);
    await until(() => row()?.attempts === 1 && row()?.failed_at === null && row()?.sent_at === null);
    await app.deleteMonitor(m.id);
    expect(row()).toMatchObject({ sent_at: null, last_error: "cancelled: the monitor was deleted" });
    expect(row().failed_at).toEqual(expect.any(Number));
    h.services.db.query("UPDATE mail_outbox SET next_at = 0").run();
    await h.services.mail!.deliver();
    expect(smtp.received.length).toBe(before + 1);
    receiver.stop(true);
  });

  test("settings are answered as stored, removed with null; bad recipients are 400s; without a relay email is a 400", async () => {
    const target = [{ type: "scrape", urls: [`${base}/a`] }];
    const bad = await h.request("/v2/monitor", { method: "POST", json: { name: "x", schedule: { text: "hourly" }, targets: target, notification: { email: { recipients: ["not an address"] } } } });
    expect(bad.status).toBe(400);
    const none = await h.request("/v2/monitor", { method: "POST", json: { name: "x", schedule: { text: "hourly" }, targets: target, notification: { email: { recipients: [] } } } });
    expect(none.status).toBe(400);
    const many = await h.request("/v2/monitor", { method: "POST", json: { name: "x", schedule: { text: "hourly" }, targets: target, notification: { email: { recipients: Array.from({ length: 11 }, (_, i) => `u${i}@example.test`) } } } });
    expect(many.status).toBe(400);

    const m: any = await app.createMonitor({ name: "Quiet", schedule: { text: "hourly" }, targets: target, notification: { email: { enabled: false } } } as any);
    expect(m.notification).toEqual({ email: { enabled: false, recipients: [], includeDiffs: false } });
    const updated = (await (await h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { notification: null } })).json()) as any
    expect(updated.data.notification).toBeNull();
    await app.deleteMonitor(m.id);

    for (const config of [{}, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` }]) {
      const noRelay = await createHarness(config);
      try {
        const r = await noRelay.request("/v2/monitor", { method: "POST", json: { name: "x", schedule: { text: "hourly" }, targets: target, notification: { email: { recipients: ["ops@example.test"] } } } });
        const b = (await r.json()) as any;
        expect([r.status, b.code]).toEqual([400, "MAIL_NOT_CONFIGURED"]);
        // A relay but no public URL: the links would come from the request's Host, which the key's holder writes.
        expect(b.error).toContain(config.smtpUrl ? "CRAWLBOX_PUBLIC_URL" : "CRAWLBOX_SMTP_URL");
      } finally {
        await noRelay.close();
      }
    }

    // Past the key's hourly mail limit a new address is not asked, and is asked when the monitor is next saved.
    const keyId = h.services.keys.verify(h.key)!.keyId;
    h.services.db.query("DELETE FROM mail_outbox").run();
    for (let i = 0; i < 100; i++) h.services.mail!.enqueue(keyId, ["filler@example.test"], "s", "t");
    h.services.db.query("UPDATE mail_outbox SET sent_at = 1").run();
    const late: any = await app.createMonitor({ name: "Late", schedule: { text: "hourly" }, targets: target, notification: { email: { recipients: ["late@example.test"] } } } as any);
    expect(late.emailRecipientSubscriptions[0]).toMatchObject({ status: "pending", confirmationEmailSent: false });
    h.services.db.query("DELETE FROM mail_outbox").run();
    const again: any = await app.updateMonitor(late.id, { notification: { email: { recipients: ["late@example.test"] } } } as any);
    expect(again.emailRecipientSubscriptions[0]).toMatchObject({ status: "pending", confirmationEmailSent: true });
    await app.deleteMonitor(late.id);
  });

  test("notification: {} in an update changes nothing (only null removes the settings); alone it is a 400, nothing to update", async () => {
    const m: any = await app.createMonitor({ name: "Kept", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/a`] }], notification: { email: { enabled: false, recipients: ["kept@example.test"] } } } as any);
    const settings = { email: { enabled: false, recipients: ["kept@example.test"], includeDiffs: false } };
    expect(m.notification).toEqual(settings);
    const renamed = await h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { name: "Kept too", notification: {} } });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as any).data).toMatchObject({ name: "Kept too", notification: settings });
    const alone = await h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { notification: {} } });
    expect(alone.status).toBe(400);
    expect(((await app.getMonitor(m.id)) as any).notification).toEqual(settings);
    await app.deleteMonitor(m.id);
  });
});
