/**
 * The job store's queue: limits and dedup keys, busy hosts, retries, cancel, idempotency keys, appending to a
 * batch, result pages, per-host give-up, the query plans of status polls, and changeTracking's page identity.
 */
import { describe, expect, test } from "bun:test";
import { IdempotencyConflictError } from "../../src/jobs/sqlite-store.ts";
import { LAST_PAGE_SQL, RESULT_PAGE_SQL } from "../../src/jobs/results.ts";
import { attemptSaysHostDown, WorkerPool } from "../../src/jobs/worker-pool.ts";
import { type CrawlboxError, ScrapeTimeoutError, SiteError, UnsupportedFileError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

describe("SqliteJobStore", () => {
  test("limit and dedup keys bound what a crawl enqueues", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/", "a.test/")], "crawl");
    const t = s.store.claim("w", 1000, free)!;
    const discovered = [page("http://a.test/x", "a.test/x"), page("http://www.a.test/x", "a.test/x"), page("http://a.test/y", "a.test/y"), page("http://a.test/z", "a.test/z")];
    s.store.complete(t.id, "w", { document: { metadata: {} }, credits: 1, discovered, limit: 3 });
    expect(s.store.get(job.id)!.total).toBe(3);
    expect(s.store.enqueue(job.id, [page("http://a.test/w", "a.test/w")], 3)).toBe(0);
  });

  test("claim skips busy hosts, busy jobs and paced job-hosts", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://b.test/1")]);
    expect(s.store.claim("w", 1000, { busyHosts: ["a.test"], busyJobs: [], busyJobHosts: [] })!.host).toBe("b.test");
    expect(s.store.claim("w", 1000, { busyHosts: [], busyJobs: [job.id], busyJobHosts: [] })).toBeUndefined();
    expect(s.store.claim("w", 1000, { busyHosts: [], busyJobs: [], busyJobHosts: [`${job.id} a.test`] })).toBeUndefined();
    expect(s.store.claim("w", 1000, free)!.host).toBe("a.test");
  });

  test("retry puts a task back until its not-before time", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")]);
    const t = s.store.claim("w", 1000, free)!;
    s.store.retry(t.id, "w", s.now() + 5000);
    expect(s.store.claim("w", 1000, free)).toBeUndefined();
    s.tick(5000);
    expect(s.store.claim("w", 1000, free)!.attempts).toBe(2);
  });

  test("cancel drops queued tasks, discards running results and announces it", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2")]);
    const t = s.store.claim("w", 1000, free)!;
    expect(s.store.cancel(job.id)).toBe(true);
    expect(s.store.complete(t.id, "w", { document: {}, credits: 1 })).toBe(false);
    expect(s.store.get(job.id)!.status).toBe("cancelled");
    expect(s.store.claim("w", 1000, free)).toBeUndefined();
    expect(s.events.at(-1)!.event).toBe("cancelled");
    expect(s.store.cancel(job.id)).toBe(false);
  });

  test("an idempotency key can be used once per key", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")], "crawl", "idem-1");
    expect(() => newJob(s, [page("http://a.test/1")], "crawl", "idem-1")).toThrow(IdempotencyConflictError);
  });

  test("an empty batch completes at once; appending reopens a completed batch", () => {
    const s = setup();
    const job = newJob(s, []);
    expect(s.store.get(job.id)!.status).toBe("completed");
    s.store.reopenAndEnqueue(job.id, [page("http://a.test/1")]);
    expect(s.store.get(job.id)!).toMatchObject({ status: "scraping", total: 1 });
  });

  test("result pages respect skip/limit and the 10 MiB budget; failed pages are consumed without data", () => {
    const s = setup();
    const job = newJob(s, Array.from({ length: 5 }, (_, i) => page(`http://a.test/${i}`)));
    const big = "x".repeat(4 * 1024 * 1024);
    for (let i = 0; i < 5; i++) {
      const t = s.store.claim("w", 1000, free)!;
      if (i === 1) s.store.fail(t.id, "w", { code: "SCRAPE_TIMEOUT", status: 408, message: "slow" });
      else s.store.complete(t.id, "w", { document: { markdown: big, n: i }, credits: 1 });
    }
    const p1 = s.results.page(job.id, 0);
    expect(p1.data.map((d) => d.n)).toEqual([0, 2]);
    expect(p1.consumed).toBe(3);
    const p2 = s.results.page(job.id, p1.consumed);
    expect(p2.data.map((d) => d.n)).toEqual([3, 4]);
    expect(s.results.page(job.id, 0, 1).data.length).toBe(1);
    expect(s.results.errors(job.id).errors).toEqual([
      expect.objectContaining({ url: "http://a.test/1", code: "SCRAPE_TIMEOUT", error: "slow" }),
    ]);
  });
});

