/**
 * A host given up (jobs/host-give-up.ts) has its queued pages failed a chunk per transaction (the event-loop side
 * is host-give-up-stall.test.ts): the pages failed are still exactly those queued at the decision, with the same
 * error, counts and events as the one transaction that failed them all, and none of them is handed out after it.
 */
import { describe, expect, test } from "bun:test";
import { GIVE_UP_CHUNK_TASKS } from "../../src/jobs/host-give-up.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

describe("the same pages as one transaction failed", () => {
  const deadPage = (i: number): NewTask => page(`http://dead.test/${i}`);

  test("the decision fails a chunk and hands none of the host's pages out; the rest fail a chunk per call, with the decision's error; pages not queued at the decision are left", () => {
    const s = setup();
    const n = GIVE_UP_CHUNK_TASKS * 2 + 500;
    const job = newJob(s, [page("http://ok.test/1")]);
    s.store.enqueue(job.id, Array.from({ length: n }, (_, i) => deadPage(i)), Number.MAX_SAFE_INTEGER);
    s.store.claim("w", 60_000, free); // ok.test/1
    const running = s.store.claim("w", 60_000, free)!; // dead.test/0, running at the decision
    expect(running.url).toBe("http://dead.test/0");
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 2)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 2)).toBe(GIVE_UP_CHUNK_TASKS);

    // After the decision: a page found later, and the running page requeued for another try, were not queued then.
    s.store.enqueue(job.id, [deadPage(n)], Number.MAX_SAFE_INTEGER);
    expect(s.store.retry(running.id, "w", s.now())).toBe(true);
    // None of the host's pages is handed out while its queue is failed.
    expect(s.store.claim("w", 60_000, free)).toBeUndefined();

    expect(s.store.continueGiveUps()).toBe(GIVE_UP_CHUNK_TASKS);
    expect(s.store.claim("w", 60_000, free)).toBeUndefined();
    expect(s.store.continueGiveUps()).toBe(n - 1 - 2 * GIVE_UP_CHUNK_TASKS);
    expect(s.store.continueGiveUps()).toBe(0);

    const errors = s.results.errors(job.id).errors;
    expect(errors).toHaveLength(n - 1);
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["SCRAPE_HOST_GAVE_UP"]));
    expect(new Set(errors.map((e) => e.error))).toEqual(new Set(["Gave up on dead.test after 2 attempts in a row it did not answer (connection errors or timeouts)."]));
    expect(errors.map((e) => e.url)).toEqual(Array.from({ length: n - 1 }, (_, i) => `http://dead.test/${i + 1}`));
    expect(s.store.get(job.id)).toMatchObject({ status: "scraping", total: n + 2, completed: n - 1 });
    // Each failed page announced as it failed, as before.
    expect(s.events.filter((e) => e.event === "page" && !e.success)).toHaveLength(n - 1);
    // The two pages that were not queued at the decision run now.
    const next = [s.store.claim("w", 60_000, free)?.url, s.store.claim("w", 60_000, free)?.url].sort();
    expect(next).toEqual(["http://dead.test/0", `http://dead.test/${n}`]);
  });

  test("an attempt that fails during a give-up decides again, as each did: the pages queued since fail after the first decision's, with their own count of attempts", () => {
    const s = setup();
    const n = GIVE_UP_CHUNK_TASKS + 200;
    const job = newJob(s, [deadPage(0)]);
    s.store.enqueue(job.id, Array.from({ length: n - 1 }, (_, i) => deadPage(i + 1)), Number.MAX_SAFE_INTEGER);
    const running = s.store.claim("w", 60_000, free)!;
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 1)).toBe(GIVE_UP_CHUNK_TASKS);
    // The running page fails its attempt and is tried again later, and a page is found: queued after the decision.
    expect(s.store.retry(running.id, "w", s.now())).toBe(true);
    s.store.enqueue(job.id, [deadPage(n)], Number.MAX_SAFE_INTEGER);
    // That attempt decides again: nothing fails now, the first decision's pages come first.
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 1)).toBe(0);
    expect(s.store.claim("w", 60_000, free)).toBeUndefined();
    expect(s.store.continueGiveUps()).toBe(n - 1 - GIVE_UP_CHUNK_TASKS);
    expect(s.store.continueGiveUps()).toBe(2);
    expect(s.store.continueGiveUps()).toBe(0);
    const errors = s.results.errors(job.id).errors;
    const byMessage = (attempts: number) => errors.filter((e) => e.error.startsWith(`Gave up on dead.test after ${attempts} attempts`)).map((e) => e.url);
    expect(byMessage(1)).toEqual(Array.from({ length: n - 1 }, (_, i) => `http://dead.test/${i + 1}`));
    expect(byMessage(2)).toEqual(["http://dead.test/0", `http://dead.test/${n}`]);
    expect(s.store.get(job.id)).toMatchObject({ status: "completed", total: n + 1, completed: n + 1 });
  });

  test("a cancel during a give-up ends it: the rest is set aside as cancelled, not failed", () => {
    const s = setup();
    const n = GIVE_UP_CHUNK_TASKS * 3;
    const job = newJob(s, [deadPage(0)]);
    s.store.enqueue(job.id, Array.from({ length: n - 1 }, (_, i) => deadPage(i + 1)), Number.MAX_SAFE_INTEGER);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 1)).toBe(GIVE_UP_CHUNK_TASKS);
    expect(s.store.cancel(job.id)).toBe(true);
    while (s.store.sweepEnded(job.id) > 0);
    expect(s.store.continueGiveUps()).toBe(0);
    expect(s.db.query("SELECT status, COUNT(*) AS n FROM tasks WHERE job_id = ? GROUP BY status ORDER BY status").all(job.id)).toEqual([
      { status: "cancelled", n: n - GIVE_UP_CHUNK_TASKS },
      { status: "failed", n: GIVE_UP_CHUNK_TASKS },
    ]);
  });

  test("a give-up finished a chunk per call completes the job with its last chunk, as one transaction did", () => {
    const s = setup();
    const n = GIVE_UP_CHUNK_TASKS + 10;
    const job = newJob(s, [deadPage(0)]);
    s.store.enqueue(job.id, Array.from({ length: n - 1 }, (_, i) => deadPage(i + 1)), Number.MAX_SAFE_INTEGER);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 1)).toBe(GIVE_UP_CHUNK_TASKS);
    expect(s.store.get(job.id)!.status).toBe("scraping");
    expect(s.store.continueGiveUps()).toBe(10);
    expect(s.store.get(job.id)).toMatchObject({ status: "completed", total: n, completed: n });
    expect(s.events.at(-1)).toMatchObject({ event: "completed" });
  });
});
