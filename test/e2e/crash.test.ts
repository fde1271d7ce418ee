/**
 * Crash test (issue 5): the compiled binary runs a 300-page crawl and a 60-page batch, both with a webhook,
 * and is killed with SIGKILL three times at random moments, restarting on the same data directory each time.
 * In the end both jobs are completed, every page is in the results exactly once, the receiver saw every event
 * at least once (repeats carry the same webhook-id and body), and the database passes `PRAGMA integrity_check`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const KEY = "crash-test-key-0123456789";
const PAGES = 300;
const BATCH = 60;
let dir: string;
let bin: string;
let site: ReturnType<typeof Bun.serve>;
let receiver: ReturnType<typeof Bun.serve>;
let server: ReturnType<typeof Bun.spawn> | undefined;
const deliveries: { id: string; type: string; jobId: string; raw: string; url?: string }[] = [];

function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

beforeAll(() => {
  const built = join(ROOT, "dist", "crawlbox");
  if (!existsSync(built) || process.env.CRAWLBOX_E2E_REBUILD !== "0") {
    const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  }
  dir = mkdtempSync(join(tmpdir(), "crawlbox-crash-"));
  bin = join(dir, "crawlbox");
  copyFileSync(built, bin);
  chmodSync(bin, 0o755);
  // Each page links to the next three, so the crawl discovers all 300; 60 ms per page keeps it running for
  // several seconds (4 pages of one host at a time), so every kill lands mid-crawl.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const m = /^\/p\/(\d+)$/.exec(new URL(req.url).pathname);
      if (!m) return new Response("no", { status: 404 });
      await Bun.sleep(60);
      const i = Number(m[1]);
      const links = [1, 2, 3].map((k) => `<a href="/p/${(i + k) % PAGES}">next</a>`).join(" ");
      return new Response(`<html><body><main><h1>Page ${i}</h1><p>Text of page ${i}.</p>${links}</main></body></html>`, {
        headers: { "content-type": "text/html" },
      });
    },
  });
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const raw = await req.text();
      const body = JSON.parse(raw);
      deliveries.push({ id: req.headers.get("webhook-id") ?? "", type: body.type, jobId: body.id, raw, url: body.data?.[0]?.metadata?.sourceURL });
      return new Response("ok");
    },
  });
}, 240_000);

afterAll(() => {
  server?.kill("SIGKILL");
  site?.stop(true);
  receiver?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("jobs survive three SIGKILLs: completed, no page lost or duplicated, webhooks at least once, database intact", async () => {
  const port = freePort();
  const api = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? "",
    PORT: String(port),
    HOST: "127.0.0.1",
    CRAWLBOX_DATA_DIR: join(dir, "data"),
    CRAWLBOX_API_KEYS: KEY,
    CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true",
    CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS: "true",
    CRAWLBOX_JOB_CONCURRENCY: "6",
    CRAWLBOX_LOG_LEVEL: "warn",
  };
  const start = async () => {
    server = Bun.spawn([bin, "serve"], { cwd: dir, env, stdout: "ignore", stderr: "ignore" });
    for (let i = 0; i < 200; i++) {
      if (await fetch(`${api}/health`).then((r) => r.ok).catch(() => false)) return;
      await Bun.sleep(25);
    }
    throw new Error("server did not start");
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as any;
  };

  await start();
  const hook = { url: `http://127.0.0.1:${receiver.port}/hook` };
  const crawl = await call("POST", "/v2/crawl", { url: `http://127.0.0.1:${site.port}/p/0`, limit: PAGES, crawlEntireDomain: true, sitemap: "skip", webhook: hook });
  const batchUrls = Array.from({ length: BATCH }, (_, i) => `http://127.0.0.1:${site.port}/p/${i}?batch=1`);
  const batch = await call("POST", "/v2/batch/scrape", { urls: batchUrls, webhook: hook });
  expect(crawl.success).toBe(true);
  expect(batch.success).toBe(true);

  for (let kill = 0; kill < 3; kill++) {
    await Bun.sleep(300 + Math.floor(Math.random() * 600));
    // The kill must interrupt real work, or the test proves nothing.
    expect((await call("GET", `/v2/crawl/${crawl.id}?limit=1`)).status).toBe("scraping");
    server!.kill("SIGKILL");
    await server!.exited;
    await start();
  }

  const deadline = Date.now() + 120_000;
  let crawlStatus: any;
  let batchStatus: any;
  while (Date.now() < deadline) {
    crawlStatus = await call("GET", `/v2/crawl/${crawl.id}?limit=1`);
    batchStatus = await call("GET", `/v2/batch/scrape/${batch.id}?limit=1`);
    if (crawlStatus.status === "completed" && batchStatus.status === "completed") break;
    await Bun.sleep(100);
  }
  expect(crawlStatus.status).toBe("completed");
  expect(batchStatus.status).toBe("completed");
  expect(crawlStatus.total).toBe(PAGES);
  expect(crawlStatus.completed).toBe(PAGES);
  expect(batchStatus.completed).toBe(BATCH);

  const collect = async (path: string) => {
    const urls: string[] = [];
    let next: string | undefined = `${api}${path}`;
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${KEY}` } });
      const body = (await res.json()) as any;
      for (const d of body.data) urls.push(d.metadata.sourceURL);
      next = body.next;
    }
    return urls;
  };
  const crawled = await collect(`/v2/crawl/${crawl.id}?limit=50`);
  expect(crawled.length).toBe(PAGES);
  expect(new Set(crawled).size).toBe(PAGES);
  const batched = await collect(`/v2/batch/scrape/${batch.id}?limit=50`);
  expect(batched.sort()).toEqual([...batchUrls].sort());

  // Webhooks: let the last deliveries go out, then check at-least-once with stable ids.
  const until = Date.now() + 20_000;
  const complete = () =>
    deliveries.some((d) => d.type === "crawl.completed" && d.jobId === crawl.id) &&
    deliveries.some((d) => d.type === "batch_scrape.completed" && d.jobId === batch.id);
  while (!complete() && Date.now() < until) await Bun.sleep(100);
  expect(complete()).toBe(true);
  const byId = new Map<string, string>();
  for (const d of deliveries) {
    const seen = byId.get(d.id);
    if (seen !== undefined) expect(d.raw).toBe(seen); // a repeat is byte-identical, same webhook-id
    byId.set(d.id, d.raw);
  }
  const pageUrls = (type: string, jobId: string) => new Set(deliveries.filter((d) => d.type === type && d.jobId === jobId).map((d) => d.url));
  expect(pageUrls("crawl.page", crawl.id).size).toBe(PAGES);
  expect(pageUrls("batch_scrape.page", batch.id).size).toBe(BATCH);
  expect(deliveries.some((d) => d.type === "crawl.started" && d.jobId === crawl.id)).toBe(true);
  expect(deliveries.some((d) => d.type === "batch_scrape.started" && d.jobId === batch.id)).toBe(true);

  server!.kill("SIGTERM");
  expect(await server!.exited).toBe(0);
  server = undefined;
  const db = new Database(join(dir, "data", "crawlbox.sqlite"), { readonly: true });
  expect((db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
  db.close();
}, 200_000);
