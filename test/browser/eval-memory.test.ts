/**
 * A script's evaluations leave nothing of their values in the page, each way a script runs (engines/browser/script.ts)
 * and a function run on an element (interact/isolated-world.ts `WorldElement.call`, in the code world), with real
 * Chromium and a local page: after five evaluations that each build a 50 MB string, the page's JavaScript heap
 * (`Runtime.getHeapUsage` after `HeapProfiler.collectGarbage`) is within a few MB of where it started. Before, a
 * script with a top-level `await` ran in CDP's REPL mode with its `let`/`const` as the page's globals: each new name
 * kept its 50 MB (250 MB after five calls), and the same name kept the last one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { evaluateScript, OversizedResult } from "../../src/engines/browser/script.ts";
import { TRUSTED_JSON_SOURCE } from "../../src/engines/browser/trusted-json.ts";
import { worldElement } from "../../src/interact/isolated-world.ts";
import { PageOpError } from "../../src/interact/page-ops.ts";

const BOUND = 1_000_000;
/** A flat 50,000,000-character string (`"x".repeat` would make a rope of a few hundred bytes). */
const BIG = `Array(5e6).fill("abcdefghij").join("")`;
/** What five calls may leave on the heap in all: a tenth of one value. */
const SLACK_BYTES = 5_000_000;

let site: ReturnType<typeof Bun.serve>;
let gate: EgressGate;
let browser: Browser;
let page: Page;
/** The page's CDP session, as an interact session's. */
let session: CDPSession;
/** A session of its own for measuring. */
let probe: CDPSession;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // The page declares `taken` itself: a script's `const taken` was refused in REPL mode.
    fetch: () => new Response(`<!doctype html><html><head><title>t</title><script>let taken = 1;</script></head><body><p id="p">para</p></body></html>`, { headers: { "content-type": "text/html" } }),
  });
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  page = await browser.newPage();
  await page.evaluateOnNewDocument(TRUSTED_JSON_SOURCE);
  await page.goto(`http://127.0.0.1:${site.port}/`);
  session = await page.createCDPSession();
  probe = await page.createCDPSession();
});
afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
  site.stop(true);
});

/** The page's heap in use, in bytes, after a full collection. */
async function heapBytes(): Promise<number> {
  await probe.send("HeapProfiler.collectGarbage");
  return (await probe.send("Runtime.getHeapUsage")).usedSize;
}

/** Whether what calls left on the heap is more than {@link SLACK_BYTES}. */
const tooMuch = (bytes: number) => bytes >= SLACK_BYTES;

/** Runs `once(i)` five times; the heap each left, in bytes over what there was before the first. */
async function leftAfterFive(once: (i: number) => Promise<unknown>): Promise<number[]> {
  const baseline = await heapBytes();
  const left: number[] = [];
  for (let i = 0; i < 5; i++) {
    await once(i);
    left.push((await heapBytes()) - baseline);
  }
  return left;
}

describe("evaluations leave nothing of their values in the page", () => {
  test("a script with a top-level await: its let, const and class end with it (250 MB were kept after five calls)", async () => {
    const distinct = await leftAfterFive(async (i) => {
      expect(await evaluateScript(page, `await null; const big${i} = ${BIG}; class K${i} {} big${i}.length`, BOUND)).toEqual({ type: "number", value: 5e7 });
    });
    const same = await leftAfterFive(async () => {
      expect(await evaluateScript(page, `await null; let big = ${BIG}; big.length`, BOUND)).toEqual({ type: "number", value: 5e7 });
    });
    expect({ distinct: distinct.filter(tooMuch), same: same.filter(tooMuch) }).toEqual({ distinct: [], same: [] });
    // Nothing of them is a global; a name the page declared is the script's own, and the value is kept.
    expect((await evaluateScript(page, `[typeof big0, typeof big, typeof K0].join()`)).value).toBe("undefined,undefined,undefined");
    expect(await evaluateScript(page, `const taken = await Promise.resolve(5); taken * 2`, BOUND)).toEqual({ type: "number", value: 10 });
    expect((await evaluateScript(page, `taken`)).value).toBe(1);
  }, 120_000);

  test("a value refused for its size, each way a script runs, and one run on an element", async () => {
    for (const script of [BIG, `await null; ${BIG}`, `return ${BIG}`, `const s = ${BIG}; [s, s]`]) {
      const left = await leftAfterFive(async () => {
        expect(await evaluateScript(page, script, BOUND).catch((e: unknown) => e)).toBeInstanceOf(OversizedResult);
      });
      expect({ script, left: left.filter(tooMuch) }).toEqual({ script, left: [] });
    }
    const left = await leftAfterFive(async () => {
      const el = await worldElement(page, session, `document.querySelector("#p")`);
      expect(await el!.call(`function () { this.__kept = 1; return [${BIG}]; }`).catch((e: unknown) => e)).toBeInstanceOf(PageOpError);
      expect(await el!.call(`function () { return ${BIG}.length; }`)).toBe(5e7);
    });
    expect(left.filter(tooMuch)).toEqual([]);
  }, 120_000);
});
