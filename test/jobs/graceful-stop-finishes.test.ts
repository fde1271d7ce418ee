/**
 * A graceful stop (SIGTERM) lets the crawl and batch pages and the webhook deliveries in flight finish within the
 * shutdown grace, their outcomes recorded, and starts none after the signal; what is still running at the grace's end
 * is cut as before and runs again after the restart. Before, the stop waited for API requests only and aborted every
 * page and delivery at once, so the restart fetched and sent each of them again: as many duplicates as a `kill -9`
 * (24 pages fetched twice and 12 deliveries sent twice in 3 SIGTERMs of a 400-page run), with the 10 s grace unused.
 * Real `serve` processes on one data directory, a local site and receiver; SIGTERM by PID.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { type RestartableServer, restartableServer } from "./restart-helpers.ts";

let server: RestartableServer | undefined;
const stops: (() => void)[] = [];
afterEach(async () => {
  await server?.cleanup();
  for (const s of stops.splice(0)) s();
  server = undefined;
});

/** A site whose `/slow/*` pages answer after `slowMs`, or never (until the client goes) when `slowMs` is 0 the first time. */
function site(slowMs: number, hangFirst = false) {
  const hits = new Map<string, number>();
  const s = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const n = (hits.get(path) ?? 0) + 1;
      hits.set(path, n);
      if (hangFirst && n === 1) await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve()));
      else await Bun.sleep(slowMs);
      return new Response(`<html><body><h1>${path}</h1></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  stops.push(() => s.stop(true));
  return { url: `http://127.0.0.1:${s.port}`, hits };
}

/** A webhook receiver answering each delivery after `delayMs` (the first one after `firstDelayMs`); records them. */
function receiver(delayMs: number, firstDelayMs = delayMs) {
  const received: { type: string; webhookId: string }[] = [];
  const s = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const body = (await req.json()) as { type: string; webhookId: string };
      received.push({ type: body.type, webhookId: body.webhookId });
      await Bun.sleep(received.length === 1 ? firstDelayMs : delayMs);
      return new Response("ok");
    },
  });
  stops.push(() => s.stop(true));
  return { url: `http://127.0.0.1:${s.port}/hook`, received };
}

async function until(what: () => boolean, limitMs = 30_000): Promise<void> {
  const end = performance.now() + limitMs;
  while (!what()) {
    if (performance.now() > end) throw new Error("timed out");
    await Bun.sleep(20);
  }
}

/** Waits for batch `id` to end on the running server; its status body. */
async function finished(id: string): Promise<any> {
  let status: any;
  for (let i = 0; i < 600; i++) {
    status = await server!.call("GET", `/v2/batch/scrape/${id}`);
    if (status.status !== "scraping") return status;
    await Bun.sleep(50);
  }
  throw new Error(`batch ${id} did not end`);
}

const ENV = { CRAWLBOX_JOB_CONCURRENCY: "1", CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS: "true" };

