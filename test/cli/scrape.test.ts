/**
 * `crawlbox scrape` (runScrape) on the data folder of a running server: it scrapes and prints, and leaves the
 * server's jobs alone (no requeue of its running pages, no work on its queued ones, no stall counted).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseArgs } from "../../src/cli/args.ts";
import { runScrape } from "../../src/cli/scrape.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let base: string;
const held = Promise.withResolvers<void>();
const hits = new Map<string, number>();

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path.startsWith("/held")) await held.promise;
      return new Response(`<html><head><title>${path}</title></head><body><main><h1>Hello ${path}</h1><p>Text.</p></main></body></html>`, {
        headers: { "content-type": "text/html" },
      });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ jobConcurrency: 1 });
});

afterAll(async () => {
  held.resolve();
  await h.close();
  site.stop(true);
});

test("a CLI scrape beside a running server neither requeues nor takes the server's pages", async () => {
  // The server's batch: its first page is running (held at the site), the second waits in the queue.
  const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/held-1`, `${base}/held-2`] } })).json()) as any;
  while (!hits.get("/held-1")) await Bun.sleep(5);

  const printed: string[] = [];
  const code = await runScrape(h.services.config, parseArgs(["scrape", `${base}/cli`]), (s) => printed.push(s));
  expect(code).toBe(0);
  expect(printed.join("\n")).toContain("# Hello /cli");

  const tasks = h.services.db.query("SELECT url, status, stalls FROM tasks WHERE job_id = ? ORDER BY seq").all(started.id) as any[];
  expect(tasks.map((t) => [t.status, t.stalls])).toEqual([["active", 0], ["queued", 0]]);
  expect(hits.get("/held-2")).toBeUndefined();

  held.resolve();
  let done = false;
  for (let i = 0; i < 200 && !done; i++) {
    const s = (await (await h.request(`/v2/batch/scrape/${started.id}`)).json()) as any;
    if (s.status === "completed") {
      expect(s.data.length).toBe(2);
      done = true;
    }
    await Bun.sleep(25);
  }
  expect(done).toBe(true);
  expect(hits.get("/held-1")).toBe(1);
});

test("a CLI scrape's services run none of the server's periodic upkeep (the mail outbox included); a server's do", async () => {
  const { createServices } = await import("../../src/server/services.ts");
  const { testConfig } = await import("../../src/config.ts");
  const { silentLogger } = await import("../../src/log.ts");
  const config = testConfig({ dataDir: h.services.config.dataDir, smtpUrl: "smtp://127.0.0.1:1", smtpFrom: "crawlbox@example.com" });
  const cli = await createServices(config, { log: silentLogger, background: false });
  try {
    expect(cli.scheduler.names()).toEqual([]);
  } finally {
    await cli.close();
  }
  expect(h.services.scheduler.names()).toEqual(expect.arrayContaining(["expire-files-trim-results", "expire-results", "compact-cache", "expire-jobs"]));
});
