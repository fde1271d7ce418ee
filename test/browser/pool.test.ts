/**
 * The browser pool with real Chromium: retirement after N pages, a fresh context per lease, a hung browser
 * replaced, bounded concurrency; and `crawlbox serve` leaving no Chromium behind after SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { BrowserPool, findChromium } from "../../src/engines/browser/index.ts";
import { launchChromium } from "../../src/engines/browser/chromium.ts";
import { silentLogger } from "../../src/log.ts";
import { startJsSite, type JsSite } from "../fixtures/js-pages.ts";

const CHROMIUM = findChromium("")!;
let gate: EgressGate;
let site: JsSite;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  site = startJsSite();
});
afterAll(async () => {
  await gate.close();
  site.stop();
});

const far = () => performance.now() + 20_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("BrowserPool", () => {
  test("retires the browser after N pages; contexts never share cookies", async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 2, log: silentLogger });
    try {
      const a = await pool.acquire({ deadline: far() });
      await a.page.goto(`${site.url}/profile`);
      expect(await a.page.evaluate(() => document.cookie)).toContain("seen=yes");
      const firstPid = pool.pids()[0]!;
      a.release();
      const b = await pool.acquire({ deadline: far() });
      await b.page.goto(`${site.url}/static`);
      expect(await b.page.evaluate(() => document.cookie)).toBe("");
      expect(b.generation).toBe(1);
      b.release(); // second page: retired, closed once idle
      const c = await pool.acquire({ deadline: far() });
      expect(c.generation).toBe(2);
      c.release();
      for (let i = 0; i < 50 && alive(firstPid); i++) await Bun.sleep(50);
      expect(alive(firstPid)).toBe(false);
      expect(pool.launches).toBe(2);
    } finally {
      await pool.close();
    }
    expect(pool.pids()).toEqual([]);
  });

  test("an unused browser is closed after idleCloseMs (not while a lease is held), and the next acquire starts one", async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 100, log: silentLogger, idleCloseMs: 300 });
    try {
      const held = await pool.acquire({ deadline: far() });
      const pid = pool.pids()[0]!;
      await Bun.sleep(700); // held: in use, not idle
      expect(alive(pid)).toBe(true);
      held.release();
      // The process ends a moment before the pool has finished disposing of it (and forgets its pid): wait for both.
      for (let i = 0; i < 60 && (alive(pid) || pool.pids().length > 0); i++) await Bun.sleep(50);
      expect(alive(pid)).toBe(false);
      expect(pool.pids()).toEqual([]);
      const next = await pool.acquire({ deadline: far() });
      await next.page.goto(`${site.url}/static`);
      expect(next.generation).toBe(2);
      next.release();
    } finally {
      await pool.close();
    }
    expect(pool.pids()).toEqual([]);
  });

  test("a retired browser and a clean close let Chromium exit by itself, not by SIGKILL", async () => {
    // How each launched Chromium ended: its exit code, or the signal that ended it.
    const ends: Promise<{ code: number | null; signal: string | null }>[] = [];
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      proxyUrl: gate.proxyUrl,
      concurrency: 1,
      retireAfterPages: 1,
      log: silentLogger,
      launch: async (options) => {
        const browser = await launchChromium(options);
        const proc = browser.process()!;
        ends.push(new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal }))));
        return browser;
      },
    });
    const a = await pool.acquire({ deadline: far() });
    a.release(); // its only page: retired, and closed now that it is idle
    const b = await pool.acquire({ deadline: far() });
    b.release();
    await pool.close();
    expect(ends).toHaveLength(2);
    expect(await Promise.all(ends)).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  });

  test("a hung browser (SIGSTOP) is killed and replaced after a suspect release", async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 100, log: silentLogger });
    try {
      const a = await pool.acquire({ deadline: far() });
      const pid = pool.pids()[0]!;
      process.kill(pid, "SIGSTOP");
      a.release({ suspect: true });
      for (let i = 0; i < 100 && alive(pid); i++) await Bun.sleep(50);
      expect(alive(pid)).toBe(false);
      const b = await pool.acquire({ deadline: far() });
      expect(b.generation).toBe(2);
      await b.page.goto(`${site.url}/static`);
      b.release();
    } finally {
      await pool.close();
    }
  });

  test("concurrency is bounded; a waiter past its deadline gets SCRAPE_TIMEOUT", async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 100, log: silentLogger });
    try {
      const a = await pool.acquire({ deadline: far() });
      const err = await pool.acquire({ deadline: performance.now() + 200 }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("SCRAPE_TIMEOUT");
      const waiting = pool.acquire({ deadline: far() });
      a.release();
      (await waiting).release();
      expect(pool.running).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

describe("BrowserPool under retirement and slow page opening", () => {
  test("a page opened while the browser retires is served (not closed under it by another lease's release)", async () => {
    // Two warm pages are taken at once and the second of them retires the browser; the third lease opens a new
    // page meanwhile (slowed down here), and the first two are released before it is ready.
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      proxyUrl: gate.proxyUrl,
      concurrency: 3,
      retireAfterPages: 2,
      log: silentLogger,
      prepare: () => Bun.sleep(150),
    });
    const failures: string[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        await pool.warmUp();
        await Bun.sleep(500); // the two warm pages are ready
        await Promise.all(
          Array.from({ length: 3 }, () =>
            pool.acquire({ deadline: far() }).then(
              async (lease) => {
                try {
                  expect(await lease.page.evaluate(() => 1 + 1)).toBe(2);
                } catch (err) {
                  failures.push(String(err));
                } finally {
                  lease.release();
                }
              },
              (err: unknown) => failures.push(String(err)),
            ),
          ),
        );
      }
      expect(failures).toEqual([]);
      expect(pool.running).toBe(0);
    } finally {
      await pool.close();
    }
  }, 60_000);

  test("a browser that hangs while opening a page is probed at the scrape's deadline and replaced", async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 100, log: silentLogger });
    try {
      await pool.warmUp();
      await Bun.sleep(500); // the warm page is ready
      const pid = pool.pids()[0]!;
      process.kill(pid, "SIGSTOP");
      (await pool.acquire({ deadline: far() })).release(); // the ready page: no call to the stopped browser
      const started = performance.now();
      const err = await pool.acquire({ deadline: performance.now() + 3_500 }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("SCRAPE_TIMEOUT");
      // Probed at that deadline (not when the page arrives, which is never): killed and replaced within seconds.
      const next = await pool.acquire({ deadline: far() });
      expect(next.generation).toBe(2);
      expect(performance.now() - started).toBeLessThan(12_000);
      expect(alive(pid)).toBe(false);
      await next.page.goto(`${site.url}/static`);
      next.release();
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("the deadline bounds opening the page too; a page that arrives late is handed back", async () => {
    let slow = true;
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      proxyUrl: gate.proxyUrl,
      concurrency: 1,
      retireAfterPages: 100,
      log: silentLogger,
      // A browser that takes 3 s to get a page ready (as one flooded by another page's script would).
      prepare: async () => {
        if (slow) await Bun.sleep(3_000);
      },
    });
    try {
      await pool.warmUp();
      const started = performance.now();
      const err = await pool.acquire({ deadline: performance.now() + 500 }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("SCRAPE_TIMEOUT");
      expect((err as Error).message).toContain("waiting for the browser to open a page");
      expect(performance.now() - started).toBeLessThan(1_500);
      slow = false;
      // The late page is released when it arrives: the slot is free again for the next scrape.
      const next = await pool.acquire({ deadline: far() });
      await next.page.goto(`${site.url}/static`);
      next.release();
      expect(pool.running).toBe(0);
    } finally {
      await pool.close();
    }
  }, 30_000);
});

describe("crawlbox serve and SIGTERM", () => {
  test("no Chromium is left after a SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-sigterm-"));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "src", "main.ts"), "serve"], {
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_AUTH: "off", CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true", CRAWLBOX_LOG_LEVEL: "error" },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      let up = false;
      for (let i = 0; i < 100 && !up; i++) {
        up = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
        if (!up) await Bun.sleep(100);
      }
      expect(up).toBe(true);
      const res = await fetch(`http://127.0.0.1:${port}/v2/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${site.url}/csr` }),
      });
      expect(((await res.json()) as any).data.metadata.engine).toBe("browser");
      const children = childPids(proc.pid);
      expect(children.length).toBeGreaterThan(0);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      for (const pid of children) expect(alive(pid)).toBe(false);
    } finally {
      proc.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Direct children of `pid` (Chromium's main process is one). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}