test("SIGTERM lets the page and the delivery in flight finish, starts nothing else, and the restart repeats neither", async () => {
  const pages = site(1_500);
  const rx = receiver(100, 1_500);
  server = restartableServer(ENV);
  await server.start();
  const created = await server.call("POST", "/v2/batch/scrape", {
    urls: [`${pages.url}/slow/1`, `${pages.url}/slow/2`],
    formats: ["markdown"],
    webhook: { url: rx.url, events: ["started", "page", "completed"] },
  });
  expect(created.success).toBe(true);
  // The first page is being fetched (the second waits: one page at a time) and `started` is being delivered.
  await until(() => pages.hits.get("/slow/1") === 1 && rx.received.length === 1);
  const t0 = performance.now();
  expect(await server.stop()).toBe(0);
  const stopMs = performance.now() - t0;
  // Both finished within the grace (10 s), without waiting for all of it; nothing new was started.
  expect(stopMs).toBeLessThan(8_000);
  expect(pages.hits.get("/slow/2")).toBeUndefined();
  expect(rx.received.map((r) => r.type)).toEqual(["batch_scrape.started"]);

  await server.start();
  const status = await finished(created.id);
  expect(status.status).toBe("completed");
  expect(status.data.map((d: any) => d.metadata.sourceURL).sort()).toEqual([`${pages.url}/slow/1`, `${pages.url}/slow/2`]);
  await until(() => rx.received.some((r) => r.type === "batch_scrape.completed"));
  // Each page fetched once, each event delivered once.
  expect(Object.fromEntries(pages.hits)).toEqual({ "/slow/1": 1, "/slow/2": 1 });
  expect(rx.received.map((r) => r.type).sort()).toEqual(["batch_scrape.completed", "batch_scrape.page", "batch_scrape.page", "batch_scrape.started"]);
  expect(new Set(rx.received.map((r) => r.webhookId)).size).toBe(4);
  let deliveries: any;
  for (let i = 0; i < 100; i++) {
    deliveries = await server.call("GET", `/v2/webhooks/deliveries?jobId=${created.id}`);
    if (deliveries.data.every((d: any) => d.status === "delivered")) break;
    await Bun.sleep(50);
  }
  expect(deliveries.data.map((d: any) => [d.status, d.attempts.length])).toEqual(Array(4).fill(["delivered", 1]));
}, 90_000);

test("what still runs at the grace's end is cut as before: the page and the delivery run again after the restart", async () => {
  const pages = site(50, true);
  const rx = receiver(50, 20_000);
  server = restartableServer({ ...ENV, CRAWLBOX_SHUTDOWN_GRACE_MS: "800" });
  await server.start();
  const created = await server.call("POST", "/v2/batch/scrape", {
    urls: [`${pages.url}/slow/1`],
    formats: ["markdown"],
    webhook: { url: rx.url, events: ["started", "page", "completed"] },
  });
  await until(() => pages.hits.get("/slow/1") === 1 && rx.received.length === 1);
  const t0 = performance.now();
  expect(await server.stop()).toBe(0);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(700); // it waited for the grace

  await server.start();
  const status = await finished(created.id);
  expect(status.status).toBe("completed");
  await until(() => rx.received.some((r) => r.type === "batch_scrape.completed"));
  expect(pages.hits.get("/slow/1")).toBe(2);
  const started = rx.received.filter((r) => r.type === "batch_scrape.started");
  expect(started.length).toBe(2); // cut, then sent again with the same id
  expect(started[0]!.webhookId).toBe(started[1]!.webhookId);
  const deliveries = await server.call("GET", `/v2/webhooks/deliveries?jobId=${created.id}`);
  const first = deliveries.data[0];
  expect([first.type, first.status, first.attempts.length]).toEqual(["batch_scrape.started", "delivered", 2]);
  expect(first.attempts[0].error).toStartWith("interrupted");
}, 90_000);

test("a second signal during the grace hands the running page back: the restarts count no stall and spend no attempt", async () => {
  const pages = site(60_000);
  server = restartableServer(ENV);
  await server.start();
  const created = await server.call("POST", "/v2/batch/scrape", { urls: [`${pages.url}/slow/1`], formats: ["markdown"] });
  for (let round = 1; round <= 2; round++) {
    await until(() => pages.hits.get("/slow/1") === round);
    server.signal();
    await Bun.sleep(300);
    // The operator wants it over now: exit 1, without waiting for the page (it would take a minute).
    expect(await server.stop()).toBe(1);
    const db = new Database(join(server.dataDir, "crawlbox.sqlite"), { readonly: true });
    const row = db.query<{ status: string; attempts: number; stalls: number }, [string]>("SELECT status, attempts, stalls FROM tasks WHERE job_id = ? AND kind = 'page'").get(created.id)!;
    db.close();
    // Before, it was left active: each start counted a stall and kept the attempt, and the fourth failed the page.
    expect(row).toEqual({ status: "queued", attempts: 0, stalls: 0 });
    await server.start();
  }
}, 90_000);
