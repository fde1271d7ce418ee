/**
 * What a pending delivery waits for, as `GET /v2/webhooks/deliveries` lists it (`waitingFor`, docs/webhooks.md
 * "Inspecting deliveries"). A job's `completed`, held back until its earlier events settle, used to be listed
 * `pending` with no attempt and a `nextAttemptAt` in the past for as long as 21 minutes, as if it had been forgotten;
 * it now says it waits for earlier events, with no time. The rules are the dispatcher's own (webhooks/next-deliveries).
 */
import { describe, expect, test } from "bun:test";
import { useDispatcherTests } from "./dispatcher-setup.ts";
import { MINUTE } from "./helpers.ts";
const { env } = useDispatcherTests();

/** The listing of job-1 as `[type, status, waitingFor, nextAttemptAt]`. */
function listed(e: ReturnType<typeof env>, jobId = "job-1") {
  return e.d.deliveries(jobId, "key-1").deliveries.map((d) => [d.type, d.status, d.waitingFor, d.nextAttemptAt]);
}

describe("waitingFor", () => {
  test("an attempt in flight waits for the receiver; the events behind the job's started wait for earlier events, with no time", async () => {
    const e = env();
    e.rx.script = [{ status: 200, delayMs: 400 }];
    e.enqueue({ event: "started" });
    e.enqueue({ event: "page" });
    e.enqueue({ event: "completed" });
    const created = new Date(e.clock.t).toISOString();
    e.d.kick();
    for (let i = 0; i < 100 && e.rx.received.length === 0; i++) await Bun.sleep(10);
    expect(listed(e)).toEqual([
      ["crawl.started", "pending", "receiver", created],
      ["crawl.page", "pending", "earlier-events", null],
      ["crawl.completed", "pending", "earlier-events", null],
    ]);
    await e.d.drain();
    expect(listed(e)).toEqual([
      ["crawl.started", "delivered", null, null],
      ["crawl.page", "delivered", null, null],
      ["crawl.completed", "delivered", null, null],
    ]);
  });

  test("a failed attempt waits for its retry time; the job's completed waits for it to settle, not for a time in the past", async () => {
    const e = env();
    e.rx.script = [{ status: 500 }];
    e.enqueue({ event: "started" });
    e.enqueue({ event: "completed" });
    await e.d.drain();
    const retryAt = new Date(e.clock.t + MINUTE).toISOString();
    expect(listed(e)).toEqual([
      ["crawl.started", "pending", "retry-time", retryAt],
      ["crawl.completed", "pending", "earlier-events", null],
    ]);
    // Minutes later, still held back: it says so, not "due 20 minutes ago".
    e.clock.advance(MINUTE / 2);
    expect(listed(e)[1]).toEqual(["crawl.completed", "pending", "earlier-events", null]);
    e.clock.advance(MINUTE / 2);
    // The retry is due now and goes when a slot is free (nothing pumps here until drain).
    expect(listed(e)[0]).toEqual(["crawl.started", "pending", "slot", retryAt]);
    await e.d.drain();
    expect(listed(e).map((d) => [d[1], d[2]])).toEqual([["delivered", null], ["delivered", null]]);
  });

  test("a due event nothing holds back waits for a slot", () => {
    const e = env();
    e.enqueue({ event: "started", jobId: "job-2" });
    expect(listed(e, "job-2")).toEqual([["crawl.started", "pending", "slot", new Date(e.clock.t).toISOString()]]);
  });
});
