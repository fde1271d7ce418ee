/**
 * A host given up (jobs/host-give-up.ts) has its queued pages failed a chunk per transaction, with the event loop
 * free between: 100,000 queued pages of a batch on one site that stopped answering held every other request ~1.7 s
 * in the one transaction that decided. Every page still ends failed, counted, with the give-up's error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NewTask } from "../../src/jobs/types.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { withLagProbe } from "../helpers/lag-probe.ts";

/** Queued pages of the host that stops answering: one transaction over them took ~1.7 s (1 s on a fast machine). */
const DEAD_HOST_PAGES = 100_000;
/**
 * Longest event-loop gap allowed while they fail. A chunk is ~25 ms on a quiet machine; the bound leaves room for a
 * loaded 2-core CI machine (other processes scheduled, a GC: up to ~200 ms measured) and stays below the one pass.
 */
const MAX_GAP_MS = 400;

describe("a host given up with a large queue", () => {
  let h: Harness;
  let site: ReturnType<typeof Bun.serve>;
  let release: () => void = () => {};

  beforeAll(async () => {
    // The batch's own page answers once released, so the batch runs on while the test queues the dead host's pages.
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return new Response("<html><body><main><p>a page</p></main></body></html>", { headers: { "content-type": "text/html" } });
      },
    });
    h = await createHarness({ allowPrivateNetwork: true, retryBaseDelayMs: 10 });
  });
  afterAll(async () => {
    release();
    await h.close();
    site.stop(true);
  });

  const count = (sql: string, ...args: string[]) => (h.services.db.query(sql).get(...args) as { n: number }).n;

  test("100,000 queued pages of a host that refuses connections fail with SCRAPE_HOST_GAVE_UP without holding the event loop 400 ms at a time; counts right", async () => {
    const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`http://127.0.0.1:${site.port}/own`] } });
    const { id } = (await res.json()) as { id: string };
    const running = () => count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = 'active'", id);
    for (let i = 0; i < 500 && running() === 0; i++) await Bun.sleep(10);
    expect(running()).toBe(1);
    // A port nothing listens on: every attempt is a refused connection, which counts towards giving the host up.
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const dead = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const urls = Array.from({ length: DEAD_HOST_PAGES }, (_, i) => `${dead}/p/${i}`);
    const tasks: NewTask[] = urls.map((url, i) => ({ kind: "page", url, dedupKey: `d#${i}`, depth: 0 }));
    // Queued in one transaction (the set-up, not measured: the pool runs once the test awaits).
    expect(h.services.jobStore.enqueue(id, tasks, Number.MAX_SAFE_INTEGER)).toBe(DEAD_HOST_PAGES);
    Bun.gc(true);

    const left = () => count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status IN ('queued', 'active') AND url LIKE ?", id, `${dead}/%`);
    const { maxGapMs } = await withLagProbe(async () => {
      for (let i = 0; i < 3000 && left() > 0; i++) await Bun.sleep(20);
    });

    release();
    for (let i = 0; i < 500 && h.services.jobStore.get(id)!.status === "scraping"; i++) await Bun.sleep(10);
    const status = (await (await h.request(`/v2/batch/scrape/${id}`)).json()) as any;
    expect(status).toMatchObject({ status: "completed", total: DEAD_HOST_PAGES + 1, completed: DEAD_HOST_PAGES + 1, creditsUsed: 1 });
    const errors = ((await (await h.request(`/v2/batch/scrape/${id}/errors`)).json()) as { errors: { url: string; code: string; error: string }[] }).errors;
    expect(errors).toHaveLength(DEAD_HOST_PAGES);
    expect(new Set(errors.map((e) => e.url))).toEqual(new Set(urls));
    // Given up, but for the few pages that ran out of their own attempts first (refused each time).
    const gaveUp = errors.filter((e) => e.code === "SCRAPE_HOST_GAVE_UP");
    expect(gaveUp.length).toBeGreaterThan(DEAD_HOST_PAGES - 50);
    expect(gaveUp[0]!.error).toMatch(/^Gave up on 127\.0\.0\.1:\d+ after \d+ attempts in a row it did not answer/);
    expect(maxGapMs).toBeLessThan(MAX_GAP_MS);
  }, 120_000);
});

