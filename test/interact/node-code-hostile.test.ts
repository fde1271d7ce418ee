/**
 * Browser code in `language: "node"` with real Chromium, against hostile pages and hostile code: a page cannot move a
 * snapshot ref or a locator's match onto another element, nor get a covered element clicked; and the code cannot
 * reach crawlbox's channel, plant a giant call that crosses, or get past the cut of what it sends back, while the
 * sandbox's own failures end the script and not the session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeTestbed } from "./code-testbed.ts";

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

let tb: CodeTestbed;
let base: string;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/hostile": HOSTILE });
  ({ base } = tb);
});
afterAll(() => tb.close());

async function session() {
  const s = await tb.session();
  return { ...s, run: (code: string, language: "node" | "bash" = "node", timeout?: number) => s.run(code, language, timeout) };
}

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
