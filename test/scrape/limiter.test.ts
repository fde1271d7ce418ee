/**
 * The scrape limiter (scrape/limiter.ts): at most `max` at once, the rest wait in order and give up at their
 * deadline with 408 CONCURRENCY_QUEUE_TIMEOUT; each key's running and waiting work is counted for its reports,
 * and forgotten once it has none.
 */
import { describe, expect, test } from "bun:test";
import { ConcurrencyLimiter, ConcurrencyQueueTimeoutError } from "../../src/scrape/limiter.ts";

/** A promise and its resolver, to hold work open. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { open, done };
}

describe("ConcurrencyLimiter", () => {
  test("runs at most max at once; per-key running and waiting counts; a timed-out waiter is no longer counted", async () => {
    const limiter = new ConcurrencyLimiter(2);
    const a = gate();
    const b = gate();
    const first = limiter.run(1000, () => a.done, "k1");
    const second = limiter.run(1000, () => b.done, "k2");
    let thirdRan = false;
    const third = limiter.run(1000, async (queuedMs) => {
      thirdRan = true;
      expect(queuedMs).toBeGreaterThanOrEqual(0);
    }, "k1");
    expect(limiter.running).toBe(2);
    expect(limiter.usage("k1")).toEqual({ running: 1, waiting: 1 });
    expect(limiter.usage("k2")).toEqual({ running: 1, waiting: 0 });
    const late = limiter.run(20, async () => {}, "k3").catch((e) => e);
    expect(limiter.usage("k3")).toEqual({ running: 0, waiting: 1 });
    expect(await late).toBeInstanceOf(ConcurrencyQueueTimeoutError);
    expect(limiter.usage("k3")).toEqual({ running: 0, waiting: 0 });

    a.open();
    await first;
    await third;
    expect(thirdRan).toBe(true);
    expect(limiter.usage("k1")).toEqual({ running: 0, waiting: 0 });
    b.open();
    await second;
    expect(limiter.running).toBe(0);
    expect(limiter.usage("k2")).toEqual({ running: 0, waiting: 0 });
  });

  test("work without a key is limited but counted for no key", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const g = gate();
    const held = limiter.run(1000, () => g.done);
    expect(limiter.running).toBe(1);
    expect(limiter.usage("anyone")).toEqual({ running: 0, waiting: 0 });
    g.open();
    await held;
  });
});
