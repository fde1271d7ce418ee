/**
 * A zeroDataRetention crawl or batch keeps its pages only so that its status can return them: for 1 hour after it
 * ends (and after each read), not the 24 hours of other jobs. Completed, cancelled and failed jobs alike.
 */
import { describe, expect, test } from "bun:test";
import { JOB_TTL_MS, ZDR_JOB_TTL_MS } from "../../src/jobs/sqlite-store.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { free, page, setup } from "./store-setup.ts";

function jobOf(s: ReturnType<typeof setup>, zeroDataRetention: boolean, tasks: NewTask[]) {
  const options = { scrapeOptions: {}, ...(zeroDataRetention ? { zeroDataRetention: true } : {}) };
  return s.store.createJob({ id: crypto.randomUUID(), kind: "batch", keyId: "k", status: "scraping", url: null, options, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1000 }, tasks);
}

describe("the retention of a zeroDataRetention job", () => {
  test("completed: its pages expire an hour after it ended, and an hour after each read; other jobs' after 24 hours", () => {
    for (const zdr of [true, false]) {
      const s = setup();
      const job = jobOf(s, zdr, [page("http://a.test/1")]);
      const t = s.store.claim("w1", 1000, free)!;
      s.tick(500);
      expect(s.store.complete(t.id, "w1", { document: { markdown: "secret page", metadata: {} }, credits: 1 })).toBe(true);
      const ttl = zdr ? ZDR_JOB_TTL_MS : JOB_TTL_MS;
      expect(s.store.get(job.id)).toMatchObject({ status: "completed", expiresAt: s.now() + ttl });
      s.tick(10 * 60_000);
      expect(s.results.touch(job.id)).toBe(s.now() + ttl);
      expect(s.store.get(job.id)!.expiresAt).toBe(s.now() + ttl);
    }
  });

  test("cancelled and failed: the same hour", () => {
    const s = setup();
    const cancelled = jobOf(s, true, [page("http://a.test/1")]);
    expect(s.store.cancel(cancelled.id)).toBe(true);
    expect(s.store.get(cancelled.id)!.expiresAt).toBe(s.now() + ZDR_JOB_TTL_MS);
    const failed = jobOf(s, true, [page("http://a.test/2")]);
    s.store.failJob(failed.id, "kickoff failed");
    expect(s.store.get(failed.id)).toMatchObject({ status: "failed", expiresAt: s.now() + ZDR_JOB_TTL_MS });
    const kept = jobOf(s, false, [page("http://a.test/3")]);
    s.store.failJob(kept.id, "kickoff failed");
    expect(s.store.get(kept.id)!.expiresAt).toBe(s.now() + JOB_TTL_MS);
  });
});
