/**
 * The page memory guard's bookkeeping (engines/browser/renderer-memory.ts) over stand-in browsers, whose renderers
 * and their memory the test chooses: which crash a kill explains; a renderer still showing its memory after its kill
 * is not killed again (which left its crash unexplained); a browser whose renderers `/proc` does not find is asked
 * for them; one that does not answer holds a lease's check once per list time, not at each. The real thing, on
 * Chromium, is page-memory.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { KILL_EXPLAINS_MS, RendererMemoryGuard } from "../../src/engines/browser/renderer-memory.ts";
import { silentLogger } from "../../src/log.ts";

/** A guard over a stand-in browser whose renderers are `pids`, each holding `bytes[pid]`; `pid`: its process's pid. */
function guardOver(pids: number[], bytes: Record<number, number>, options: { pid?: number; silent?: boolean } = {}) {
  const killed: number[] = [];
  let asked = 0;
  const send = async () => {
    asked++;
    if (options.silent) return new Promise<never>(() => {});
    return { processInfo: pids.map((id) => ({ type: "renderer", id, cpuTime: 0 })) };
  };
  const browser = {
    connected: true,
    target: () => ({ createCDPSession: async () => ({ send }) }),
    ...(options.pid !== undefined ? { process: () => ({ pid: options.pid }) } : {}),
  };
  const guard = new RendererMemoryGuard({ limitBytes: 100, browsers: () => [browser as never], busy: () => true, log: silentLogger, readBytes: (pid) => bytes[pid], kill: (pid) => void killed.push(pid) });
  return { guard, killed, asked: () => asked };
}

describe("which crash a kill explains", () => {
  test("one kill explains the next crash only; two at once, or an old one, explain none", async () => {
    const one = guardOver([1, 2], { 1: 500, 2: 50 });
    await one.guard.check();
    expect(one.killed).toEqual([1]);
    expect(one.guard.takeRecentKill()?.pid).toBe(1);
    expect(one.guard.takeRecentKill()).toBeUndefined();
    const two = guardOver([1, 2], { 1: 500, 2: 700 });
    await two.guard.check();
    expect(two.killed).toEqual([1, 2]);
    expect(two.guard.takeRecentKill()).toBeUndefined();
    const old = guardOver([3], { 3: 500 });
    await old.guard.check();
    expect(old.guard.takeRecentKill(performance.now() + KILL_EXPLAINS_MS + 1)).toBeUndefined();
  });

  test("a killed renderer still showing its memory is not killed again, so its crash is still explained", async () => {
    const { guard, killed } = guardOver([1], { 1: 500 });
    const [ticked, now] = await Promise.all([guard.check(), guard.checkNow()]);
    await guard.check();
    expect(killed).toEqual([1]);
    expect([ticked, now]).toEqual([1, true]);
    expect(guard.takeRecentKill()?.pid).toBe(1);
  });

  test("a lease's check says a kill is waiting for its crash, whichever measurement made it", async () => {
    const { guard } = guardOver([1], { 1: 500 });
    expect(await guard.check()).toBe(1);
    expect(await guard.checkNow()).toBe(true);
    guard.takeRecentKill();
    expect(await guard.checkNow()).toBe(false);
  });
});

describe("which renderers are measured", () => {
  test("a local browser whose renderers /proc does not find (a process tree it does not know) has Chromium's measured", async () => {
    // The stand-in's process is this test's, which has no renderer under it; Chromium lists renderer 7.
    const { guard, killed, asked } = guardOver([7], { 7: 500 }, { pid: process.pid });
    expect(await guard.check()).toBe(1);
    expect([killed, asked()]).toEqual([[7], 1]);
  });

  test("a local browser that does not answer for its process list holds a lease's check once per list time, not at each", async () => {
    const { guard, asked } = guardOver([], {}, { pid: process.pid, silent: true });
    await guard.check();
    const t0 = performance.now();
    expect(await Promise.all([guard.check(), guard.checkNow()])).toEqual([0, false]);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(asked()).toBe(1);
  }, 15_000);

  test("a browser /proc does not show is asked, and one that does not answer is asked again only after the list's time", async () => {
    const { guard, asked } = guardOver([], {}, { silent: true });
    const t0 = performance.now();
    await guard.check();
    const first = performance.now() - t0;
    await guard.checkNow();
    expect(asked()).toBe(1);
    expect(performance.now() - t0 - first).toBeLessThan(500);
  }, 15_000);
});
