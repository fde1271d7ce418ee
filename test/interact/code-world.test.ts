/**
 * A locator's `evaluate` runs the caller's function in an isolated world of its own, measured there by functions taken
 * when that world was made (src/interact/code-world.ts), with real Chromium through the official SDK. Before, it ran
 * in crawlbox's world and was measured by whatever `JSON.stringify` that world had: a function that replaced it had
 * a 2 MB value (and every later read of the document) answer `"small"`, one whose replacement returned an object sent
 * it across the DevTools connection unmeasured, a source written to close crawlbox's wrapper brought 20 MB back past
 * the 1 MB bound, and an error's 20 MB message crossed whole. Now the budget holds whatever the code replaced.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { CODE_KIT, evaluateInCodeWorld } from "../../src/interact/code-world.ts";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

let tb: CodeTestbed;
let s: CodeSession;
const BOUND = 1_000_000;
/** The refusal as evaluateInCodeWorld throws it (the SDK takes the "Error: " off). */
const OVER_FN = `ERROR Error: the value is more than ${BOUND} characters, over the ${BOUND} that are read`;
const OVER = `ERROR the value is more than ${BOUND} characters, over the ${BOUND} that are read`;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/p": `<html><head><title>P</title></head><body><p id="p">para</p><ul>${"<li>item</li>".repeat(3)}</ul></body></html>` });
  s = await tb.session();
  expect(await s.run(`await page.goto("${tb.base}/p")`, "node")).toMatchObject({ exitCode: 0 });
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

/** What `code` (an async function's body) gives the code, as its type and JSON, or "ERROR" and the message it throws. */
const run = async (code: string) => {
  const r = await s.run(`try { const v = await (async () => { ${code} })(); return typeof v + " " + JSON.stringify(v); } catch (e) { return "ERROR " + e.message; }`, "node", 60);
  expect(r).toMatchObject({ exitCode: 0, stderr: "" });
  return r.result as string;
};

describe("a locator's evaluate keeps its budget whatever the caller's code replaces", () => {
  test("a replaced JSON.stringify or Array.isArray changes no measure, in the call or after it; crawlbox's reads are untouched", async () => {
    // Said "small" before: the replacement measured the 2 MB value.
    const replaces = `JSON.stringify = () => '"small"'; Array.isArray = () => false;`;
    expect(await run(`return page.locator("#p").evaluate(() => { ${replaces} return ["x".repeat(2e6)]; })`)).toBe(OVER);
    // The replacement stays in the world the caller's code runs in, for the document: the next call is still measured.
    expect(await run(`return page.locator("#p").evaluate(() => ["x".repeat(2e6)])`)).toBe(OVER);
    expect(await run(`return page.locator("#p").evaluate(() => JSON.stringify({ a: 1 }))`)).toBe(`string "\\"small\\""`);
    // Values within the bound come back as JSON writes them; crawlbox's own reads are not the caller's world's.
    expect(await run(`return page.locator("#p").evaluate((el) => ({ t: el.textContent, n: [1, 2] }))`)).toBe(`object {"t":"para","n":[1,2]}`);
    expect(await run(`return page.locator("li").allTextContents()`)).toBe(`object ["item","item","item"]`);
    expect(await run(`return page.title()`)).toBe(`string "P"`);
  }, 120_000);

  test("a replacement answering an object, a replaced typed-array length and a string prototype are not used", async () => {
    // Sent a 20 MB object across unmeasured before (the code got undefined).
    expect(await run(`return page.locator("#p").evaluate(() => { JSON.stringify = () => ({ big: "x".repeat(2e7) }); return [1]; })`)).toBe(`object [1]`);
    const lies = `Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), "length", { get: () => 0 }); String.prototype.slice = function () { return "y".repeat(2e6); };`;
    expect(await run(`return page.locator("#p").evaluate(() => { ${lies} return new Uint8Array(1e8); })`)).toBe(OVER);
    // crawlbox cuts a title with slice in its own world, where the caller's code does not run (2,000,000 before).
    expect(await run(`return (await page.title()).length`)).toBe("number 1");
    expect(await run(`return page.locator("#p").textContent()`)).toBe(`string "para"`);
    expect(await run(`return page.locator("#p").evaluate(() => { throw new Error("z".repeat(2e7)); })`)).toBe(`ERROR ${"z".repeat(293)}`);
    expect(await run(`return page.locator("#p").evaluate(() => { throw new TypeError("t"); })`)).toBe("ERROR TypeError: t");
  }, 120_000);

  test("a source written to close crawlbox's wrapper and answer for it is compiled as the caller's own, and measured", async () => {
    // Against the wrapper crawlbox pasted it into, this made the last of three functions the one called: 20 MB came back.
    const closing = `0); }).call(this, arg)); }, function (arg) { return ((function (arg) { return (() => ({ json: '"' + "x".repeat(2e7) + '"' })`;
    const got = await run(`const v = await page.locator("#p").evaluate(${JSON.stringify(closing)}); return typeof v === "string" ? v.length : v;`);
    expect(got).toStartWith("ERROR SyntaxError");
    // The page still answers.
    expect(await run(`return page.locator("#p").evaluate((el) => el.id)`)).toBe(`string "p"`);
  }, 120_000);
});

