/**
 * A stopping server answers every request it had accepted. Requests still running when the shutdown grace
 * (`CRAWLBOX_SHUTDOWN_GRACE_MS`) ends are answered `503 SERVER_STOPPING` in the /v2 error shape, and the process
 * exits 0 soon after: a scrape of a page whose body never ends, a scrape waiting in the scrape queue behind it, the
 * same through /v1, a map and a search whose backend never answers. Before, their connections were closed at the
 * grace's end without an answer (ECONNRESET). New connections during the drain are refused (the server no longer
 * listens), /health included. A real `bun src/main.ts serve` process; local fixtures only.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../jobs/restart-helpers.ts";

const ROOT = join(import.meta.dir, "..", "..");
const GRACE_MS = 1_500;
const dir = mkdtempSync(join(tmpdir(), "crawlbox-shutdown-answers-"));
/** Requests the fixture received, by path. */
const seen = new Map<string, number>();
/** A site (and a SearXNG) whose every answer starts and never ends. */
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const path = new URL(req.url).pathname;
    seen.set(path, (seen.get(path) ?? 0) + 1);
    const body = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("<html><body><p>the rest never comes")) });
    return new Response(body, { headers: { "content-type": path === "/search" ? "application/json" : "text/html" } });
  },
});
afterAll(() => {
  site.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor(what: string, done: () => boolean, limitMs = 10_000): Promise<void> {
  const until = performance.now() + limitMs;
  while (!done()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

test("requests still running at the grace's end are answered 503 SERVER_STOPPING, and the server exits 0", async () => {
  const port = freePort();
  const api = `http://127.0.0.1:${port}`;
  const fixture = `http://127.0.0.1:${site.port}`;
  const server = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      CRAWLBOX_DATA_DIR: dir,
      CRAWLBOX_AUTH: "off",
      CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true",
      CRAWLBOX_LOG_LEVEL: "warn",
      CRAWLBOX_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // One scrape at a time, so that the second waits in the scrape queue (which does not watch its signal).
      CRAWLBOX_MAX_CONCURRENCY: "1",
      SEARXNG_ENDPOINT: fixture,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    for (let i = 0; i < 400; i++) {
      if (await fetch(`${api}/health`).then((r) => r.ok).catch(() => false)) break;
      if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
      await Bun.sleep(50);
    }
    const post = (path: string, body: unknown) =>
      fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
        .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
        .catch((err: unknown) => ({ status: 0, body: { noAnswer: String(err) } as Record<string, unknown> }));

    const running = post("/v2/scrape", { url: `${fixture}/running`, timeout: 60_000 });
    await waitFor("the first scrape to reach the site", () => seen.has("/running"));
    const queued = post("/v2/scrape", { url: `${fixture}/queued`, timeout: 60_000 });
    const v1 = post("/v1/scrape", { url: `${fixture}/v1`, timeout: 60_000 });
    const map = post("/v2/map", { url: `${fixture}/map`, timeout: 60_000 });
    const search = post("/v2/search", { query: "never answered", timeout: 60_000 });
    await waitFor("the map and the search to reach the site", () => seen.has("/search") && (seen.has("/robots.txt") || seen.has("/map")));
    await Bun.sleep(200); // the queued scrapes are in the queue by now
    expect(seen.has("/queued")).toBe(false);

    const stopAt = performance.now();
    process.kill(server.pid, "SIGTERM");
    await Bun.sleep(300);
    // Not listening any more: a new connection is refused at once, /health too (a load balancer takes it out).
    expect(await fetch(`${api}/health`).then((r) => `answered ${r.status}`).catch(() => "refused")).toBe("refused");

    const answers = { running: await running, queued: await queued, v1: await v1, map: await map, search: await search };
    for (const [name, answer] of Object.entries(answers)) {
      expect({ name, ...answer }).toMatchObject({ name, status: 503, body: { success: false, code: "SERVER_STOPPING" } });
      expect(String(answer.body.error)).toContain("stopping");
    }
    expect(await server.exited).toBe(0);
    const tookMs = performance.now() - stopAt;
    expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(tookMs).toBeLessThan(GRACE_MS + 2_500);
    expect(await new Response(server.stderr).text()).toContain("answered 503 SERVER_STOPPING");
  } finally {
    if (server.exitCode === null) process.kill(server.pid, "SIGKILL");
  }
}, 60_000);
