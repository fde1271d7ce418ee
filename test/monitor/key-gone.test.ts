/**
 * A monitor whose key is gone stops (docs/monitor.md "Schedules"): a key removed from CRAWLBOX_API_KEYS is gone as
 * a revoked key is (nobody can present it, so nobody could list, pause or delete its monitors), and its monitor is
 * paused at its next tick, after a restart without the key; one made with CRAWLBOX_AUTH=off runs while auth is off
 * and is paused once it is on. Each "restart" is a new service graph on the same data folder.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCreateMonitorBody } from "../../src/api/monitor.ts";
import { testConfig, type Config } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createServices, type Services } from "../../src/server/services.ts";
import { ANONYMOUS } from "../../src/server/auth.ts";

const ENV_KEY = "fc-env-key-for-monitors-0001";
let site: ReturnType<typeof Bun.serve>;
let dataDir: string;

beforeAll(() => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><main><p>A page.</p></main></body></html>", { headers: { "content-type": "text/html" } }) });
  dataDir = mkdtempSync(join(tmpdir(), "crawlbox-key-gone-"));
});
afterAll(() => {
  site.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the server's services on the shared data folder (as `crawlbox serve` does, monitors scheduled), runs `fn`, stops them. */
async function withServer<T>(overrides: Partial<Config>, fn: (s: Services) => Promise<T> | T): Promise<T> {
  const s = await createServices(testConfig({ dataDir, ...overrides }), { log: silentLogger });
  try {
    s.monitors.start();
    return await fn(s);
  } finally {
    await s.close();
  }
}

const body = () => ({ name: "watched", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`http://127.0.0.1:${site.port}/a`] }] });

/** Waits until the check has ended, so the server can stop without leaving it running. */
async function ended(s: Services, monitorId: string, checkId: string): Promise<void> {
  for (let i = 0; i < 400 && ["queued", "running"].includes(s.monitorStore.getCheck(monitorId, checkId)!.status); i++) await Bun.sleep(25);
}

describe("a monitor whose key is gone", () => {
  test("an environment key: its monitor runs while the key is configured, and is paused at the next tick after a restart without it", async () => {
    const id = await withServer({ apiKeys: [ENV_KEY] }, async (s) => {
      const m = s.monitors.create(parseCreateMonitorBody(body()), s.keys.verify(ENV_KEY)!);
      const check = s.monitors.tick(m.id)!;
      expect(check.status).not.toStartWith("skipped");
      await ended(s, m.id, check.id);
      return m.id;
    });
    // Restarted with the key still there: it still runs.
    await withServer({ apiKeys: [ENV_KEY, "fc-another-env-key-0002"] }, async (s) => {
      expect(s.monitors.nextRunAt(id)).toBeInstanceOf(Date);
      const check = s.monitors.tick(id)!;
      expect(check).toBeDefined();
      await ended(s, id, check.id);
    });
    // Restarted without it: paused, unscheduled, nothing started or charged.
    await withServer({ apiKeys: ["fc-another-env-key-0002"] }, (s) => {
      const checks = s.monitorStore.checks(id, 100, 0).length;
      expect(s.monitors.tick(id)).toBeUndefined();
      expect(s.monitorStore.get(id)!.status).toBe("paused");
      expect(s.monitors.nextRunAt(id)).toBeUndefined();
      expect(s.monitorStore.checks(id, 100, 0)).toHaveLength(checks);
    });
  });

  test("CRAWLBOX_AUTH=off: an anonymous monitor runs while auth is off, and is paused once it is on", async () => {
    const id = await withServer({ authEnabled: false }, async (s) => {
      const m = s.monitors.create(parseCreateMonitorBody(body()), ANONYMOUS);
      const check = s.monitors.tick(m.id)!;
      expect(check.status).not.toStartWith("skipped");
      await ended(s, m.id, check.id);
      return m.id;
    });
    await withServer({ apiKeys: [ENV_KEY] }, (s) => {
      expect(s.monitors.tick(id)).toBeUndefined();
      expect(s.monitorStore.get(id)!.status).toBe("paused");
    });
  });
});