/**
 * Function level, with a page and a CDP session of its own. Chromium answers `Page.createIsolatedWorld` with the world
 * it has for a name in the document; when an element the page moved into a `<template>`'s content was read, the code
 * world was taken for stale and "remade" under its name: the kit was rebuilt in the world where the caller's code had
 * replaced `JSON.stringify`, and a 2 MB value came back "small". A thrown symbol's description crossed whole (20 MB).
 */
describe("the code world, function level", () => {
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(`<html><body><p id="p">A</p><p id="q">Q</p><template id="t"></template></body></html>`, { headers: { "content-type": "text/html" } }),
  });
  let gate: EgressGate;
  let browser: Browser;
  let session: CDPSession;
  let page: Page;
  beforeAll(async () => {
    gate = await createEgressGate({ allowPrivateNetwork: true });
    browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
    page = await browser.newPage();
    session = await page.createCDPSession();
    await page.goto(`http://127.0.0.1:${site.port}/`);
  });
  afterAll(async () => {
    await closeChromium(browser);
    await gate.close();
    site.stop(true);
  });
  /** A handle on the element `selector` finds, in a world of the test's (the page's main one). */
  const element = async (selector: string) => (await session.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)})` })).result.objectId!;
  const call = (id: string, src: string) => evaluateInCodeWorld(session, id, src, null, BOUND).then((v) => v, (e: Error) => `ERROR ${e.message}`);

  test("an element moved out of the page's document is a clear error, and the world the caller's code changed is never reused for a kit", async () => {
    const q = await element("#q");
    expect(await call(q, `function () { JSON.stringify = () => '"small"'; return 1; }`)).toBe(1);
    expect(await call(q, `function () { return ["x".repeat(2e6)]; }`)).toBe(OVER_FN);
    const p = await element("#p");
    await session.send("Runtime.evaluate", { expression: `document.querySelector("#t").content.appendChild(document.querySelector("#p"))` });
    // Before: the world was "remade" (the same one, poisoned), and the call answered 1 on the node anyway.
    expect(await call(p, `function () { return 1; }`)).toBe("ERROR the element is not in the page's document (the page moved it into a template's content or another document)");
    // Before: "small".
    expect(await call(q, `function () { return ["x".repeat(2e6)]; }`)).toBe(OVER_FN);
    // Back in the document, it is read again.
    await session.send("Runtime.evaluate", { expression: `document.body.appendChild(document.querySelector("#t").content.firstChild)` });
    expect(await call(p, `function () { return this.textContent; }`)).toBe("A");
    // A new document: a new world, made once, and measured.
    await page.goto(`http://127.0.0.1:${site.port}/`);
    expect(await call(await element("#q"), `function () { return [this.id, "x".repeat(2e6)]; }`)).toBe(OVER_FN);
    expect(await call(await element("#q"), `function () { return this.id; }`)).toBe("q");
  }, 60_000);

  test("a thrown symbol's description is cut in the page to 300 characters", async () => {
    const q = await element("#q");
    const got = (await call(q, `function () { throw Symbol("s".repeat(2e7)); }`)) as string;
    expect(got.length).toBeLessThanOrEqual("ERROR ".length + 300);
    expect(got).toStartWith("ERROR Symbol(sss");
    // What the kit answers, and so what crosses the DevTools connection: 20,000,008 characters before.
    const { result } = await session.send("Runtime.evaluate", {
      expression: `(${CODE_KIT})(${JSON.stringify(`function () { throw Symbol("s".repeat(2e7)); }`)}, null, null, ${BOUND})`,
      returnByValue: true,
    });
    expect(JSON.stringify(result.value).length).toBeLessThan(400);
    expect(await call(q, `function () { throw Symbol(); }`)).toBe("ERROR Symbol()");
  }, 60_000);
});
