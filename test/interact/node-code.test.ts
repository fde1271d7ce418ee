/**
 * Browser code in `language: "node"` (src/interact/sandbox) with real Chromium, through the official SDK's
 * `browserExecute`: the caller's JavaScript gets a Playwright-style `page` (navigation, locators by CSS, text, role
 * and label, actions, reads, waits, evaluate, screenshot) and `console`, and returns a `result`; it runs in an
 * offline browser sandbox with no Node built-ins, so it reaches neither files nor the network; errors come back
 * without the server's stack; the time limit stops a busy loop; and a hostile page can move neither a snapshot ref
 * nor a locator's match onto another element, nor get a covered element clicked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { FixtureServer } from "../fixtures/servers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startCodeTestbed, type CodeTestbed } from "./code-testbed.ts";

const FORM = `<!doctype html><html><head><title>Form</title></head><body><h1>Sign up</h1>
<label for="email">Email</label><input id="email" type="email" placeholder="you@example.com">
<label><input id="terms" type="checkbox"> Terms</label>
<select id="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<button onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('email').value + ' (' + document.getElementById('plan').value + ')'; setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Later'; document.body.append(p); }, 300)">Send</button>
<p id="out"></p><ul><li>one</li><li>two</li><li>three</li></ul><nav><a href="/other">Other page</a></nav></body></html>`;

/** A page that moves whatever crawlbox marks onto its "Delete" button, and lays a transparent shield over "Covered". */
const HOSTILE = `<!doctype html><html><head><title>Account</title></head><body>
<button id="delete" style="position:absolute;left:-9999px" onclick="document.title='DELETED'">Delete account</button>
<button id="save" onclick="document.title='SAVED'">Save</button>
<button id="covered" style="position:fixed;left:0;top:200px;width:120px;height:40px" onclick="document.title='COVERED'">Covered</button>
<div style="position:fixed;left:0;top:190px;width:200px;height:60px;z-index:9" onclick="document.title='SHIELD'"></div>
<script>
new MutationObserver((records) => { for (const r of records) if (r.attributeName && r.attributeName.startsWith("data-crawlbox") && r.target.id !== "delete") {
  document.getElementById("delete").setAttribute(r.attributeName, r.target.getAttribute(r.attributeName)); } })
  .observe(document, { attributes: true, subtree: true });
</script></body></html>`;

/** What Playwright-style scripts meet: lists to chain into, a late element, a hidden copy, script text, a decoy on hover. */
const TRICKY = `<!doctype html><html><head><title>Tricky</title><script>var label = "Checkout now";</script></head><body>
<ul><li><a href="/1">a1</a></li><li><a href="/2">a2</a></li><li><a href="/3">a3</a></li></ul>
<nav style="display:none"><button onclick="document.title='HIDDEN'">Sign in</button></nav>
<button onclick="document.title='SIGNED IN'">Sign in</button>
<div id="s"><script>var x = "Checkout";</script><span>Checkout</span></div>
<label style="position:relative;display:inline-block"><input id="agree" type="checkbox" style="position:absolute;left:0;top:0;width:20px;height:20px;opacity:0"><span style="position:relative;z-index:1;display:inline-block;width:20px;height:20px;background:#ccc"></span> Agree</label>
<button id="under" style="position:absolute;left:10px;top:500px;width:80px;height:30px" onclick="document.title='FORCED'">Under</button><div style="position:absolute;left:0;top:490px;width:120px;height:50px;z-index:5"></div>
<button id="show" onclick="setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'Late'; b.onclick = () => { document.title = 'LATE'; }; document.body.append(b); }, 700)">Show later</button>
<button id="save" style="position:absolute;left:10px;top:400px;width:100px;height:30px" onclick="document.title='SAVED'">Save</button>
<script>document.getElementById("save").addEventListener("mousemove", () => {
  const d = document.createElement("button"); d.textContent = "Delete"; d.onclick = () => { document.title = "DELETED"; };
  d.style.cssText = "position:absolute;left:0;top:390px;width:200px;height:60px;z-index:9"; document.body.append(d); }, { once: true });</script>
</body></html>`;

