/**
 * A job's end (`completed`, `failed`, `cancelled`) is delivered last: never while an earlier event of the job is still
 * undelivered, whether on its first try or waiting for a retry, unless that event has failed for good
 * (webhooks/next-deliveries "Order"). A receiver that answered 500 once and then recovered used to get
 * `started, page, page, completed, page`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cleanupDispatcherEnvs, dispatcherEnv } from "./dispatcher-env.ts";
import { MINUTE } from "./helpers.ts";

afterEach(cleanupDispatcherEnvs);

/**
 * A fetch that answers 500 to the page with `data: [{n: failing}]` (its first `times` attempts) and passes everything
 * else to the receiver. By content, not arrival order: a job's pages are in flight together.
 */
function refusingPage(failing: number, times = Infinity) {
  let refused = 0;
  return (url: string, init: BunFetchRequestInit) => {
    const body = JSON.parse(String(init.body)) as { data: { n?: number }[] };
    if (body.data[0]?.n !== failing || refused++ >= times) return fetch(url, init);
    return Promise.resolve(new Response("no", { status: 500 }));
  };
}

describe("a job's end after a failed attempt", () => {
  test("waits for the earlier event's retry; the receiver gets started, the pages, the retried page, then completed", async () => {
    const e = dispatcherEnv({ fetch: refusingPage(1, 1) });
    const rx = e.receiver();
    const started = e.enqueue(rx.url, { event: "started" });
    const page1 = e.enqueue(rx.url, { event: "page", data: [{ n: 1 }] });
    const page2 = e.enqueue(rx.url, { event: "page", data: [{ n: 2 }] });
    const completed = e.enqueue(rx.url, { event: "completed" });
    await e.d.drain();
    // The later page went on; the end did not, and has not been tried.
    expect(e.calls[0]!.webhookId).toBe(started);
    expect(new Set(e.calls.map((c) => c.webhookId))).toEqual(new Set([started, page1, page2]));
    expect([e.state(page1), e.state(completed)]).toEqual([{ state: "pending", attempts: 1 }, { state: "pending", attempts: 0 }]);
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.calls.slice(3).map((c) => c.webhookId)).toEqual([page1, completed]);
    expect(rx.received.map((r) => JSON.parse(r.body).type)).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.completed"]);
    expect(e.state(completed)).toEqual({ state: "delivered", attempts: 1 });
  });

  test("goes once the earlier event has failed for good", async () => {
    const e = dispatcherEnv({ retryDelaysMs: [MINUTE], fetch: refusingPage(1) });
    const rx = e.receiver();
    const page1 = e.enqueue(rx.url, { event: "page", data: [{ n: 1 }] });
    const page2 = e.enqueue(rx.url, { event: "page", data: [{ n: 2 }] });
    const failed = e.enqueue(rx.url, { event: "failed", success: false, error: "boom" });
    await e.d.drain();
    expect(new Set(e.calls.map((c) => c.webhookId))).toEqual(new Set([page1, page2]));
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.calls.slice(2).map((c) => c.webhookId)).toEqual([page1, failed]);
    expect([e.state(page1).state, e.state(failed).state]).toEqual(["failed", "delivered"]);
  });

  test("a failed started holds the end back too, while the pages go on; other jobs are not held", async () => {
    const e = dispatcherEnv();
    const rx = e.receiver();
    rx.script = [{ status: 503 }];
    const started = e.enqueue(rx.url, { event: "started" });
    const page = e.enqueue(rx.url, { event: "page", data: [{ n: 1 }] });
    const cancelled = e.enqueue(rx.url, { event: "cancelled", success: false, error: "cancelled" });
    const other = e.enqueue(rx.url, { jobId: "job-2", event: "completed" });
    await e.d.drain();
    expect(new Set(e.calls.map((c) => c.webhookId))).toEqual(new Set([started, page, other]));
    expect(e.state(cancelled)).toEqual({ state: "pending", attempts: 0 });
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.calls.slice(-2).map((c) => c.webhookId)).toEqual([started, cancelled]);
  });

  test("a monitor check's end waits for its pages' retries as well", async () => {
    const e = dispatcherEnv({ fetch: refusingPage(7) });
    const rx = e.receiver();
    const page = e.enqueue(rx.url, { jobId: "check-1", jobKind: "monitor", event: "page", data: [{ n: 7 }] });
    const end = e.enqueue(rx.url, { jobId: "check-1", jobKind: "monitor", event: "check.completed" });
    await e.d.drain();
    expect(e.calls.map((c) => c.webhookId)).toEqual([page]);
    expect(e.state(end)).toEqual({ state: "pending", attempts: 0 });
  });
});
