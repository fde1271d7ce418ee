/**
 * Chromium's own sandbox (`CRAWLBOX_CHROMIUM_SANDBOX`, src/engines/browser/chromium.ts): which mode asks for it for
 * which user, and `auto` falling back to none, with Chromium's own reason told once, when Chromium cannot start with
 * it (here: as root, which Chromium refuses to sandbox), but not when Chromium fails for another reason. That an unprivileged crawlbox's renderers do run under seccomp is
 * shown end to end by test/e2e/binary.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium, NO_SANDBOX_ARG, wantsSandbox } from "../../src/engines/browser/chromium.ts";
import { loadConfig } from "../../src/config.ts";

const CHROMIUM = findChromium("")!;
let gate: EgressGate;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await gate.close();
});

describe("Chromium's own sandbox", () => {
  test("auto has it for any user but root; on always; off never; the setting is read and checked", () => {
    expect(wantsSandbox("auto", 0)).toBe(false);
    expect(wantsSandbox("auto", 1000)).toBe(true);
    expect(wantsSandbox("on", 0)).toBe(true);
    expect(wantsSandbox("off", 1000)).toBe(false);
    expect(loadConfig({}).chromiumSandbox).toBe("auto");
    expect(loadConfig({ CRAWLBOX_CHROMIUM_SANDBOX: "ON" }).chromiumSandbox).toBe("on");
    expect(() => loadConfig({ CRAWLBOX_CHROMIUM_SANDBOX: "maybe" })).toThrow(/CRAWLBOX_CHROMIUM_SANDBOX must be auto, on or off/);
  });

  test.skipIf(process.getuid?.() !== 0)("auto falls back to no sandbox, saying why once, where Chromium cannot start with it; on does not", async () => {
    const told: string[] = [];
    // A start that fails for another reason is the caller's error: nothing is told, and the sandbox stays wanted.
    await expect(launchChromium({ executablePath: "/bin/false", proxyUrl: gate.proxyUrl, sandbox: "auto", uid: 1000, timeoutMs: 5_000, onNoSandbox: (r) => told.push(r) })).rejects.toThrow();
    expect(told).toHaveLength(0);
    expect(wantsSandbox("auto", 1000)).toBe(true);
    // Root cannot have the sandbox: launched as if for another user, Chromium refuses, and auto starts it without.
    const browser = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, sandbox: "auto", uid: 1000, onNoSandbox: (r) => told.push(r) });
    try {
      expect(browser.process()!.spawnargs).toContain(NO_SANDBOX_ARG);
      expect((await (await browser.newPage()).evaluate(() => 6 * 7))).toBe(42);
    } finally {
      await closeChromium(browser);
    }
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("Running as root without --no-sandbox is not supported");
    // Later launches go without it at once, telling nothing more.
    const again = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, sandbox: "auto", uid: 1000, onNoSandbox: (r) => told.push(r) });
    await closeChromium(again);
    expect(told).toHaveLength(1);
    await expect(launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, sandbox: "on", timeoutMs: 10_000 })).rejects.toThrow();
  }, 60_000);
});
