/**
 * A key revoked while its jobs run (`crawlbox keys revoke`, or gone from CRAWLBOX_API_KEYS at a restart) stops them:
 * a crawl before its next page, an extract job and an agent run before their next page. Each ends failed with
 * "The API key of this job was revoked." (KEY_REVOKED in a crawl's /errors), announced by its failure webhook, and
 * the key's credits stop growing. Before, the jobs went on fetching and charging the revoked key to the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

const PAGE_MS = 250;
const REVOKED = "The API key of this job was revoked.";
let site: ReturnType<typeof Bun.serve>;
let hooks: ReturnType<typeof Bun.serve>;
let llm: FakeLlm;
let h: Harness;
let base: string;
/** When each page request arrived (ms, performance.now). */
const hits: number[] = [];
const hookEvents: { type: string; id: string; error?: string }[] = [];

beforeAll(async () => {
  // A slow site: every page takes PAGE_MS and links to five more.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/robots.txt" || url.pathname.endsWith(".xml")) return new Response("", { status: 404 });
      hits.push(performance.now());
      await Bun.sleep(PAGE_MS);
      const n = Number(url.pathname.split("/").pop()) || 0;
      const links = [1, 2, 3, 4, 5].map((i) => `<a href="/p/${n * 5 + i}">page ${n * 5 + i}</a>`).join(" ");
      return new Response(`<html><body><main><h1>Page ${n}</h1><p>Some text of page ${n}.</p>${links}</main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  hooks = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { type: string; id: string; error?: string };
      hookEvents.push({ type: body.type, id: body.id, ...(body.error ? { error: body.error } : {}) });
      return new Response("ok");
    },
  });
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", allowPrivateWebhooks: true });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  hooks.stop(true);
  llm.stop();
});

const hookUrl = () => `http://127.0.0.1:${hooks.port}/hook`;
/** Credits charged to `keyId` so far. */
const creditsOf = (keyId: string) => h.services.db.query<{ c: number | null }, [string]>("SELECT SUM(credits) AS c FROM credit_usage WHERE key_id = ?").get(keyId)?.c ?? 0;
async function until(what: () => boolean, ms = 15_000): Promise<void> {
  for (const end = performance.now() + ms; performance.now() < end; await Bun.sleep(20)) if (what()) return;
}
/** Revokes `keyId` once the site has had `pages` more requests; returns when, and the key's credits then. */
async function revokeAfter(keyId: string, pages: number): Promise<{ at: number; creditsAt: number }> {
  const start = hits.length;
  await until(() => hits.length >= start + pages);
  const creditsAt = creditsOf(keyId);
  expect(h.services.keys.revoke(keyId)).toBe(true);
  return { at: performance.now(), creditsAt };
}

describe("jobs of a revoked key", () => {
  test("a crawl stops before its next page, fails with KEY_REVOKED, fires crawl.failed, and charges nothing more", async () => {
    const { key, record } = h.services.keys.create("leaked crawl");
    const res = (await (await h.request("/v2/crawl", { method: "POST", auth: key, json: { url: `${base}/p/0`, limit: 60, crawlEntireDomain: true, maxConcurrency: 2, sitemap: "skip", scrapeOptions: { maxAge: 0 }, webhook: { url: hookUrl() } } })).json()) as any;
    expect(res.success).toBe(true);
    const { at, creditsAt } = await revokeAfter(record.id, 4);
    const job = () => h.services.jobStore.get(res.id)!;
    await until(() => job().status !== "scraping", 10_000);
    expect(job().status).toBe("failed");
    expect(job().error).toBe(REVOKED);
    // Pages that started after the revocation: at most one that passed its check just before it.
    expect(hits.filter((t) => t > at).length).toBeLessThanOrEqual(1);
    expect(job().completed).toBeLessThan(15);
    const charged = creditsOf(record.id);
    // The pages running at the revocation are not stored: at most one that passed its last check just before it.
    expect(charged - creditsAt).toBeLessThanOrEqual(1);
    const errors = h.services.jobResults.errors(res.id);
    expect(errors.errors.some((e: any) => e.code === "KEY_REVOKED" && e.error === REVOKED)).toBe(true);
    await until(() => hookEvents.some((e) => e.id === res.id && e.type === "crawl.failed"));
    expect(hookEvents.find((e) => e.id === res.id && e.type === "crawl.failed")?.error).toBe(REVOKED);
    await Bun.sleep(4 * PAGE_MS);
    expect(creditsOf(record.id)).toBe(charged);
    expect(job().completed).toBe(charged + errors.errors.length); // a credit a page stored; the revoked page failed
  }, 30_000);

  test("an extract job stops before its next page, fails with the revocation, and its model is never asked", async () => {
    const { key, record } = h.services.keys.create("leaked extract");
    llm.reset();
    const urls = Array.from({ length: 10 }, (_, i) => `${base}/x/${1000 + i}`);
    const res = (await (await h.request("/v2/extract", { method: "POST", auth: key, json: { urls, prompt: "page titles", webhook: { url: hookUrl() } } })).json()) as any;
    expect(res.success).toBe(true);
    const { at, creditsAt } = await revokeAfter(record.id, 1);
    const row = () => h.services.db.query<{ status: string; error: string | null; credits: number }, [string]>("SELECT status, error, credits FROM extract_jobs WHERE id = ?").get(res.id)!;
    await until(() => row().status !== "processing", 10_000);
    expect(row().status).toBe("failed");
    expect(row().error).toBe(REVOKED);
    expect(hits.filter((t) => t > at).length).toBeLessThanOrEqual(1);
    expect(llm.chats()).toHaveLength(0);
    const charged = creditsOf(record.id);
    expect(charged - creditsAt).toBeLessThanOrEqual(1);
    await until(() => hookEvents.some((e) => e.id === res.id && e.type === "extract.failed"));
    expect(hookEvents.find((e) => e.id === res.id && e.type === "extract.failed")?.error).toBe(REVOKED);
    await Bun.sleep(4 * PAGE_MS);
    expect(creditsOf(record.id)).toBe(charged);
  }, 30_000);

  test("an agent run stops before its next page, fails with the revocation, and charges nothing more", async () => {
    const { key, record } = h.services.keys.create("leaked agent");
    llm.reset();
    const urls = Array.from({ length: 10 }, (_, i) => `${base}/a/${2000 + i}`);
    const res = (await (await h.request("/v2/agent", { method: "POST", auth: key, json: { urls, prompt: "page titles", webhook: { url: hookUrl() } } })).json()) as any;
    expect(res.success).toBe(true);
    const { at, creditsAt } = await revokeAfter(record.id, 1);
    const run = () => h.services.db.query<{ status: string; error: string | null }, [string]>("SELECT status, error FROM agent_jobs WHERE id = ?").get(res.id)!;
    await until(() => run().status !== "processing", 10_000);
    expect(run().status).toBe("failed");
    expect(run().error).toBe(REVOKED);
    expect(hits.filter((t) => t > at).length).toBeLessThanOrEqual(1);
    expect(llm.chats()).toHaveLength(0);
    const charged = creditsOf(record.id);
    expect(charged - creditsAt).toBeLessThanOrEqual(1);
    await until(() => hookEvents.some((e) => e.id === res.id && e.type === "agent.failed"));
    await Bun.sleep(4 * PAGE_MS);
    expect(creditsOf(record.id)).toBe(charged);
  }, 30_000);
});

describe("a revoked key's batch", () => {
  for (const n of [1, 3]) {
    test(`of ${n} page(s), revoked while all are in flight, ends failed (not completed by its last page), one failed webhook`, async () => {
      const { key, record } = h.services.keys.create(`last page ${n}`);
      const urls = Array.from({ length: n }, (_, i) => `${base}/p/${9000 + n * 10 + i}`);
      const res = (await (await h.request("/v2/batch/scrape", { method: "POST", auth: key, json: { urls, maxConcurrency: n, maxAge: 0, webhook: { url: hookUrl() } } })).json()) as any;
      await revokeAfter(record.id, n);
      const job = () => h.services.jobStore.get(res.id)!;
      await until(() => job().status !== "scraping");
      await until(() => hookEvents.some((e) => e.id === res.id && /\.(failed|completed)$/.test(e.type)));
      await Bun.sleep(300); // a second ending event, if any, would come now
      // Before: the revoked page was recorded first, and as the batch's last page it completed the batch (a
      // `batch_scrape.completed` webhook); the job's failure after it changed nothing.
      expect(job()).toMatchObject({ status: "failed", error: REVOKED });
      expect(hookEvents.filter((e) => e.id === res.id && /\.(failed|completed)$/.test(e.type)).map((e) => e.type)).toEqual(["batch_scrape.failed"]);
      expect(h.services.jobResults.errors(res.id).errors.map((e: { code?: string }) => e.code)).toContain("KEY_REVOKED");
    }, 30_000);
  }

  test("of many queued pages has them set aside a chunk per transaction, not in one statement", async () => {
    const { key, record } = h.services.keys.create("big batch");
    const urls = Array.from({ length: 5_000 }, (_, i) => `${base}/p/${20_000 + i}`);
    const res = (await (await h.request("/v2/batch/scrape", { method: "POST", auth: key, json: { urls, maxConcurrency: 1, maxAge: 0 } })).json()) as any;
    const queued = () => h.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = 'queued'").get(res.id)!.n;
    const pending = () => h.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM job_pending_tasks WHERE job_id = ?").get(res.id)!.n;
    await revokeAfter(record.id, 1);
    const job = () => h.services.jobStore.get(res.id)!;
    await until(() => job().status !== "scraping");
    // Right when the job failed, much was still waiting (before: all of it cancelled in the failing transaction,
    // 0.8-0.9 s for a 264,000-URL batch, every request waiting); then the background sweep sets it all aside.
    const waitingAtFailure = queued() + pending();
    expect(job().status).toBe("failed");
    expect(waitingAtFailure).toBeGreaterThan(1_000);
    await until(() => queued() + pending() === 0);
    expect(queued() + pending()).toBe(0);
  }, 60_000);
});

test("a crawl of a key no longer in CRAWLBOX_API_KEYS after a restart fails at its first page, fetching nothing", async () => {
  const ENV_KEY = "env-key-revoked-at-restart";
  const first = await createHarness({ apiKeys: [ENV_KEY] });
  const dataDir = first.services.config.dataDir;
  const res = (await (await first.request("/v2/crawl", { method: "POST", auth: ENV_KEY, json: { url: `${base}/r/0`, limit: 60, crawlEntireDomain: true, maxConcurrency: 1, sitemap: "skip", scrapeOptions: { maxAge: 0 } } })).json()) as any;
  expect(res.success).toBe(true);
  const start = hits.length;
  await until(() => hits.length >= start + 2);
  await first.services.close(); // a graceful stop: the crawl stays running, its pages queued
  expect(first.services.config.dataDir).toBe(dataDir);
  const second = await createHarness({ apiKeys: [], dataDir });
  try {
    const restartedAt = performance.now();
    const job = () => second.services.jobStore.get(res.id)!;
    await until(() => job().status !== "scraping", 10_000);
    expect(job().status).toBe("failed");
    expect(job().error).toBe(REVOKED);
    expect(hits.filter((t) => t > restartedAt)).toHaveLength(0);
  } finally {
    await second.close();
  }
}, 30_000);