let tb: CodeTestbed;
let h: Harness;
let app: Firecrawl;
let base: string;
let secret: FixtureServer;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/form": FORM, "/hostile": HOSTILE, "/tricky": TRICKY });
  ({ h, app, base, secret } = tb);
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
      expect(r.stdout).toBe(`200 true true Form\n["pro"] true\nHello bob@example.com (pro)\n3 ["one","two","three"] two three\nbob@example.com /other\n3 42 2 42\nbob@example.com!\nOther true\n`);
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
      expect(thrown.stderr).toBe("Error: no element matches #missing after 300 ms\n");
      const own = await s.run("throw new TypeError('mine')");
      expect(own.exitCode).toBe(1);
      expect(own.stderr).toStartWith("TypeError: mine");
      expect(own.stderr).not.toContain("/src/");
      // The stack names the caller's own lines, and nothing of crawlbox's wrapper.
      const deep = await s.run("const a = 1;\nfunction inner() {\n  throw new Error('deep');\n}\ninner();");
      expect(deep.stderr).toBe("Error: deep\n    at inner <code>:3:9\n    at <code>:5:1\n");
      expect((await s.run("this is not javascript")).exitCode).toBe(1);
      expect((await s.run("await page.goto('file:///etc/passwd')")).stderr).toBe("Error: file:///etc/passwd is not an http(s) URL\n");
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
      // show(): logging or returning such a value prints a placeholder rather than failing.
      const shown = await s.run("const o = Object.create(null); o.self = o; console.log('v', o); return o;", "node", 20);
      expect(shown).toMatchObject({ exitCode: 0, killed: false, stdout: "v (unprintable value)\n", result: "(unprintable value)" });
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
    expect((await h.request(`/v2/browser/${s.id}/execute`, { method: "POST", json: { code: "return 1", language: "node" } })).status).toBe(404);
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

describe("Playwright's semantics and the sandbox's bounds (review of the first version)", () => {
  test("chained nth, actions waiting for a late element, hidden copies and script text left out, waitForSelector's locator", async () => {
    const s = await session();
    try {
      const r = await s.run(`
        await page.goto("${base}/tricky");
        console.log(await page.locator("li").nth(2).locator("a").textContent(), await page.locator("li").nth(1).locator("a").count(), await page.locator("li").last().getByText("a").innerText());
        console.log(await page.getByText("Checkout").evaluate((el) => el.tagName));
        await page.getByRole("button", { name: "Sign in" }).click();
        console.log(await page.title());
        await page.click("#show");
        await page.click("#late");
        console.log(await page.title());
        const late = await page.waitForSelector("#late");
        console.log(await late.textContent());
        await page.check("#agree");
        console.log(await page.isChecked("#agree"));
        await page.click("#under", { force: true });
        console.log(await page.title());
      `);
      expect(r).toMatchObject({ exitCode: 0, stderr: "" });
      expect(r.stdout).toBe("a3 1 a3\nSPAN\nSIGNED IN\nLATE\nLate\ntrue\nFORCED\n");
      // bash's check reaches the same hidden box; unchecking too.
      expect((await s.run("agent-browser uncheck '#agree' && agent-browser is checked '#agree'", "bash")).stdout).toBe("false\n");
    } finally {
      await s.end();
    }
  }, 30_000);

  test("a decoy laid over an element when the pointer arrives gets an error, not the click", async () => {
    const s = await session();
    try {
      const node = await s.run(`await page.goto("${base}/tricky"); try { await page.click("#save"); } catch (e) { console.log(e.message); } return await page.title();`);
      expect(node.stdout).toBe("another element covers it (at its centre)\n");
      expect(node.result).toBe("Tricky");
      const bash = await s.run(`agent-browser open ${base}/tricky\nagent-browser click '#save'\nagent-browser get title`, "bash");
      expect(bash.stderr).toBe("✗ another element covers it (at its centre)\n");
      expect(bash.stdout).toEndWith("Tricky\n");
    } finally {
      await s.end();
    }
  }, 30_000);

  test("bounds: calls at once, what a script sends, long values, titles, screenshots; a killed timed wait keeps the session", async () => {
    const s = await session();
    try {
      const burst = await s.run("const all = await Promise.allSettled(Array.from({ length: 40 }, () => page.waitForTimeout(60000))); return all.filter((x) => x.status === 'rejected').length;", "node", 2);
      expect(burst.killed).toBe(true);
      const counted = await s.run("const all = await Promise.allSettled(Array.from({ length: 40 }, () => page.waitForTimeout(100))); return all.filter((x) => x.status === 'rejected' && /at most 16/.test(x.reason.message)).length;");
      expect(counted.result).toBe("24");
      const flood = await s.run("for (let i = 0; i < 30; i++) console.log('x'.repeat(1000000)); return 'not reached';");
      expect(flood.exitCode).toBe(1);
      expect(flood.stderr).toEndWith("Stopped: the script sent crawlbox more than 20000000 characters, or 200000 calls and log lines (output and call arguments).\n");
      const long = await s.run("return 'y'.repeat(3000000)");
      expect(long.result.length).toBeLessThan(1_000_100);
      expect(long.result).toEndWith(" …(cut)");
      const title = await s.run(`await page.goto("${base}/other"); await page.evaluate(() => { document.title = "t".repeat(2000000); }); return (await page.title()).length`);
      expect(title.result).toBe("10000");
      expect((await s.run("agent-browser get title", "bash")).stdout.length).toBe(10_001);
      const shots = await s.run("for (let i = 0; i < 21; i++) { try { await page.screenshot(); } catch (e) { return i + ': ' + e.message; } }");
      expect(shots.result).toBe("20: at most 20 screenshots per script");
      // A wait in crawlbox alone, stopped by the time limit, leaves the session as it was.
      expect(await s.run("await page.waitForTimeout(20000)", "node", 1)).toMatchObject({ killed: true, exitCode: 124 });
      expect((await s.run("return 'still here'")).result).toBe("still here");
    } finally {
      await s.end();
    }
  }, 60_000);
});

