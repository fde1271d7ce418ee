/**
 * Delivery slots are shared fairly (webhooks/next-deliveries "Fairness"): one destination (scheme, host and port)
 * holds at most `WEBHOOK_MAX_PER_DESTINATION` of them, a free slot goes to the key with the fewest deliveries in
 * flight, and a destination's fresh events go ahead of another's backlog and retries. Before, 8 slots were handed
 * out oldest event first: key B's receiver that never answered kept key A's events `pending`, untried, for minutes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { WEBHOOK_MAX_PER_DESTINATION } from "../../src/webhooks/index.ts";
import { cleanupDispatcherEnvs, dispatcherEnv, waitFor } from "./dispatcher-env.ts";
import { MINUTE } from "./helpers.ts";

afterEach(cleanupDispatcherEnvs);

/** A receiver answer that never comes within any test's timeout. */
const NEVER = { status: 200, delayMs: 60_000 };

describe("fair delivery", () => {
  test("a receiver that never answers holds at most its share of the slots; another key's events go at once, in order", async () => {
    const e = dispatcherEnv({ timeoutMs: 2_000 });
    const dead = e.receiver(NEVER);
    const healthy = e.receiver();
    for (let j = 0; j < 12; j++) {
      for (const event of ["started", "page"] as const) e.enqueue(dead.url, { jobId: `b-${j}`, keyId: "key-b", jobKind: "batch_scrape", event, data: [] });
    }
    const a = ["started", "page", "completed"].map((event) => e.enqueue(healthy.url, { jobId: "a-1", keyId: "key-a", event: event as "page" }));
    e.d.start();
    // All three of key A's events are delivered long before the dead receiver's first timeout (2 s).
    expect(await waitFor(() => healthy.received.length === 3, 1_500)).toBe(true);
    expect(healthy.received.map((r) => JSON.parse(r.body).webhookId)).toEqual(a);
    expect(a.map((id) => e.state(id).state)).toEqual(["delivered", "delivered", "delivered"]);
    expect(e.calls.filter((c) => c.url.startsWith(dead.url))).toHaveLength(WEBHOOK_MAX_PER_DESTINATION);
  });

  test("a healthy destination's fresh event goes ahead of another destination's due retries (12 jobs, so no job limit helps)", async () => {
    const e = dispatcherEnv();
    const flaky = e.receiver();
    const healthy = e.receiver();
    flaky.script = Array.from({ length: 12 }, () => ({ status: 500 }));
    for (let j = 0; j < 12; j++) e.enqueue(flaky.url, { jobId: `b-${j}`, keyId: "key-b", event: "page", data: [{ n: j }] });
    await e.d.drain();
    e.clock.advance(MINUTE); // all twelve retries are due
    flaky.fallback = { status: 200, delayMs: 300 };
    const fresh = e.enqueue(healthy.url, { jobId: "a-1", keyId: "key-b", event: "completed" });
    const before = e.calls.length;
    const draining = e.d.drain();
    expect(await waitFor(() => healthy.received.length === 1, 250)).toBe(true);
    const wave = e.calls.slice(before);
    expect(wave.map((c) => c.webhookId)).toContain(fresh);
    expect(wave.filter((c) => c.url.startsWith(flaky.url)).length).toBeLessThanOrEqual(WEBHOOK_MAX_PER_DESTINATION);
    await draining;
    expect(e.calls.slice(before).filter((c) => c.url.startsWith(flaky.url))).toHaveLength(12);
  });

  test("when one key's dead receivers hold every slot, the first slot that frees goes to another key, not to the backlog", async () => {
    const e = dispatcherEnv({ timeoutMs: 400 });
    const dead1 = e.receiver(NEVER);
    const dead2 = e.receiver(NEVER);
    for (let j = 0; j < 12; j++) e.enqueue(j % 2 ? dead1.url : dead2.url, { jobId: `b-${j}`, keyId: "key-b", event: "started" });
    e.d.start();
    expect(await waitFor(() => e.calls.length === 8, 500)).toBe(true);
    const healthy = e.receiver();
    const a = e.enqueue(healthy.url, { jobId: "a-1", keyId: "key-a", event: "started" });
    e.d.kick();
    expect(await waitFor(() => healthy.received.length === 1, 1_500)).toBe(true);
    // The ninth request started was key A's, although key B's four other events were older.
    expect(e.calls[8]!.webhookId).toBe(a);
  });

  test("destinations are scheme, host and port: paths and query strings of one receiver share its share", async () => {
    const e = dispatcherEnv({ timeoutMs: 2_000 });
    const dead = e.receiver(NEVER);
    for (let j = 0; j < 12; j++) e.enqueue(`${dead.url}/hook/${j}?job=${j}`, { jobId: `b-${j}`, keyId: "key-b", event: "started" });
    for (let j = 0; j < 4; j++) e.enqueue(`${dead.url.toUpperCase()}?job=q${j}`, { jobId: `q-${j}`, keyId: "key-b", event: "started" });
    e.d.start();
    await waitFor(() => e.calls.length > WEBHOOK_MAX_PER_DESTINATION, 300);
    expect(e.calls).toHaveLength(WEBHOOK_MAX_PER_DESTINATION);
  });
});
