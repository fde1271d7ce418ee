/**
 * The page memory limit (`CRAWLBOX_BROWSER_PAGE_MEMORY_MB`, engines/browser/renderer-memory.ts) and crashed pages
 * (page-crash.ts), end to end on real Chromium: a page over the limit is killed and its scrape fails at once saying
 * so (before, a page holding 6 GB of ArrayBuffers was scraped as a success); a page whose renderer dies for any
 * reason fails its scrape at once (before, the scrape waited for its whole timeout); JavaScript code over the limit
 * in a browser session's sandbox is stopped with exit code 137 while the session lives on; Python code gets
 * MemoryError below the limit instead; and a session whose own page is killed is lost with the reason. The guard's
 * bookkeeping, over stand-in browsers, is renderer-memory-guard.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defaultPageMemoryMb, loadConfig } from "../../src/config.ts";
import { pythonHeapMaxBytes } from "../../src/interact/sandbox/run.ts";
import { withHeapCeiling } from "../../src/interact/sandbox/python-assets.ts";
import { startCodeTestbed, type CodeTestbed } from "../interact/code-testbed.ts";
import { scrape } from "./helpers.ts";

const LIMIT_MB = 300;
/** Holds ~800 MB of ArrayBuffers (which V8's own heap limit does not count), then says it is done. */
const HOG = `<html><head><title>Hog</title></head><body><h1>Hog</h1><script>
  window.kept = [];
  for (let i = 0; i < 16; i++) { const u = new Uint8Array(50e6); u.fill(1); kept.push(u); }
</script><p>survived</p></body></html>`;

let bed: CodeTestbed;

beforeAll(async () => {
  bed = await startCodeTestbed({ "/hog": HOG, "/fine": "<html><head><title>Fine</title></head><body><h1>Fine</h1><p>A small page.</p></body></html>" }, { browserPageMemoryMb: LIMIT_MB });
});
afterAll(async () => {
  await bed?.close();
});

/** Kills every renderer of the harness's Chromium, as a crash would, and says how many it killed. */
async function killRenderers(): Promise<number> {
  const browser = await bed.h.services.engines.pool!.browser();
  const session = await browser.target().createCDPSession();
  const { processInfo } = await session.send("SystemInfo.getProcessInfo");
  await session.detach();
  const renderers = processInfo.filter((p) => p.type === "renderer");
  for (const p of renderers) process.kill(p.id, "SIGKILL");
  return renderers.length;
}

