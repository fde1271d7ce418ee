/**
 * The CDP guard (src/engines/browser/cdp-guard.ts) with real Chromium: a page's console call, uncaught error or
 * worker console over 1,000,000 characters is dropped before puppeteer parses it (the server never takes it in);
 * smaller ones, and large answers to crawlbox's own commands, pass.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { droppedPageEvents, MAX_PAGE_EVENT_CHARS } from "../../src/engines/browser/cdp-guard.ts";

let gate: EgressGate;
let browser: Browser;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
});
afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
});

describe("the CDP guard", () => {
  test("a page's huge console calls and errors are dropped unread; small ones and large answers pass", async () => {
    const page = await browser.newPage();
    const consoles: number[] = [];
    const errors: number[] = [];
    page.on("console", (m) => consoles.push(m.text().length));
    page.on("pageerror", (e) => errors.push(String((e as Error).message).length));
    const before = droppedPageEvents();
    await page.evaluate((n) => {
      console.log("x".repeat(n));
      console.log("small");
      setTimeout(() => {
        throw new Error("y".repeat(n));
      }, 0);
      setTimeout(() => {
        throw new Error("short");
      }, 10);
    }, MAX_PAGE_EVENT_CHARS + 10);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    expect(consoles).toEqual([5]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeLessThan(100);
    expect(droppedPageEvents() - before).toBe(2);
    // An answer to crawlbox's own command is not an event: a 3,000,000-character value comes back whole.
    expect(await page.evaluate(() => "z".repeat(3_000_000))).toHaveLength(3_000_000);
    await page.close();
  });
});
