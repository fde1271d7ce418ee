/**
 * Browser code in `language: "node"` (src/interact/sandbox) with real Chromium, through the official SDK's
 * `browserExecute`: the caller's JavaScript gets a Playwright-style `page` (navigation, locators by CSS, text, role
 * and label, actions, reads, waits, evaluate, screenshot) and `console`, and returns a `result`; it runs in an
 * offline browser sandbox with no Node built-ins, so it reaches neither files nor the network; errors come back
 * without the server's stack; the time limit stops a busy loop; and a server with one browser page refuses such
 * code clearly. (Playwright's finer semantics and the sandbox's bounds: node-code-playwright.test.ts; a hostile
 * page and the channel to crawlbox: node-code-hostile.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FixtureServer } from "../fixtures/servers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startCodeTestbed, type CodeTestbed } from "./code-testbed.ts";

const FORM = `<!doctype html><html><head><title>Form</title></head><body><h1>Sign up</h1>
<label for="email">Email</label><input id="email" type="email" placeholder="you@example.com">
<label><input id="terms" type="checkbox"> Terms</label>
<select id="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<button onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('email').value + ' (' + document.getElementById('plan').value + ')'; setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Later'; document.body.append(p); }, 300)">Send</button>
<p id="out"></p><ul><li>one</li><li>two</li><li>three</li></ul><nav><a href="/other">Other page</a></nav></body></html>`;

let tb: CodeTestbed;
let h: Harness;
let base: string;
let secret: FixtureServer;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/form": FORM });
  ({ h, base, secret } = tb);
});
afterAll(() => tb.close());

async function session() {
  const s = await tb.session();
  return { ...s, run: (code: string, language: "node" | "bash" = "node", timeout?: number) => s.run(code, language, timeout) };
}

describe("JavaScript code", () => {
  test("a Playwright-style page: navigation, locators by CSS, text, role and label, actions, reads, waits, evaluate, console and result", async () => {
    const s = await session();
    try {
      const r = await s.run(`
        const res = await page.goto("${base}/form");
        console.log(res.status(), res.ok(), page.url() === "${base}/form", await page.title());
        await page.getByLabel("Email").fill("bob@example.com");
        await page.locator("#terms").check();
        console.log(await page.selectOption("#plan", "pro"), await page.isChecked("#terms"));
        await page.getByRole("button", { name: "Send" }).click();
        console.log(await page.textContent("#out"));
        await page.waitForSelector("#late");
        const items = page.locator("ul").locator("li");
        console.log(await items.count(), await items.allTextContents(), await items.nth(1).innerText(), await items.last().textContent());
        console.log(await page.getByPlaceholder("you@example.com").inputValue(), await page.getByText("Other page").getAttribute("href"));
        console.log(await page.evaluate(() => document.querySelectorAll("li").length), await page.evaluate((n) => n * 2, 21), await page.evaluate("1 + 1"), await page.evaluate("(n) => n + 2", 40));
        console.log(await page.locator("#email").evaluate((el, suffix) => el.value + suffix, "!"));
        console.error("to stderr");
        await page.getByRole("link", { name: "Other page" }).click();
        await page.waitForURL("**/other");
        console.log(await page.title(), page.url().endsWith("/other"));
        await page.goBack();
        return { items: await items.count(), shot: (await page.screenshot()).endsWith(".png") };
      `);
      expect(r).toMatchObject({ success: true, exitCode: 0, killed: false, stderr: "to stderr\n", result: '{"items":3,"shot":true}' });
      expect(r.stdout).toBe(`200 true true Form\n[ 'pro' ] true\nHello bob@example.com (pro)\n3 [ 'one', 'two', 'three' ] two three\nbob@example.com /other\n3 42 2 42\nbob@example.com!\nOther true\n`);
      // The next script finds the page as this one left it, page.url() included.
      expect((await s.run("return page.url() + ' ' + await page.inputValue('#email')")).result).toBe(`${base}/form bob@example.com`);
      // bash and JavaScript share the session.
      expect((await s.run("agent-browser get value '#email'", "bash")).stdout).toBe("bob@example.com\n");
    } finally {
      await s.end();
    }
  }, 60_000);

  test("the sandbox has no Node built-ins and no network; errors come back without the server's stack", async () => {
    const s = await session();
    try {
      const probe = await s.run(`
        console.log(typeof require, typeof process, typeof Bun, typeof Deno);
        for (const u of ["http://127.0.0.1:${secret.port}/", "${base}/form"]) {
          console.log(await fetch(u).then((r) => r.text()).catch(() => "FAILED"));
        }
        const ws = await new Promise((done) => { try { const w = new WebSocket("ws://127.0.0.1:${secret.port}/"); w.onopen = () => done("OPEN"); w.onerror = () => done("FAILED"); } catch (e) { done("FAILED"); } });
        console.log(ws);
      `);
      expect(probe.stdout).toBe("undefined undefined undefined undefined\nFAILED\nFAILED\nFAILED\n");
      // A popup it opens is no way out either: the whole sandbox context ends at a proxy that answers nothing.
      const popup = await s.run(`const w = window.open(""); await page.title(); console.log(w ? await w.fetch("http://127.0.0.1:${secret.port}/").then((r) => r.text()).catch(() => "FAILED") : "NO POPUP");`);
      expect(["FAILED\n", "NO POPUP\n"]).toContain(popup.stdout);
      expect(secret.hits).toBe(0);
      const thrown = await s.run(`await page.goto("${base}/form"); await page.click("#missing", { timeout: 300 });`);
      expect(thrown).toMatchObject({ exitCode: 1, stdout: "" });
      expect(thrown.stderr).toBe("Error: no element matches #missing after 300 ms\n    at <code>:1:60\n");
      const own = await s.run("throw new TypeError('mine')");
      expect(own.exitCode).toBe(1);
      expect(own.stderr).toStartWith("TypeError: mine");
      expect(own.stderr).not.toContain("/src/");
      // The stack names the caller's own lines, and nothing of crawlbox's wrapper.
      const deep = await s.run("const a = 1;\nfunction inner() {\n  throw new Error('deep');\n}\ninner();");
      expect(deep.stderr).toBe("Error: deep\n    at inner <code>:3:9\n    at <code>:5:1\n");
      expect((await s.run("this is not javascript")).exitCode).toBe(1);
      expect((await s.run("await page.goto('file:///etc/passwd')")).stderr).toBe("Error: file:///etc/passwd is not an http(s) URL\n    at <code>:1:12\n");
      expect((await s.run("return await page.frobnicate()")).stderr).toContain("page.frobnicate is not a function");
      // A value too large to send back is refused in the page, before it crosses.
      expect((await s.run("return await page.evaluate(() => 'x'.repeat(2000000))")).stderr).toContain("a result of 2000002 characters");
      expect((await s.run("agent-browser eval \"'x'.repeat(2000000)\"", "bash")).stderr).toContain("a result of 2000002 characters");
      expect((await s.run("agent-browser eval \"document.body.textContent = 'y'.repeat(2000000)\" >/dev/null; true", "bash")).exitCode).toBe(2);
      expect((await s.run("await page.evaluate(() => { document.body.textContent = 'y'.repeat(2000000); }); return (await page.textContent('body')).length")).stderr).toContain("over the 1000000");
    } finally {
      await s.end();
    }
  }, 60_000);

  test("a thrown value that cannot be turned into text still ends the code at once with exit code 1, not at its time limit", async () => {
    const s = await session();
    try {
      // Each would make the error's own formatting throw: the code then left no outcome and ran its 20 s out (exit 124).
      const bare = await s.run("throw Object.create(null);", "node", 20);
      expect(bare).toMatchObject({ exitCode: 1, killed: false, stderr: "Uncaught (unprintable value)\n" });
      const getter = await s.run("const e = new Error('boom'); Object.defineProperty(e, 'stack', { get() { throw new Error('no stack'); } }); throw e;", "node", 20);
      expect(getter).toMatchObject({ exitCode: 1, killed: false, stderr: "Error: boom\n" });
      const hostile = await s.run("throw new Proxy({}, { get() { throw new Error('trap'); } });", "node", 20);
      expect(hostile).toMatchObject({ exitCode: 1, killed: false, stderr: "Uncaught (unprintable value)\n" });
      // A value with no prototype and a cycle is printed as Node prints it, not a failure.
      const shown = await s.run("const o = Object.create(null); o.self = o; console.log('v', o); return o;", "node", 20);
      expect(shown).toMatchObject({ exitCode: 0, killed: false, stdout: "v <ref *1> [Object: null prototype] { self: [Circular *1] }\n", result: "<ref *1> [Object: null prototype] { self: [Circular *1] }" });
      // The session is still usable.
      expect((await s.run("return 1 + 1")).result).toBe("2");
    } finally {
      await s.end();
    }
  }, 120_000);

  test("the time limit stops a busy loop in the sandbox (the session stays); a call stuck in the page ends the session", async () => {
    const s = await session();
    let t0 = performance.now();
    expect(await s.run("console.log('spinning'); while (true) {}", "node", 1)).toMatchObject({ killed: true, exitCode: 124, stdout: "spinning\n" });
    expect(performance.now() - t0).toBeLessThan(6_000);
    expect((await s.run("return 1 + 1")).result).toBe("2");
    t0 = performance.now();
    expect(await s.run(`await page.goto("${base}/other"); await page.evaluate(() => { while (true) {} })`, "node", 2)).toMatchObject({ killed: true, exitCode: 124 });
    expect(performance.now() - t0).toBeLessThan(8_000);
    expect((await h.request(`/v2/browser/${s.id}/execute`, { method: "POST", json: { code: "return 1", language: "node" } })).status).toBe(410);
  }, 30_000);

  test("a catastrophic waitForURL pattern spins the sandbox, not the server", async () => {
    const s = await session();
    try {
      const path = `/${"a".repeat(40)}!`;
      const running = s.run(`await page.goto("${base}${path}"); await page.waitForURL(/^http:\\/\\/[^/]+\\/(a+)+$/);`, "node", 3);
      await Bun.sleep(1_500);
      const t0 = performance.now();
      expect((await h.request("/health", { auth: null })).status).toBe(200);
      expect(performance.now() - t0).toBeLessThan(500);
      expect(await running).toMatchObject({ killed: true, exitCode: 124 });
    } finally {
      await s.end();
    }
  }, 30_000);
});

describe("a server with one browser page", () => {
  test("JavaScript and Python code are a clear 400 (their sandbox needs a page of its own); bash still runs", async () => {
    const one = await createHarness({ browserConcurrency: 1 });
    try {
      const { id } = (await (await one.request("/v2/browser", { method: "POST", json: {} })).json()) as any;
      const t0 = performance.now();
      const node = await one.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "return 1", language: "node" } });
      expect(performance.now() - t0).toBeLessThan(2_000);
      expect([node.status, ((await node.json()) as any).code]).toEqual([400, "INTERACT_CODE_NOT_SUPPORTED"]);
      const python = await one.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "print(1)", language: "python" } });
      expect([python.status, ((await python.json()) as any).error]).toEqual([400, expect.stringContaining("Python code runs in a browser page of its own")]);
      expect(((await (await one.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "echo ok", language: "bash" } })).json()) as any).stdout).toBe("ok\n");
    } finally {
      await one.close();
    }
  }, 30_000);
});