describe("the page memory limit", () => {
  test("its default follows the machine, between 512 and 2048 MB; it is checked; 0 turns it off", () => {
    expect(defaultPageMemoryMb(2, 23 * 2 ** 30)).toBe(2048);
    expect(defaultPageMemoryMb(2, 4 * 2 ** 30)).toBe(1024);
    expect(defaultPageMemoryMb(16, 4 * 2 ** 30)).toBe(512);
    expect(loadConfig({ CRAWLBOX_BROWSER_PAGE_MEMORY_MB: "0" }).browserPageMemoryMb).toBe(0);
    expect(loadConfig({ CRAWLBOX_BROWSER_PAGE_MEMORY_MB: "700" }).browserPageMemoryMb).toBe(700);
    expect(() => loadConfig({ CRAWLBOX_BROWSER_PAGE_MEMORY_MB: "100" })).toThrow(/CRAWLBOX_BROWSER_PAGE_MEMORY_MB must be 0 \(no limit\) or at least 256/);
    expect(() => loadConfig({ CRAWLBOX_BROWSER_PAGE_MEMORY_MB: "lots" })).toThrow(/CRAWLBOX_BROWSER_PAGE_MEMORY_MB must be an integer/);
  });

  test("Python's heap ceiling is three quarters of it, in WebAssembly pages, set in Pyodide's one place for it", () => {
    expect(pythonHeapMaxBytes(0)).toBe(0);
    expect(pythonHeapMaxBytes(LIMIT_MB * 2 ** 20)).toBe(225 * 2 ** 20);
    expect(pythonHeapMaxBytes(1000) % 65_536).toBe(0);
    const patched = withHeapCeiling("a;var getHeapMax=()=>4294901760;b");
    expect(patched).toBe("a;var getHeapMax=()=>Math.min(4294901760,globalThis.__crawlboxPythonHeapMax||4294901760);b");
    expect(() => withHeapCeiling("var getHeapMax=()=>2147483648")).toThrow(/getHeapMax was not found once/);
  });

  test("a page over it is killed: its scrape fails at once saying so, and the next scrape is served", async () => {
    const started = performance.now();
    const { status, body } = await scrape(bed.h, { url: `${bed.base}/hog`, formats: ["markdown"], waitFor: 1000, maxAge: 0, timeout: 60_000 });
    const tookMs = performance.now() - started;
    expect(status).toBe(500);
    expect(body.code).toBe("SCRAPE_SITE_ERROR");
    expect(body.error).toMatch(new RegExp(`^The page used \\d+ MB of memory, more than the ${LIMIT_MB} MB a browser page may use \\(CRAWLBOX_BROWSER_PAGE_MEMORY_MB\\), and was stopped\\.$`));
    expect(body.details.memory.limitMb).toBe(LIMIT_MB);
    expect(body.details.memory.usedMb).toBeGreaterThan(LIMIT_MB);
    expect(tookMs).toBeLessThan(20_000);
    const next = await scrape(bed.h, { url: `${bed.base}/fine`, formats: ["markdown"], waitFor: 100, maxAge: 0 });
    expect(next.status).toBe(200);
    expect(next.body.data.markdown).toContain("A small page.");
  }, 60_000);

  test("a page that grows past it between two of the guard's ticks is stopped when its lease is checked, before any answer", async () => {
    const pool = bed.h.services.engines.pool!;
    const lease = await pool.acquire({ deadline: performance.now() + 30_000 });
    try {
      // The guard's timer stops until the next lease: only the lease's own check can see the page.
      pool.memory.stop();
      await lease.page.goto(`${bed.base}/hog`).catch(() => undefined);
      const err = await lease.checkMemory().then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: "SCRAPE_SITE_ERROR", memory: { limitMb: LIMIT_MB } });
      expect(lease.crashed.aborted).toBe(true);
    } finally {
      lease.release({ suspect: true });
    }
    // Killed by a measurement just before the lease's own (a tick), its crash not yet reported: still not answered.
    const ticked = await pool.acquire({ deadline: performance.now() + 30_000 });
    try {
      pool.memory.stop();
      await ticked.page.goto(`${bed.base}/hog`).catch(() => undefined);
      expect(await pool.memory.check()).toBe(1);
      const err = await ticked.checkMemory().then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: "SCRAPE_SITE_ERROR", memory: { limitMb: LIMIT_MB } });
    } finally {
      ticked.release({ suspect: true });
    }
    // A page under the limit passes, at once.
    const fine = await pool.acquire({ deadline: performance.now() + 30_000 });
    try {
      await fine.page.goto(`${bed.base}/fine`);
      const t0 = performance.now();
      await fine.checkMemory();
      expect(performance.now() - t0).toBeLessThan(500);
    } finally {
      fine.release();
    }
  }, 60_000);

  test("a page read at once (no waitFor) that went over it fails its scrape saying so", async () => {
    const { status, body } = await scrape(bed.h, { url: `${bed.base}/hog`, formats: ["markdown"], mobile: true, maxAge: 0, timeout: 60_000 });
    expect([status, body.code, body.details?.memory?.limitMb]).toEqual([500, "SCRAPE_SITE_ERROR", LIMIT_MB]);
  }, 60_000);

  test("a page whose renderer dies fails its scrape at once, not at its timeout, and is not said to be over the limit", async () => {
    const started = performance.now();
    const pending = scrape(bed.h, { url: `${bed.base}/fine`, formats: ["markdown"], waitFor: 20_000, maxAge: 0, timeout: 60_000 });
    await Bun.sleep(2_500);
    expect(await killRenderers()).toBeGreaterThan(0);
    const { status, body } = await pending;
    expect(status).toBe(500);
    expect(body).toMatchObject({ success: false, code: "SCRAPE_SITE_ERROR", error: "The page crashed: the browser's renderer process for it died." });
    expect(body.details).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(10_000);
    // The warm pages' renderers died too: once Chromium has said so (its crash events come a moment after the kill),
    // they are not handed out, and the next scrapes are served at once.
    await Bun.sleep(500);
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const next = await scrape(bed.h, { url: `${bed.base}/fine`, formats: ["markdown"], waitFor: 100, maxAge: 0, timeout: 20_000 });
      expect([next.status, next.body.data?.markdown?.includes("A small page.")]).toEqual([200, true]);
      expect(performance.now() - t0).toBeLessThan(10_000);
    }
  }, 90_000);

  test("JavaScript code over it is stopped with exit code 137 and the reason; Python gets MemoryError; the session lives on", async () => {
    const s = await bed.session();
    try {
      const js = await s.run("const kept = []; for (;;) { const u = new Uint8Array(50e6); u.fill(1); kept.push(u); }", "node", 60);
      expect(js.exitCode).toBe(137);
      expect(js.killed).toBe(true);
      expect(js.stderr).toMatch(new RegExp(`^Stopped: The page used \\d+ MB of memory, more than the ${LIMIT_MB} MB a browser page may use`));
      expect(js.stderr).not.toContain("the session was closed");
      const py = await s.run("try:\n  x = bytearray(400 * 1024 * 1024)\n  print('allocated')\nexcept MemoryError:\n  print('MemoryError')\nprint(len(bytearray(20 * 1024 * 1024)))", "python", 60);
      expect({ stdout: py.stdout, exitCode: py.exitCode }).toEqual({ stdout: "MemoryError\n20971520\n", exitCode: 0 });
      expect((await s.run("return 6 * 7", "node")).result).toBe("42");
    } finally {
      await s.end().catch(() => undefined);
    }
  }, 120_000);

  test("a session whose own page goes over it is lost, with the reason", async () => {
    const s = await bed.session();
    try {
      const res = await bed.h.request(`/v2/browser/${s.id}/execute`, { method: "POST", json: { code: `agent-browser open ${bed.base}/hog`, language: "bash", timeout: 60 } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(410);
      expect(body.code).toBe("INTERACT_SESSION_LOST");
      expect(body.error).toMatch(/^The page used \d+ MB of memory, more than the 300 MB a browser page may use .* The browser session was lost/);
    } finally {
      await s.end().catch(() => undefined);
    }
  }, 60_000);
});

describe("opening a session on a page over the limit", () => {
  test("a scrape's interact session whose page is killed while it opens says why, at once", async () => {
    // Read over plain HTTP (its script never runs), then opened in a browser session, where it is.
    const read = await scrape(bed.h, { url: `${bed.base}/hog`, formats: ["markdown"], maxAge: 0 });
    expect([read.status, read.body.data?.metadata?.engine]).toEqual([200, "http"]);
    const started = performance.now();
    const res = await bed.h.request(`/v2/scrape/${read.body.data.metadata.scrapeId}/interact`, { method: "POST", json: { code: "agent-browser get title", language: "bash" } });
    const body = (await res.json()) as any;
    expect([res.status, body.code]).toEqual([410, "INTERACT_SESSION_LOST"]);
    expect(body.error).toMatch(new RegExp(`^The page used \\d+ MB of memory, more than the ${LIMIT_MB} MB`));
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