describe("per-host give-up", () => {
  test("after N failed attempts in a row the host's queued pages fail; a success resets the count", () => {
    const s = setup();
    const job = newJob(s, [page("http://dead.test/1"), page("http://dead.test/2"), page("http://dead.test/3"), page("http://ok.test/1")]);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", true, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(3);
    const errors = s.results.errors(job.id).errors;
    expect(errors.map((e) => e.code)).toEqual(["SCRAPE_HOST_GAVE_UP", "SCRAPE_HOST_GAVE_UP", "SCRAPE_HOST_GAVE_UP"]);
    expect(s.store.claim("w", 1000, free)!.host).toBe("ok.test");
  });

  test("only attempts the host did not answer count: network errors and timeouts, not an HTTP answer (5xx, 429) nor an LLM's failure, nor a page handed back", () => {
    // As the task runner reports them: an HTTP answer carries its status.
    const retry = (reason: string) => ({ kind: "retry" as const, notBefore: 0, reason, ...(/^HTTP (\d{3})$/.test(reason) ? { httpStatus: Number(reason.slice(5)) } : {}) });
    const failed = (error: CrawlboxError) => ({ kind: "failed" as const, error });
    const cases: [string, boolean][] = [
      ["HTTP 500", attemptSaysHostDown(retry("HTTP 500"))],
      ["HTTP 503", attemptSaysHostDown(retry("HTTP 503"))],
      ["HTTP 429", attemptSaysHostDown(retry("HTTP 429"))],
      ["retried SCRAPE_SITE_ERROR", attemptSaysHostDown(retry("SCRAPE_SITE_ERROR"))],
      ["retried SCRAPE_TIMEOUT", attemptSaysHostDown(retry("SCRAPE_TIMEOUT"))],
      ["retried LLM_UNAVAILABLE", attemptSaysHostDown(retry("LLM_UNAVAILABLE"))],
      // A page of a revoked key's job handed back because failing the job failed: nothing about its host.
      ["handed back KEY_REVOKED", attemptSaysHostDown({ ...retry("KEY_REVOKED"), giveAttemptBack: true })],
      ["final connection refused", attemptSaysHostDown(failed(new SiteError("SCRAPE_SITE_ERROR", "Could not connect (ECONNREFUSED).")))],
      ["final DNS failure", attemptSaysHostDown(failed(new SiteError("SCRAPE_DNS_RESOLUTION_ERROR", "DNS resolution failed.")))],
      ["final timeout", attemptSaysHostDown(failed(new ScrapeTimeoutError(1000)))],
      ["unsupported file", attemptSaysHostDown(failed(new UnsupportedFileError("application/x-elf")))],
    ];
    expect(cases).toEqual([
      ["HTTP 500", false],
      ["HTTP 503", false],
      ["HTTP 429", false],
      ["retried SCRAPE_SITE_ERROR", true],
      ["retried SCRAPE_TIMEOUT", true],
      ["retried LLM_UNAVAILABLE", false],
      ["handed back KEY_REVOKED", false],
      ["final connection refused", true],
      ["final DNS failure", true],
      ["final timeout", true],
      ["unsupported file", false],
    ]);
  });
});

describe("JobResults query plans", () => {
  test("a status poll walks the completion index, not the whole task table (no scan, no sort)", () => {
    const s = setup();
    const plan = s.db
      .query<{ detail: string }, [string, number, number]>(`EXPLAIN QUERY PLAN ${RESULT_PAGE_SQL}`)
      .all("job", 1, 0)
      .map((r) => r.detail)
      .join(" | ");
    expect(plan).toContain("USING INDEX tasks_job_done (job_id=? AND done_seq>?)");
    expect(plan).not.toContain("SCAN tasks");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  test("queue-status's last success reads the key's jobs, then their done tasks (not every done task of the server)", () => {
    const s = setup();
    // Statistics as a busy server's would be after ANALYZE: many done tasks, few jobs per key.
    s.db.exec("ANALYZE; INSERT OR REPLACE INTO sqlite_stat1 VALUES ('tasks', 'tasks_claim', '300000 100000 1 1')");
    const plan = s.db
      .query<{ detail: string }, [string, number]>(`EXPLAIN QUERY PLAN ${LAST_PAGE_SQL}`)
      .all("k", 0)
      .map((r) => r.detail)
      .join(" | ");
    expect(plan).toMatch(/^SEARCH j USING (COVERING )?INDEX jobs_key_status \(key_id=\?\) \| SEARCH t USING INDEX tasks_job_status/);
  });
});

describe("changeTracking's hidden re-checks and the crawl's page identity", () => {
  test("with ignoreQueryParameters, /a?sid=111 then /a?sid=222 is one page seen again, not a hidden re-check", async () => {
    const { createCrawlPlanner } = await import("../../src/jobs/crawl-planner.ts");
    const { ChangeHistory } = await import("../../src/change-tracking/history.ts");
    const { createHiddenRecheckHook } = await import("../../src/change-tracking/crawl-recheck.ts");
    const s = setup();
    s.store.setDrainHook(createHiddenRecheckHook(s.db, new ChangeHistory(s.db), s.now));
    const planner = createCrawlPlanner({ engine: { fetch: async () => { throw new Error("offline"); } }, robots: {} as never, log: silentLogger });
    const options = { crawlerOptions: { ignoreQueryParameters: true, ignoreRobotsTxt: true, sitemap: "skip" }, scrapeOptions: { formats: [{ type: "markdown" }, { type: "changeTracking" }] } } as never;
    const crawl = async (id: string, sid: string) => {
      s.tick(1000);
      const tasks = planner.initialTasks("https://x.test/", { ignoreQueryParameters: true, ignoreRobotsTxt: true, sitemap: "skip" });
      s.store.createJob({ id, kind: "crawl", keyId: "k", status: "scraping", url: "https://x.test/", options, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1e9 }, tasks);
      const fetched: string[] = [];
      for (let t = s.store.claim("w", 1000, free); t; t = s.store.claim("w", 1000, free)) {
        fetched.push(t.url);
        const links = t.depth === 0 ? [`https://x.test/a?sid=${sid}`] : [];
        const d = await planner.discover(s.store.get(id)!, t, links, new AbortController().signal);
        s.store.complete(t.id, "w", { document: { metadata: {} }, credits: 1, discovered: d.discovered });
      }
      return fetched;
    };
    expect(await crawl("c1", "111")).toEqual(["https://x.test/", "https://x.test/a?sid=111"]);
    expect(await crawl("c2", "222")).toEqual(["https://x.test/", "https://x.test/a?sid=222"]);
  });
});
