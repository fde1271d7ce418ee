/**
 * The SMTP client (src/mail/smtp.ts) against local relays (fake-smtp.ts): STARTTLS when offered (and required by
 * the relay), refusals typed temporary or permanent, an unreachable relay, its guards (no password without TLS, no
 * replies read from before the handshake, refused recipients left out, no endless reply); and the mail outbox's
 * hourly limit per key. Monitors' notifications through the API are in monitor-email.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { mailBody, mailHeader, startFakeSmtp } from "./fake-smtp.ts";
import { sendMail, SmtpError } from "../../src/mail/smtp.ts";

describe("the SMTP client and the mail outbox", () => {
  test("the SMTP client: STARTTLS when offered (required by the relay), refusals typed temporary or permanent, an unreachable relay", async () => {
    const relay = await startFakeSmtp({ starttls: "required", auth: { user: "u", pass: "p" } });
    try {
      await sendMail({ url: `smtp://u:p@127.0.0.1:${relay.port}?tls_verify=false`, from: "a@example.test" }, { to: ["b@example.test"], subject: "Grüße", text: "über" });
      expect(relay.received).toHaveLength(1);
      expect(relay.received[0]).toMatchObject({ tls: true, user: "u", to: ["b@example.test"] });
      expect(mailHeader(relay.received[0]!, "Subject")).toBe("Grüße");
      expect(mailBody(relay.received[0]!)).toBe("über");
      // The self-signed certificate is refused unless told otherwise; STARTTLS off meets the relay's 530.
      await expect(sendMail({ url: `smtp://u:p@127.0.0.1:${relay.port}`, from: "a@example.test", timeoutMs: 5000 }, { to: ["b@example.test"], subject: "s", text: "t" })).rejects.toThrow();
      const off = await sendMail({ url: `smtp://u:p@127.0.0.1:${relay.port}?starttls=off`, from: "a@example.test" }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect(off).toBeInstanceOf(SmtpError);
      expect([off.permanent, off.message]).toEqual([true, expect.stringContaining("530")]);
      relay.failNext([451]);
      const later = await sendMail({ url: `smtp://u:p@127.0.0.1:${relay.port}?tls_verify=false`, from: "a@example.test" }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect([later.permanent, later.message]).toEqual([false, expect.stringContaining("451")]);
    } finally {
      relay.stop();
    }
    const gone = await sendMail({ url: "smtp://127.0.0.1:1", from: "a@example.test", timeoutMs: 3000 }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
    expect(gone).toBeInstanceOf(SmtpError);
    expect(gone.permanent).toBe(false);
  });

  test("the SMTP client's guards: no password without TLS, no replies read from before the handshake, refused recipients left out, no endless reply", async () => {
    const plain = await startFakeSmtp({ auth: { user: "u", pass: "p" } });
    const tricky = await startFakeSmtp({ starttls: "offered", injectAfterStartTls: true });
    const picky = await startFakeSmtp({ refuse: ["gone@example.test"] });
    const flood = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void s.write("220-" + "x".repeat(100_000)), data: () => undefined } });
    try {
      // A relay that offers no STARTTLS (or a man in the middle who removed it) gets no password.
      const down = await sendMail({ url: `smtp://u:p@127.0.0.1:${plain.port}`, from: "a@example.test" }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect([down.permanent, down.message]).toEqual([true, expect.stringContaining("not sent unencrypted")]);
      expect(plain.received).toHaveLength(0);
      const injected = await sendMail({ url: `smtp://127.0.0.1:${tricky.port}?tls_verify=false`, from: "a@example.test" }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect(injected.message).toContain("sent data after its STARTTLS answer");
      expect(tricky.received).toHaveLength(0);
      const partly = await sendMail({ url: `smtp://127.0.0.1:${picky.port}`, from: "a@example.test" }, { to: ["gone@example.test", "here@example.test"], subject: "s", text: "t" });
      expect(partly.refused).toEqual(["gone@example.test"]);
      expect(picky.received[0]!.to).toEqual(["here@example.test"]);
      const none = await sendMail({ url: `smtp://127.0.0.1:${picky.port}`, from: "a@example.test" }, { to: ["gone@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect([none.permanent, none.message]).toEqual([true, expect.stringContaining("refused every recipient")]);
      const long = await sendMail({ url: `smtp://127.0.0.1:${flood.port}`, from: "a@example.test", timeoutMs: 5000 }, { to: ["b@example.test"], subject: "s", text: "t" }).catch((e) => e);
      expect(long.message).toContain("too long");
    } finally {
      plain.stop();
      tricky.stop();
      picky.stop();
      flood.stop(true);
    }
  });

  test("the outbox: a key's hourly limit; stop waits for the message being sent", async () => {
    const { Database } = await import("bun:sqlite");
    const { migrate } = await import("../../src/storage/database.ts");
    const { MailOutbox, MAX_MAILS_PER_KEY_PER_HOUR } = await import("../../src/mail/outbox.ts");
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    const relay = await startFakeSmtp();
    const box = new MailOutbox(db, { url: `smtp://127.0.0.1:${relay.port}`, from: "a@example.test" });
    try {
      for (let i = 0; i < MAX_MAILS_PER_KEY_PER_HOUR; i++) expect(box.enqueue("k1", ["b@example.test"], `s${i}`, "t")).toEqual(expect.any(String));
      expect(box.enqueue("k1", ["b@example.test"], "one more", "t")).toBeUndefined();
      expect(box.enqueue("k2", ["b@example.test"], "another key", "t")).toEqual(expect.any(String));
      const round = box.deliver();
      await Bun.sleep(20);
      await box.stop();
      await round;
      const sent = (db.query("SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NOT NULL").get() as { n: number }).n;
      // Stopped mid-round: what was sent is marked, the rest waits for the next start.
      expect(sent).toBe(relay.received.length);
      expect(sent).toBeLessThan(MAX_MAILS_PER_KEY_PER_HOUR + 1);
      // A monitor deleted while a delivery round is under way: its messages not yet taken by the relay are not sent.
      const box2 = new MailOutbox(db, { url: `smtp://127.0.0.1:${relay.port}`, from: "a@example.test" });
      db.query("DELETE FROM mail_outbox").run();
      for (let i = 0; i < 20; i++) box2.enqueue(`k-${i}`, ["c@example.test"], `m${i}`, "t", undefined, { monitorId: "m1", checkId: "c1" });
      const before = relay.received.length;
      // The monitor is deleted as the relay takes the round's first message.
      const push = relay.received.push.bind(relay.received);
      relay.received.push = (...mails) => (relay.received.length === before ? box2.cancelMonitor("m1") : undefined, push(...mails));
      await box2.deliver();
      expect(relay.received.length - before).toBe(1);
      expect(box2.checkStatus("c1")).toMatchObject({ emails: 20, sent: 1, pending: 0, failed: 19, lastError: "cancelled: the monitor was deleted" });
    } finally {
      relay.stop();
      db.close();
    }
  });
});
