/**
 * A graceful restart (SIGTERM) does not spend a page's retry budget: the page aborted by the shutdown is released
 * with its claim's attempt given back (JobStore.release), so a 5xx after three restarts is still retried. Before,
 * each restart kept the attempt (`retry`), and with MAX_PAGE_ATTEMPTS = 3 that 5xx was the page's final answer.
 * Real `serve` processes on one data directory, a local site; SIGTERM by PID.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { type RestartableServer, restartableServer } from "./restart-helpers.ts";

const RESTARTS = 3;
let server: RestartableServer | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  await server?.cleanup();
  site?.stop(true);
  server = site = undefined;
});

test("three SIGTERM restarts while a batch page runs leave its retries intact: a later 500 is retried and the page ends 200", async () => {
  // The page hangs for its first RESTARTS requests (each process is stopped while it waits), then answers 500 once,
  // then 200.
  let hits = 0;
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path !== "/flaky") return new Response("not here", { status: 404 });
      const hit = ++hits;
      if (hit <= RESTARTS) {
        await new Promise<void>((resolve) => {
          req.signal.addEventListener("abort", () => resolve());
          setTimeout(resolve, 60_000).unref();
        });
        return new Response("late");
      }
      if (hit === RESTARTS + 1) return new Response("busy", { status: 500 });
      return new Response("<html><body><h1>Fine</h1></body></html>", { headers: { "content-type": "text/html" } });
    },
  });
  // A short grace: the page hangs until the stop cuts it at the grace's end (test/jobs/graceful-stop-finishes.test.ts).
  server = restartableServer({ CRAWLBOX_RETRY_BASE_DELAY_MS: "10", CRAWLBOX_SHUTDOWN_GRACE_MS: "500" });
  await server.start();
  const url = `http://127.0.0.1:${site.port}/flaky`;
  const created = await server.call("POST", "/v2/batch/scrape", { urls: [url], formats: ["markdown"] });
  expect(created.success).toBe(true);

  for (let restart = 1; restart <= RESTARTS; restart++) {
    for (let i = 0; i < 600 && hits < restart; i++) await Bun.sleep(50);
    expect(hits).toBe(restart); // the page is being fetched: the stop interrupts it
    expect(await server.stop()).toBe(0);
    await server.start();
  }

  let status: any;
  for (let i = 0; i < 600; i++) {
    status = await server.call("GET", `/v2/batch/scrape/${created.id}`);
    if (status.status === "completed") break;
    await Bun.sleep(50);
  }
  expect(status.status).toBe("completed");
  expect(status.data.map((d: any) => d.metadata.statusCode)).toEqual([200]);
  expect(hits).toBe(RESTARTS + 2);
  expect(await server.stop()).toBe(0);
  // Two attempts were spent: the 500 and the 200; the three interrupted ones were given back.
  const db = new Database(join(server.dataDir, "crawlbox.sqlite"), { readonly: true });
  const attempts = db.query<{ attempts: number }, [string]>("SELECT attempts FROM tasks WHERE job_id = ? AND kind = 'page'").all(created.id);
  db.close();
  expect(attempts).toEqual([{ attempts: 2 }]);
}, 120_000);