describe("a hostile page", () => {
  test("cannot move a ref or a locator's match to another element, nor get a covered element clicked", async () => {
    const s = await session();
    try {
      const bash = await s.run(`agent-browser open ${base}/hostile\nagent-browser snapshot -i\nagent-browser click @e2\nagent-browser get title\nagent-browser click @e3`, "bash");
      expect(bash.stdout).toContain('- button "Save" [ref=e2]');
      expect(bash.stdout).toEndWith("SAVED\n");
      expect(bash.stderr).toBe("✗ another element covers it (at its centre)\n");
      const node = await s.run(`await page.reload(); await page.getByText("Save").click(); return await page.title();`);
      expect(node.result).toBe("SAVED");
    } finally {
      await s.end();
    }
  }, 30_000);
});

describe("what the sandbox can send crawlbox (the channel through crawlbox's isolated world)", () => {
  test("no binding in the code's world; a planted giant call never crosses; a returned value is cut in crawlbox's world whatever the code redefines", async () => {
    const s = await session();
    try {
      expect((await s.run("return typeof globalThis.__crawlboxCall + '/' + typeof globalThis.__crawlboxChannel")).result).toBe("undefined/undefined");
      const rss = process.memoryUsage().rss;
      const giant = await s.run(`document.documentElement.setAttribute("data-cb-call-9", JSON.stringify({ m: "log", a: ["out", "z".repeat(150000000)] })); document.dispatchEvent(new Event("crawlbox-call")); await page.title(); return "after";`);
      expect(process.memoryUsage().rss - rss).toBeLessThan(250 * 1024 * 1024);
      expect(giant.exitCode).toBe(1);
      expect(giant.stderr).toContain("Stopped: the script sent crawlbox more than 20000000 characters");
      const sneaky = await s.run("String.prototype.slice = function () { return String(this); }; return 'y'.repeat(3000000);");
      expect(sneaky.result.length).toBeLessThan(1_000_100);
      expect(sneaky.result).toEndWith(" …(cut)");
      expect((await s.run("return 'still here'")).result).toBe("still here");

      // Text the world escapes twice (quotes, newlines) still crosses at its own length.
      expect((await s.run(`return await page.evaluate((s) => s.length, '"'.repeat(900000))`)).result).toBe("900000");
      const quoted = await s.run(`console.log('"\\n'.repeat(300000)); return 'ok'`);
      expect([quoted.result, quoted.stdout.length]).toEqual(["ok", 600001]);
      // Many tiny log lines are counted too: past the last call the script is stopped, not the server slowed.
      const tiny = await s.run("for (let i = 0; i < 250000; i++) console.log(''); return 'not reached';", "node", 120);
      expect(tiny.exitCode).toBe(1);
      expect(tiny.stderr).toContain("200000 calls and log lines");
      // The sandbox's own failures end the script (exit 1), not the session.
      for (const wreck of ["location.reload(); await new Promise((r) => setTimeout(r, 5000));", "document.documentElement.remove(); return 1;"]) {
        const r = await s.run(wreck);
        expect([wreck, r.exitCode]).toEqual([wreck, 1]);
        expect(r.stderr).toContain("document was replaced");
      }
      expect((await s.run("return 'session kept'")).result).toBe("session kept");
    } finally {
      await s.end();
    }
  }, 120_000);
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
      expect(((await (await one.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "echo ok" } })).json()) as any).stdout).toBe("ok\n");
    } finally {
      await one.close();
    }
  }, 30_000);
});
