/**
 * Upstream's SELF_HOSTED_WEBHOOK_URL: crawl and batch jobs sent without a webhook announce their events there, with
 * `{{JOB_ID}}` replaced by the job's id; a job's own webhook wins.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseCrawlBody } from "../../src/api/crawl.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startReceiver, type Receiver } from "./helpers.ts";

let h: Harness;
let rx: Receiver;
let site: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  rx = startReceiver();
  h = await createHarness({ fallbackWebhookUrl: `${rx.url}/fallback/{{JOB_ID}}` });
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><h1>Hi</h1><p>A page.</p></body></html>", { headers: { "content-type": "text/html" } }) });
});
afterAll(async () => {
  await h.close();
  rx.stop();
  site.stop(true);
});

async function batch(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`http://127.0.0.1:${site.port}/`], ...extra } });
  return ((await res.json()) as { id: string }).id;
}

async function waitFor(path: string, n: number) {
  const deadline = Date.now() + 20_000;
  while (rx.to(path).length < n && Date.now() < deadline) await Bun.sleep(25);
  return rx.to(path);
}

describe("SELF_HOSTED_WEBHOOK_URL", () => {
  test("a job without a webhook sends every event to it, {{JOB_ID}} replaced; a job's own webhook wins", async () => {
    const id = await batch();
    const got = await waitFor(`/fallback/${id}`, 3);
    expect(got.map((r) => JSON.parse(r.body))).toMatchObject([
      { type: "batch_scrape.started", id },
      { type: "batch_scrape.page", id, success: true },
      { type: "batch_scrape.completed", id },
    ]);
    const own = await batch({ webhook: `${rx.url}/own` });
    expect((await waitFor("/own", 3)).length).toBe(3);
    expect(rx.to(`/fallback/${own}`)).toEqual([]);
  });

  test("a monitor check's crawl is not announced to it (the monitor's own webhook announces the check)", async () => {
    const who = h.services.keys.verify(h.key)!;
    const job = h.services.jobs.createCrawl(parseCrawlBody({ url: `http://127.0.0.1:${site.port}/`, limit: 1, sitemap: "skip" }), who, "", undefined, { monitorCheckId: "check-1" });
    const deadline = Date.now() + 20_000;
    while (h.services.jobStore.get(job.id)?.status === "scraping" && Date.now() < deadline) await Bun.sleep(25);
    expect(h.services.jobStore.get(job.id)?.status).toBe("completed");
    await Bun.sleep(300);
    expect(rx.to(`/fallback/${job.id}`)).toEqual([]);
  });

  test("read from the environment and checked", () => {
    expect(loadConfig({ SELF_HOSTED_WEBHOOK_URL: "https://hooks.example.com/fc/{{JOB_ID}}" }).fallbackWebhookUrl).toBe("https://hooks.example.com/fc/{{JOB_ID}}");
    expect(loadConfig({}).fallbackWebhookUrl).toBe("");
    // As written: a receiver may route /hook/ and /hook apart.
    expect(loadConfig({ SELF_HOSTED_WEBHOOK_URL: "https://hooks.example.com/hook/" }).fallbackWebhookUrl).toBe("https://hooks.example.com/hook/");
    expect(() => loadConfig({ SELF_HOSTED_WEBHOOK_URL: "ftp://x" })).toThrow(ConfigError);
  });
});
