/**
 * A script with a top-level `return` (the third way engines/browser/script.ts runs a script: `executeJavascript`,
 * interact's `page.evaluate`, bash's `eval`) is the body of an async function made from its text as data, with real
 * Chromium and a local page. Before, its text was pasted into crawlbox's wrapper, so a script could close the function
 * around it and return from the wrapper itself, skipping the measure: 20,000,002 characters came back under a
 * 1,000,000 bound. Scripts that are bodies run as they did.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { evaluateScript } from "../../src/engines/browser/script.ts";
import { TRUSTED_JSON_SOURCE } from "../../src/engines/browser/trusted-json.ts";

const BOUND = 1_000_000;

let site: ReturnType<typeof Bun.serve>;
let gate: EgressGate;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // A page with a global `v`, the wrapper's own name.
    fetch: () => new Response(`<!doctype html><html><head><title>t</title><script>var v = "page's";</script></head><body><p id="p">para</p></body></html>`, { headers: { "content-type": "text/html" } }),
  });
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  page = await browser.newPage();
  await page.evaluateOnNewDocument(TRUSTED_JSON_SOURCE);
  await page.goto(`http://127.0.0.1:${site.port}/`);
});
afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
  site.stop(true);
});

/** `{type, value}` of `script` under the bound, or the message of what it throws. */
const run = (script: string) => evaluateScript(page, script, BOUND).catch((err: unknown) => `ERROR ${(err as Error).message.split("\n")[0]}`);

describe("a script with a top-level return", () => {
  test("cannot close crawlbox's wrapper and answer for it past the bound", async () => {
    const closing = `return 1 })(); })(); (async () => { return { type: "string", json: '"' + "x".repeat(2e7) + '"' }; const v = await (async () => {`;
    const got = await run(closing);
    expect(typeof got === "string" ? got : { type: got.type, chars: JSON.stringify(got.value).length }).toBe("ERROR Unexpected token '}'");
    // Its own value past the bound is refused as any other.
    expect(await run(`return ["x".repeat(2e7)]`)).toBe(`ERROR a result of more than ${BOUND} characters`);
  }, 60_000);

  test("runs as a function body as before: its value, await, a last comment, this, and the page's globals", async () => {
    expect(await run(`const a = 2; return a * 3`)).toEqual({ type: "number", value: 6 });
    expect(await run(`await null; return document.querySelector("#p").textContent // the text`)).toEqual({ type: "string", value: "para" });
    expect(await run(`return this === globalThis`)).toEqual({ type: "boolean", value: true });
    // The page's `v` (the wrapper's own `v` was in its way: a ReferenceError before).
    expect(await run(`return v`)).toEqual({ type: "string", value: "page's" });
    expect(await run(`await 1; throw new Error("boom"); return 1`)).toBe("ERROR boom");
  }, 60_000);
});

/**
 * A script's own directive prologue keeps its meaning whichever way it runs. e2c7514 put a top-level-await script in a
 * block (way 2), where its `"use strict"` is a plain string: an undeclared name was assigned as a page global (5 came
 * back, a ReferenceError before); and built a top-level-return one by the async function constructor (way 3), whose
 * `this` was undefined under `"use strict"` (the page's global object before).
 */
describe("a script's \"use strict\"", () => {
  test("holds in a top-level-await script, which keeps its value and declares no page global", async () => {
    expect(await run(`"use strict"; await 0; undeclaredX = 1; 5`)).toBe("ERROR ReferenceError: undeclaredX is not defined");
    expect(await run(`// first\n'use strict'\n/* then */ "another";\nawait 0; undeclaredY = 1; 5`)).toBe("ERROR ReferenceError: undeclaredY is not defined");
    expect(await run(`"use strict"; const keptLet = await Promise.resolve(7); keptLet * 2`)).toEqual({ type: "number", value: 14 });
    expect(await run(`typeof keptLet`)).toEqual({ type: "string", value: "undefined" });
    // A string that is not a directive stays where it was, and the script is sloppy as written.
    expect(await run(`"use strict".length; await 0; sloppyZ = 3; sloppyZ`)).toEqual({ type: "number", value: 3 });
    expect(await run(`"use strict"\n+ "x"; await 0; sloppyW = 4; sloppyW`)).toEqual({ type: "number", value: 4 });
  }, 60_000);

  test("keeps the page's global object as `this` in a top-level-return script", async () => {
    expect(await run(`"use strict"; return this === globalThis`)).toEqual({ type: "boolean", value: true });
    expect(await run(`"use strict"; await 0; return this === window && typeof undeclaredQ`)).toEqual({ type: "string", value: "undefined" });
    expect(await run(`"use strict"; undeclaredR = 1; return 1`)).toBe("ERROR undeclaredR is not defined");
  }, 60_000);
});
