/**
 * Which processes the page memory guard measures (engines/browser/renderer-pids.ts), on real Chromium: `/proc`
 * finds exactly the renderers Chromium itself lists, and a renderer started a moment after the guard's last check
 * is measured at the very next one. Before, the guard reused Chromium's list for 2 s, so a new page's renderer went
 * unwatched that long (a session's `agent-browser open` of a page allocating 800 MB answered 200 before its
 * renderer was killed).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "puppeteer-core";
import { RendererMemoryGuard } from "../../src/engines/browser/renderer-memory.ts";
import { RendererPidFinder } from "../../src/engines/browser/renderer-pids.ts";
import { silentLogger } from "../../src/log.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, htmlPage } from "./helpers.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  h = await browserHarness();
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => htmlPage("<h1>A page</h1>") });
  browser = await h.services.engines.pool!.browser();
});
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

/** The renderer pids Chromium lists. */
async function chromiumRenderers(): Promise<number[]> {
  const session = await browser.target().createCDPSession();
  const { processInfo } = await session.send("SystemInfo.getProcessInfo");
  await session.detach();
  return processInfo.filter((p) => p.type === "renderer").map((p) => p.id).sort((a, b) => a - b);
}

/** Opens the site in a page of a new browser context (a new renderer). */
async function openPage(): Promise<void> {
  const context = await browser.createBrowserContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${site.port}/`);
}

test("/proc finds exactly the renderers Chromium lists, under its browser process only", async () => {
  await openPage();
  const browserPid = browser.process()!.pid!;
  const found = new RendererPidFinder().find([browserPid, process.pid])!;
  const listed = await chromiumRenderers();
  expect(listed.length).toBeGreaterThan(0);
  expect([...found.get(browserPid)!].sort((a, b) => a - b)).toEqual(listed);
  expect(found.get(process.pid)).toEqual([]);
}, 60_000);

test("a renderer started just after a check is measured at the next one", async () => {
  const measured: number[] = [];
  const guard = new RendererMemoryGuard({
    limitBytes: 2 ** 40,
    browsers: () => [browser],
    busy: () => true,
    log: silentLogger,
    readBytes: (pid) => void measured.push(pid),
  });
  await guard.check();
  const before = await chromiumRenderers();
  expect(before.every((pid) => measured.includes(pid))).toBe(true);
  await openPage();
  const started = (await chromiumRenderers()).filter((pid) => !before.includes(pid));
  expect(started.length).toBeGreaterThan(0);
  measured.length = 0;
  await guard.check();
  expect(started.filter((pid) => !measured.includes(pid))).toEqual([]);
  guard.stop();
}, 60_000);
