/**
 * A page that finds its job's key revoked fails the job first, then its own failure is recorded (jobs/task-runner.ts
 * `revoked`). When failing the job fails (the store busy, a full disk), the page is handed back instead: recorded
 * failed, a job's last page completed the job (`completed`, a `*.completed` webhook) though its key was revoked, and
 * the job's failure could no longer change that. Handed back, its next claim finds the key revoked again and fails
 * the job. The store's `failJob` is made to throw once: fault injection on the real store, nothing else replaced.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

const REVOKED = "The API key of this job was revoked.";
let site: ReturnType<typeof Bun.serve>;
let hooks: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;
/** Requests the site received, by path. */
const hits = new Map<string, number>();
/** Pages held until the test lets them answer, by path. */
const gates = new Map<string, () => void>();
const hookEvents: { type: string; id: string; success: boolean; error?: string }[] = [];

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (!path.startsWith("/gate/")) return new Response("", { status: 404 }); // robots.txt, sitemaps
      hits.set(path, (hits.get(path) ?? 0) + 1);
      await new Promise<void>((resolve) => gates.set(path, resolve));
      // No links: for a crawl too, this page is the job's last.
      return new Response(`<html><body><main><h1>${path}</h1><p>Some text.</p></main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  hooks = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { type: string; id: string; success: boolean; error?: string };
      hookEvents.push({ type: body.type, id: body.id, success: body.success, ...(body.error ? { error: body.error } : {}) });
      return new Response("ok");
    },
  });
  // A short backoff: the page handed back is due again at once (the pool's idle poll still paces it).
  h = await createHarness({ allowPrivateWebhooks: true, retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  hooks.stop(true);
});

async function until(what: () => boolean, ms = 15_000): Promise<void> {
  for (const end = performance.now() + ms; performance.now() < end; await Bun.sleep(20)) if (what()) return;
}

describe("a revoked key's last page when failing its job fails", () => {
  for (const kind of ["batch", "crawl"] as const) {
    test(`${kind}: is handed back, and the job ends failed, not completed`, async () => {
      const { key, record } = h.services.keys.create(`lost failure ${kind}`);
      const path = `/gate/${kind}-last`;
      const hook = { url: `http://127.0.0.1:${hooks.port}/hook`, events: [] };
      const body =
        kind === "batch"
          ? { urls: [`${base}${path}`], maxAge: 0, webhook: hook }
          : { url: `${base}${path}`, limit: 5, sitemap: "skip", scrapeOptions: { maxAge: 0 }, webhook: hook };
      const res = (await (await h.request(kind === "batch" ? "/v2/batch/scrape" : "/v2/crawl", { method: "POST", auth: key, json: body })).json()) as any;
      expect(res.success).toBe(true);
      await until(() => gates.has(path));
      expect(gates.has(path)).toBe(true);

      // The store refuses the first failJob, as SQLite does when another connection holds the write lock past the
      // busy timeout; later ones go through.
      const store = h.services.jobStore;
      const realFailJob = store.failJob.bind(store);
      let failJobCalls = 0;
      store.failJob = (jobId: string, message: string, keepTaskId?: string) => {
        failJobCalls++;
        if (failJobCalls === 1) throw new Error("database is locked (SQLITE_BUSY)");
        realFailJob(jobId, message, keepTaskId);
      };
      try {
        expect(h.services.keys.revoke(record.id)).toBe(true);
        gates.get(path)!(); // the page answers; its runner then finds the key revoked
        const job = () => h.services.jobStore.get(res.id)!;
        // The job's events in the webhook outbox, in the order they were enqueued: each is written in the transaction
        // that changes the job, so once it has ended every event it announced is there.
        const events = () => h.services.db.query<{ type: string }, [string]>("SELECT type FROM webhook_events WHERE job_id = ? ORDER BY seq").all(res.id).map((e) => e.type);
        await until(() => job().status !== "scraping");
        const prefix = kind === "batch" ? "batch_scrape" : "crawl";
        // Before: the page was recorded failed when failJob threw, and as the job's last it completed the job.
        expect(job()).toMatchObject({ status: "failed", error: REVOKED });
        expect(events().filter((t) => /\.(failed|completed|cancelled)$/.test(t))).toEqual([`${prefix}.failed`]);
        // Nothing is announced after the job's failure (the revoked page's own failure is recorded after it), and
        // no `page` event for that page: the `failed` event says why.
        expect(events().at(-1)).toBe(`${prefix}.failed`);
        expect(events()).not.toContain(`${prefix}.page`);
        await until(() => hookEvents.some((e) => e.id === res.id && e.type === `${prefix}.failed`));
        expect(hookEvents.find((e) => e.id === res.id && e.type === `${prefix}.failed`)).toMatchObject({ success: false, error: REVOKED });
        expect(failJobCalls).toBe(2);
        // The page was fetched once: its second claim stopped at the key check, before any fetch. The first claim's
        // attempt was given back (it had no outcome of its own), so the page's row counts one.
        expect(hits.get(path)).toBe(1);
        const pageRow = h.services.db.query<{ attempts: number; status: string }, [string]>("SELECT attempts, status FROM tasks WHERE job_id = ? AND kind = 'page'").get(res.id);
        expect(pageRow).toEqual({ attempts: 1, status: "failed" });
        expect(h.services.jobResults.errors(res.id).errors.map((e: { code?: string }) => e.code)).toEqual(["KEY_REVOKED"]);
        // Nothing of the revoked key's page was stored or charged.
        expect(job().creditsUsed).toBe(0);
      } finally {
        store.failJob = realFailJob;
      }
    }, 30_000);
  }
});

