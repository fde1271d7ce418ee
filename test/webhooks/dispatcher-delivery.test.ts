/**
 * Webhook delivery: the request sent, the order of a job's events, fairness between jobs, signatures, and nothing
 * sent twice.
 * The set-up (gates, a dispatcher over a temporary database with a manual clock) is in dispatcher-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import type { EgressGate } from "../../src/egress/index.ts";
import { createWebhookDispatcher } from "../../src/webhooks/index.ts";
import { eventRow, useDispatcherTests } from "./dispatcher-setup.ts";
import { MINUTE, tempDb } from "./helpers.ts";
const tests = useDispatcherTests();
const { env, cleanups } = tests;
let gate: EgressGate;
beforeAll(() => ({ gate } = tests));

describe("delivery", () => {
  test("POSTs the stored body with content type, custom headers, metadata and a stable webhook-id", async () => {
    const e = env();
    const id = e.enqueue({
      event: "page",
      data: [{ markdown: "hello" }],
      webhook: { url: "", headers: { Authorization: "Bearer abc", "X-Custom": "1", "webhook-id": "forged", "Content-Type": "text/plain", "Content-Length": "3", Host: "evil.example" }, metadata: { run: "7" }, events: [] },
    });
    const stored = eventRow(e.t.db, id).body!;
    await e.d.drain();
    expect(e.rx.received).toHaveLength(1);
    const r = e.rx.received[0]!;
    expect(r.method).toBe("POST");
    expect(r.body).toBe(stored);
    expect(JSON.parse(r.body)).toEqual({ success: true, type: "crawl.page", id: "job-1", webhookId: id, data: [{ markdown: "hello" }], metadata: { run: "7" } });
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.headers.get("host")).not.toBe("evil.example");
    expect(r.headers.get("authorization")).toBe("Bearer abc");
    expect(r.headers.get("x-custom")).toBe("1");
    expect(r.headers.get("webhook-id")).toBe(id); // managed headers win over caller headers
    expect(r.headers.get("webhook-timestamp")).toBe(String(Math.floor(e.clock.t / 1000)));
    expect(r.headers.get("user-agent")).toStartWith("crawlbox-webhooks/");
    // No secret configured: no signatures.
    expect(r.headers.has("x-firecrawl-signature")).toBe(false);
    expect(r.headers.has("webhook-signature")).toBe(false);
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("delivered");
    expect(row.body).toBeNull();
  });

  test("a job's started arrives first and its end last; its pages go out in order, several at once", async () => {
    const e = env();
    e.rx.fallback = { status: 200, delayMs: 100 };
    const events = ["started", ...Array<"page">(12).fill("page"), "completed"] as const;
    const ids = events.map((event, i) => e.enqueue({ event, data: event === "page" ? [{ n: i }] : [] }));
    e.d.start();
    await e.d.drain();
    const got = e.rx.received.map((r) => JSON.parse(r.body).webhookId);
    expect(got[0]).toBe(ids[0]);
    expect(got.at(-1)).toBe(ids.at(-1));
    expect([...got].sort()).toEqual([...ids].sort());
    // A receiver taking 100 ms an event: sent one at a time (as before), each page arrived at least 100 ms after the
    // one before; 4 at a time, most arrive with others. Told from the arrivals, not the total time (a loaded machine's).
    const pageArrivals = e.rx.received.slice(1, -1).map((r) => r.at);
    const together = pageArrivals.slice(1).filter((at, i) => at - pageArrivals[i]! < 60).length;
    expect(together).toBeGreaterThanOrEqual(6);
  });

  test("one job's many due retries do not starve another job's events", async () => {
    const e = env();
    // Every first attempt of job-1's 60 pages fails; their retries are all due a minute later, and slow.
    e.rx.script = Array.from({ length: 60 }, () => ({ status: 500 }));
    for (let i = 0; i < 60; i++) e.enqueue({ event: "page", data: [{ n: i }] });
    await e.d.drain();
    e.clock.advance(MINUTE);
    // Slow, and one receiver: 4 at a time (WEBHOOK_MAX_PER_DESTINATION), so sixty take ~1.5 s.
    e.rx.fallback = { status: 200, delayMs: 100 };
    const other = e.enqueue({ jobId: "job-2", event: "completed" }, "/other");
    const draining = e.d.drain();
    for (let i = 0; i < 40 && e.rx.to("/other").length === 0; i++) await Bun.sleep(25);
    // It went in the first round of deliveries, beside job-1's first retries, not after all sixty.
    expect(e.rx.to("/other").map((r) => JSON.parse(r.body).webhookId)).toEqual([other]);
    expect(e.rx.to("/hook").length).toBeLessThanOrEqual(60 + 4);
    await draining;
  });

  test("an event the receiver keeps refusing does not hold back the job's later pages; its end waits for the retry", async () => {
    const e = env();
    // By content, not arrival order: the two pages are in flight together.
    const refuseBigOnce = (() => {
      let refused = false;
      return (url: string, init: BunFetchRequestInit) =>
        !refused && JSON.parse(String(init.body)).data[0]?.n === 1 ? ((refused = true), Promise.resolve(new Response("", { status: 413 }))) : fetch(url, init);
    })();
    const d = e.dispatcher({ fetch: refuseBigOnce });
    const started = e.enqueue({ event: "started" });
    const big = e.enqueue({ event: "page", data: [{ n: 1 }] });
    const small = e.enqueue({ event: "page", data: [{ n: 2 }] });
    const end = e.enqueue({ event: "completed" });
    await d.drain();
    const got = e.rx.received.map((r) => JSON.parse(r.body).webhookId);
    expect(got).toEqual([started, small]);
    expect([eventRow(e.t.db, big).state, eventRow(e.t.db, small).state, eventRow(e.t.db, end).state]).toEqual(["pending", "delivered", "pending"]);
    // Its retry comes a minute later; the end only after it (webhooks/next-deliveries "Order").
    e.clock.advance(MINUTE);
    await d.drain();
    expect(e.rx.received.map((r) => JSON.parse(r.body).webhookId).slice(2)).toEqual([big, end]);
    expect([eventRow(e.t.db, big).state, eventRow(e.t.db, end).state]).toEqual(["delivered", "delivered"]);
  });

  test("signatures: X-Firecrawl-Signature over the raw body, Standard Webhooks over id.timestamp.body", async () => {
    for (const secret of ["plain-secret-✓", `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`]) {
      const e = env({ secret });
      e.enqueue({ event: "completed" });
      await e.d.drain();
      const r = e.rx.received[0]!;
      const hex = createHmac("sha256", secret).update(r.body).digest("hex");
      expect(r.headers.get("x-firecrawl-signature")).toBe(`sha256=${hex}`);
      const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
      const id = r.headers.get("webhook-id")!;
      const ts = r.headers.get("webhook-timestamp")!;
      const b64 = createHmac("sha256", key).update(`${id}.${ts}.${r.body}`).digest("base64");
      expect(r.headers.get("webhook-signature")).toBe(`v1,${b64}`);
      expect(Math.abs(Number(ts) - Math.floor(e.clock.t / 1000))).toBe(0);
    }
  });

  test("a whsec_ secret that is not base64 is refused at construction", () => {
    const t = tempDb();
    cleanups.push(() => t.cleanup());
    expect(() => createWebhookDispatcher({ db: t.db, secret: "whsec_not base64!", gate })).toThrow(TypeError);
    expect(() => createWebhookDispatcher({ db: t.db, secret: "", allowPrivateWebhooks: false })).toThrow("egress gate");
  });

  test("nothing is sent twice after a success", async () => {
    const e = env();
    e.enqueue();
    e.d.start();
    await e.d.drain();
    await e.d.drain();
    e.clock.advance(60 * MINUTE);
    await e.d.drain();
    const again = e.dispatcher();
    again.start();
    await again.drain();
    expect(e.rx.received).toHaveLength(1);
  });
});
