/**
 * A stopping server waits for its requests (up to the grace period); a second SIGTERM or SIGINT while it waits ends
 * it at once, exit code 1, as an operator pressing Ctrl-C twice expects (it was ignored, and the server lived on
 * until the last request ended). Real processes.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "crawlbox-signal-"));
let hits = 0;
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch() {
    hits++;
    await Bun.sleep(8_000);
    return new Response("<p>late</p>", { headers: { "content-type": "text/html" } });
  },
});
afterAll(() => {
  site.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

test("a second stop signal while the server waits for a request ends it at once with exit code 1", async () => {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_AUTH: "off", CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true", CRAWLBOX_DATA_DIR: dir, CRAWLBOX_LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    for (let i = 0; i < 200; i++) {
      if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok).catch(() => false)) break;
      await Bun.sleep(50);
    }
    const pending = fetch(`http://127.0.0.1:${port}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${site.port}/slow`, timeout: 30_000 }),
    }).catch(() => undefined);
    for (let i = 0; i < 100 && hits === 0; i++) await Bun.sleep(20);
    expect(hits).toBe(1);
    server.kill("SIGTERM");
    await Bun.sleep(300);
    const t0 = performance.now();
    server.kill("SIGINT");
    expect(await server.exited).toBe(1);
    expect(performance.now() - t0).toBeLessThan(5_000); // the request had ~7 s to go
    expect(await new Response(server.stderr).text()).toContain("received again while shutting down");
    await pending;
  } finally {
    server.kill("SIGKILL");
  }
}, 30_000);