describe("a revoked key's job when failing it keeps failing", () => {
  test("waits as a whole between tries: its queued pages are not each claimed and handed back in turn", async () => {
    const { key, record } = h.services.keys.create("lost failure paced");
    const paths = Array.from({ length: 60 }, (_, i) => `/gate/paced-${i}`);
    const res = (await (await h.request("/v2/batch/scrape", { method: "POST", auth: key, json: { urls: paths.map((p) => `${base}${p}`), maxAge: 0 } })).json()) as any;
    expect(res.success).toBe(true);
    await until(() => paths.some((p) => gates.has(p)));
    const store = h.services.jobStore;
    const realFailJob = store.failJob.bind(store);
    let failJobCalls = 0;
    let refusing = true;
    store.failJob = (jobId: string, message: string, keepTaskId?: string) => {
      if (jobId === res.id) failJobCalls++;
      if (refusing && jobId === res.id) throw new Error("database or disk is full (SQLITE_FULL)");
      realFailJob(jobId, message, keepTaskId);
    };
    try {
      expect(h.services.keys.revoke(record.id)).toBe(true);
      const running = paths.filter((p) => gates.has(p));
      for (const p of running) gates.get(p)!(); // the pages running answer, and find the key revoked
      await until(() => failJobCalls >= running.length);
      // A second's worth of the pool's claims. Before, every page handed back was due again after its own 10 ms
      // backoff and the job's other pages were due at once: each was claimed, tried failJob and was handed back, all
      // 60 within the second, and again and again. Now the job itself waits, longer after each try (10 ms doubling).
      await Bun.sleep(1_000);
      expect(failJobCalls).toBeLessThan(paths.length / 2);
      // Not one page was fetched after the key was revoked.
      expect(paths.filter((p) => (hits.get(p) ?? 0) > 0).length).toBe(running.length);
      refusing = false;
      await until(() => h.services.jobStore.get(res.id)!.status !== "scraping", 20_000);
      expect(h.services.jobStore.get(res.id)).toMatchObject({ status: "failed", error: REVOKED });
    } finally {
      store.failJob = realFailJob;
    }
  }, 40_000);
});
