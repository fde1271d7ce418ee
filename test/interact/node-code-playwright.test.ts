/**
 * Browser code in `language: "node"` with real Chromium, measured against Playwright's semantics and the
 * sandbox's bounds (the review of the first version): chained nth, actions that wait for a late element, hidden
 * copies and script text left out, forced clicks; a decoy laid over an element when the pointer arrives gets an
 * error, not the click; and the bounds on calls at once, what a script sends, long values, titles and screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeTestbed } from "./code-testbed.ts";

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
let base: string;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/tricky": TRICKY });
  ({ base } = tb);
});
afterAll(() => tb.close());

async function session() {
  const s = await tb.session();
  return { ...s, run: (code: string, language: "node" | "bash" = "node", timeout?: number) => s.run(code, language, timeout) };
}

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
