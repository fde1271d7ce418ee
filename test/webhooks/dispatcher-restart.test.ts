/**
 * Webhook delivery across a restart (the persisted schedule, a delivery in flight, stop()) and through the egress
 * gate (refusals and their hints, private webhooks sent directly).
 * The set-up (gates, a dispatcher over a temporary database with a manual clock) is in dispatcher-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { EgressGate } from "../../src/egress/index.ts";
import { immediate } from "../../src/storage/database.ts";
import { createWebhookDispatcher, enqueueWebhookEvent } from "../../src/webhooks/index.ts";
import { eventRow, useDispatcherTests } from "./dispatcher-setup.ts";
import { eventInput, MINUTE } from "./helpers.ts";
const tests = useDispatcherTests();
const { env, cleanups } = tests;
let gate: EgressGate;
let denyGate: EgressGate;
beforeAll(() => ({ gate, denyGate } = tests));

describe("restart", () => {
  test("a new dispatcher on the same file continues the persisted schedule", async () => {
    const e = env();
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "completed" });
    await e.d.drain();
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.received).toHaveLength(2); // next attempt due 5 minutes after the second failure
    await e.d.stop();

    // "Restart": a fresh connection and dispatcher, some time later.
    const db = e.t.reopen();
    e.clock.advance(4 * MINUTE);
    const d2 = createWebhookDispatcher({ db, secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received).toHaveLength(2); // neither lost nor repeated
    e.clock.advance(MINUTE);
    await d2.drain();
    expect(e.rx.received).toHaveLength(3);
    expect(eventRow(db, id)).toMatchObject({ failures: 3, next_attempt_at: e.clock.t + 15 * MINUTE });
    e.rx.fallback = { status: 204 };
    e.clock.advance(15 * MINUTE);
    await d2.drain();
    expect(eventRow(db, id).state).toBe("delivered");
    expect(new Set(e.rx.received.map((r) => r.headers.get("webhook-id")))).toEqual(new Set([id]));
  });

  test("a delivery in flight when the process died is re-sent after restart with the same webhook-id", async () => {
    const e = env();
    // The first process never hears back (it "dies" mid-request): its fetch never settles.
    const hung = e.dispatcher({ fetch: () => new Promise<Response>(() => {}) });
    const id = e.enqueue();
    hung.kick();
    await Bun.sleep(20);
    const unfinished = e.t.db.query("SELECT COUNT(*) AS n FROM webhook_attempts WHERE finished_at IS NULL").get() as { n: number };
    expect(unfinished.n).toBe(1);

    const db = e.t.reopen();
    const d2 = createWebhookDispatcher({ db, secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received.map((r) => r.headers.get("webhook-id"))).toEqual([id]);
    expect(JSON.parse(e.rx.received[0]!.body).webhookId).toBe(id);
    const attempts = d2.deliveries("job-1", "key-1").deliveries[0]!.attempts;
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.error?.startsWith("interrupted") ?? null])).toEqual([
      [1, null, true],
      [2, 200, null],
    ]);
  });

  test("quiesce() lets the delivery in flight finish and records it, starts no other, and the restart sends only those", async () => {
    const e = env();
    e.rx.script = [{ status: 200, delayMs: 300 }];
    const first = e.enqueue({ event: "started", jobId: "job-1" });
    e.d.kick();
    for (let i = 0; i < 100 && e.rx.received.length === 0; i++) await Bun.sleep(5);
    expect(e.d.inFlight).toBe(1);
    let quiesced = false;
    const quiescing = e.d.quiesce().then(() => (quiesced = true));
    // Due now, another job's (no order holds it back): not started while stopping, by a kick or the poll.
    const later = e.enqueue({ event: "started", jobId: "job-2" });
    e.d.kick();
    await Bun.sleep(50);
    expect(quiesced).toBe(false);
    await quiescing;
    expect(e.d.inFlight).toBe(0);
    expect(eventRow(e.t.db, first)).toMatchObject({ state: "delivered", failures: 0 });
    expect(eventRow(e.t.db, later)).toMatchObject({ state: "pending", failures: 0 });
    await e.d.stop();
    expect(e.rx.received.map((r) => r.headers.get("webhook-id"))).toEqual([first]);

    const d2 = createWebhookDispatcher({ db: e.t.reopen(), secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received.map((r) => r.headers.get("webhook-id"))).toEqual([first, later]); // each once
  });

  test("a delivery still in flight when stop() follows quiesce() (the grace's end) is interrupted and sent again after the restart", async () => {
    const e = env();
    e.rx.script = [{ status: 200, delayMs: 2000 }];
    const id = e.enqueue();
    e.d.kick();
    for (let i = 0; i < 100 && e.rx.received.length === 0; i++) await Bun.sleep(5);
    const quiescing = e.d.quiesce();
    await Bun.sleep(20);
    await e.d.stop();
    await quiescing;
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 0 });
    const d2 = createWebhookDispatcher({ db: e.t.reopen(), secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received.map((r) => r.headers.get("webhook-id"))).toEqual([id, id]);
    expect(eventRow(e.t.db, id).state).toBe("delivered");
  });

  test("stop() aborts in-flight requests without counting a failure", async () => {
    const e = env();
    e.rx.script = [{ status: 200, delayMs: 2000 }];
    const id = e.enqueue();
    e.d.kick();
    await Bun.sleep(100);
    await e.d.stop();
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 0 });
  });
});

describe("egress", () => {
  /**
   * Delivers one event that the gate refuses; asserts it failed at once with a hint naming the webhook setting,
   * not the one that opens private networks to every scrape. Returns its row.
   */
  async function refusedOnce(e: ReturnType<typeof env>) {
    const id = e.enqueue();
    await e.d.drain();
    expect(e.rx.received).toHaveLength(0);
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("failed");
    expect(row.last_error).toStartWith("egress refused:");
    expect(row.last_error).toContain("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS=true");
    expect(row.last_error).not.toContain("CRAWLBOX_ALLOW_PRIVATE_NETWORK");
    return row;
  }

  test("a loopback target is refused by the gate when private webhooks are not allowed, and failed at once", async () => {
    const row = await refusedOnce(env({ gate: denyGate }));
    expect(row.next_attempt_at).toBeNull();
    expect(row.last_error).toContain("loopback");
  });

  test("a refusal by the gate's proxy (message from its marker header) names the webhook setting too", async () => {
    await refusedOnce(env({ gate: { check: async () => {}, proxyUrl: denyGate.proxyUrl } }));
  });

  test("a refusal for another reason (a blocked port) keeps the gate's message, without the hint", async () => {
    const e = env({ gate: denyGate });
    const id = immediate(e.t.db, () => enqueueWebhookEvent(e.t.db, eventInput("http://127.0.0.1:25/hook"), { now: e.clock.t }))!;
    await e.d.drain();
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("failed");
    expect(row.last_error).toContain("port 25 is not allowed");
    expect(row.last_error).not.toContain("CRAWLBOX_ALLOW_PRIVATE");
  });

  test("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS sends directly, without the gate", async () => {
    const e = env({ gate: undefined, allowPrivateWebhooks: true });
    e.enqueue();
    await e.d.drain();
    expect(e.rx.received).toHaveLength(1);
  });

  test("the gate's proxy is used for the request", async () => {
    const seen: unknown[] = [];
    const e = env({
      fetch: (url, init) => {
        seen.push(init.proxy);
        return fetch(url, init);
      },
    });
    e.enqueue();
    await e.d.drain();
    expect(seen).toEqual([gate.proxyUrl]);
    expect(e.rx.received).toHaveLength(1);
  });
});
