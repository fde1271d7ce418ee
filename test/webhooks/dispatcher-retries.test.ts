/**
 * Webhook retries: delays with jitter and Retry-After, the 1/5/15-minute schedule, what a failed event keeps, and
 * what counts as a failure (a redirect, no answer in time, nobody listening).
 * The set-up (gates, a dispatcher over a temporary database with a manual clock) is in dispatcher-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { EgressGate } from "../../src/egress/index.ts";
import { immediate } from "../../src/storage/database.ts";
import { enqueueWebhookEvent } from "../../src/webhooks/index.ts";
import { eventRow, useDispatcherTests } from "./dispatcher-setup.ts";
import { eventInput, MINUTE, startReceiver } from "./helpers.ts";
const tests = useDispatcherTests();
const { env, cleanups } = tests;
let gate: EgressGate;
let denyGate: EgressGate;
beforeAll(() => ({ gate, denyGate } = tests));

describe("retries", () => {
  test("retry delays vary by ±10 % (jitter), and a 429/503 with Retry-After waits at least that long, capped at an hour", async () => {
    for (const [r, expected] of [[0, 0.9 * MINUTE], [0.999999, 1.1 * MINUTE]] as const) {
      const e = env({ random: () => r });
      e.rx.fallback = { status: 500 };
      const id = e.enqueue({ event: "completed" });
      await e.d.drain();
      expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBeCloseTo(expected, -1);
    }
    const e = env();
    e.rx.script.push({ status: 429, headers: { "retry-after": "600" } }, { status: 503, headers: { "retry-after": "86400" } }, { status: 429, headers: { "retry-after": "5" } });
    const id = e.enqueue({ event: "completed" });
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(10 * MINUTE); // asked for 10 min, scheduled 1
    e.clock.advance(10 * MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(60 * MINUTE); // asked for a day: capped
    e.clock.advance(60 * MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(15 * MINUTE); // asked for 5 s: the schedule wins
  });

  test("1, 5 and 15 minutes after each failure, then failed; same webhook-id and bytes every time", async () => {
    const e = env({ secret: "s" });
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "completed" });
    const sent = () => e.rx.received.length;
    await e.d.drain();
    expect(sent()).toBe(1);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, next_attempt_at: e.clock.t + MINUTE, last_error: "HTTP 500" });

    for (const [i, delay] of [MINUTE, 5 * MINUTE, 15 * MINUTE].entries()) {
      e.clock.advance(delay - 1);
      await e.d.drain();
      expect(sent()).toBe(i + 1); // not yet
      e.clock.advance(1);
      await e.d.drain();
      expect(sent()).toBe(i + 2);
    }
    const row = eventRow(e.t.db, id);
    expect(row).toMatchObject({ state: "failed", failures: 4, next_attempt_at: null, last_error: "HTTP 500" });
    e.clock.advance(24 * 60 * MINUTE);
    await e.d.drain();
    expect(sent()).toBe(4);

    const bodies = new Set(e.rx.received.map((r) => r.body));
    const ids = new Set(e.rx.received.map((r) => r.headers.get("webhook-id")));
    expect(bodies.size).toBe(1);
    expect([...ids]).toEqual([id]);
    // The timestamp (and so the Standard Webhooks signature) is fresh on every attempt.
    expect(new Set(e.rx.received.map((r) => r.headers.get("webhook-timestamp"))).size).toBe(4);

    const [delivery] = e.d.deliveries("job-1", "key-1").deliveries;
    expect(delivery!.status).toBe("failed");
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, "HTTP 500"], [2, 500, "HTTP 500"], [3, 500, "HTTP 500"], [4, 500, "HTTP 500"],
    ]);
  });

  test("an event marked failed drops its body (a page's documents), as a delivered one does; its record and attempts stay", async () => {
    // Retries used up (one retry here) and an egress refusal (failed at once) both end in 'failed'.
    const e = env({ retryDelaysMs: [MINUTE] });
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "page", data: [{ markdown: "private page text" }] });
    await e.d.drain();
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1 });
    expect(eventRow(e.t.db, id).body).toContain("private page text"); // still needed for the retry
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.received).toHaveLength(2);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "failed", failures: 2, body: null, last_error: "HTTP 500" });
    const [delivery] = e.d.deliveries("job-1", "key-1").deliveries;
    expect(delivery).toMatchObject({ webhookId: id, status: "failed", lastError: "HTTP 500" });
    expect(delivery!.attempts).toHaveLength(2);

    const refused = env({ gate: denyGate });
    const refusedId = refused.enqueue({ event: "page", data: [{ markdown: "private page text" }] });
    await refused.d.drain();
    expect(eventRow(refused.t.db, refusedId)).toMatchObject({ state: "failed", body: null });
  });

  test("a started event waits for nothing but goes first; once it failed, the job's later events go on, and its retry delivers", async () => {
    const e = env();
    e.rx.script = [{ status: 503 }];
    const first = e.enqueue({ event: "started" });
    const second = e.enqueue({ event: "page", data: [{ n: 1 }] });
    const other = e.enqueue({ jobId: "job-2", event: "started" }, "/other");
    await e.d.drain();
    // job-1's page went after its started had been answered (with a failure); job-2 is not affected.
    expect(e.rx.to("/hook").map((r) => JSON.parse(r.body).webhookId)).toEqual([first, second]);
    expect(e.rx.to("/other").map((r) => JSON.parse(r.body).webhookId)).toEqual([other]);
    expect([eventRow(e.t.db, first).state, eventRow(e.t.db, second).state]).toEqual(["pending", "delivered"]);
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.to("/hook").map((r) => JSON.parse(r.body).webhookId)).toEqual([first, second, first]);
    expect(eventRow(e.t.db, first).state).toBe("delivered");
  });

  test("redirects are not followed: a 3xx is a failure", async () => {
    const e = env();
    e.rx.script = [{ status: 302, headers: { location: "/elsewhere" } }];
    const id = e.enqueue();
    await e.d.drain();
    expect(e.rx.received.map((r) => r.path)).toEqual(["/hook"]);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, last_error: "redirect not followed (HTTP 302 to /elsewhere)" });
    const attempt = e.d.deliveries("job-1", "key-1").deliveries[0]!.attempts[0]!;
    expect(attempt.statusCode).toBe(302);
  });

  test("no answer within the timeout is a failure (10 s by default; shortened here)", async () => {
    const e = env({ timeoutMs: 200 });
    e.rx.script = [{ status: 200, delayMs: 1500 }];
    const id = e.enqueue();
    const t0 = performance.now();
    await e.d.drain();
    expect(performance.now() - t0).toBeLessThan(1200);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, last_error: "timed out after 200 ms", next_attempt_at: e.clock.t + MINUTE });
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).state).toBe("delivered");
  });

  test("a network error (nobody listening) is retried", async () => {
    const e = env();
    const dead = startReceiver();
    const url = dead.url + "/gone";
    dead.stop();
    const id = immediate(e.t.db, () => enqueueWebhookEvent(e.t.db, eventInput(url), { now: e.clock.t }))!;
    await e.d.drain();
    const row = eventRow(e.t.db, id);
    expect(row).toMatchObject({ state: "pending", failures: 1, next_attempt_at: e.clock.t + MINUTE });
    // In a webhook's words: the gate's message says what failed; its scrape code (SCRAPE_SITE_ERROR) is left out.
    expect(row.last_error).toBe(`Could not connect to ${new URL(url).host} (ECONNREFUSED).`);
    expect(e.d.deliveries("job-1", "key-1").deliveries[0]!.attempts[0]!.error).toBe(row.last_error);
  });
});
