/**
 * agent-browser commands' answers (src/interact/shell/page-reads.ts, agent-browser.ts, find.ts; page-ops.ts), with
 * real Chromium and a local site: `is visible` of an element that is not there is `false` (exit code 0), as the docs
 * and JavaScript's `isVisible` say; `fill` (bash, `find … fill`, JavaScript) of something that is not a text field is a
 * clear error, not silence; `wait --text` and `wait --url` read the page in crawlbox's isolated world, so a page that
 * redefines what they read neither fakes nor stalls them; a failure read from the page has no redundant `Error:`
 * after `✗`; and the eval limit's message names the limit. `get url` on a page busy with its own script answers
 * puppeteer's URL after 500 ms (it waited for the page, and the session was dropped when the script's time ran out).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCodeTestbed, type CodeSession, type CodeTestbed } from "./code-testbed.ts";

const FORM = `<html><head><title>Form</title></head><body>
  <input id="name"><textarea id="note"></textarea><div id="edit" contenteditable="true"></div>
  <button id="btn">Press</button><div id="plain">Plain</div><input id="box" type="checkbox"><input id="ro" readonly value="fixed">
  <p id="para">Present text</p>
</body></html>`;
/** A page that redefines what a wait in its own world would call: `includes` always says no. */
const LIAR = `<html><head><title>Liar</title><script>String.prototype.includes = function () { return false; };</script></head><body><p>Present text</p></body></html>`;

let tb: CodeTestbed;
let s: CodeSession;
const bash = (code: string) => s.run(code, "bash");

beforeAll(async () => {
  tb = await startCodeTestbed({ "/form": FORM, "/liar": LIAR });
  s = await tb.session();
});
afterAll(async () => {
  await s.end();
  await tb.close();
});

describe("agent-browser", () => {
  test("is visible of an element that is not there prints false, exit code 0", async () => {
    const r = await bash(`agent-browser open ${tb.base}/form\nagent-browser is visible "#nope"\nagent-browser is visible "#btn"`);
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toEndWith("false\ntrue\n");
    expect((await bash(`agent-browser is visible "#nope" --json`)).stdout).toBe('{"success":true,"data":false}\n');
  }, 60_000);

  test("fill of what is not a text field is an error; fields, text areas and editable elements are filled", async () => {
    await bash(`agent-browser open ${tb.base}/form`);
    const notField = "the element is not a text field (an <input>, a <textarea> or an editable element)";
    expect(await bash(`agent-browser fill "#btn" hello`)).toMatchObject({ exitCode: 1, stdout: "", stderr: `✗ ${notField}: a <button> cannot be filled\n` });
    expect(await bash(`agent-browser fill "#plain" hello`)).toMatchObject({ exitCode: 1, stderr: `✗ ${notField}: a <div> cannot be filled\n` });
    expect(await bash(`agent-browser clear "#btn"`)).toMatchObject({ exitCode: 1, stderr: `✗ ${notField}: a <button> cannot be filled\n` });
    expect(await bash(`agent-browser fill "#box" x`)).toMatchObject({ exitCode: 1, stderr: '✗ an <input type="checkbox"> cannot be filled (check, uncheck or click it)\n' });
    expect(await bash(`agent-browser fill "#ro" x`)).toMatchObject({ exitCode: 1, stderr: "✗ the field is read-only\n" });
    expect(await bash(`agent-browser find role button fill hello --name Press`)).toMatchObject({ exitCode: 1, stderr: `✗ ${notField}: a <button> cannot be filled\n` });
    const ok = await bash(`agent-browser fill "#name" Ann && agent-browser fill "#note" Hi && agent-browser fill "#edit" Yo && agent-browser get value "#name" && agent-browser get value "#note" && agent-browser get text "#edit"`);
    expect(ok).toMatchObject({ exitCode: 0, stdout: "Ann\nHi\nYo\n" });
    const node = await s.run(`try { await page.fill("#btn", "x"); } catch (e) { console.log(e.message); }\ntry { await page.locator("#plain").clear(); } catch (e) { console.log(e.message); }`, "node");
    expect(node.stdout).toBe(`${notField}: a <button> cannot be filled\n${notField}: a <div> cannot be filled\n`);
  }, 60_000);

  test("wait --text and wait --url read the page in crawlbox's world: a page's own redefinitions change nothing", async () => {
    // A session of its own, and a 10 s limit: before, each wait ran its 30 s out in the page's world, and the script's
    // time ran out with it (exit code 124).
    const own = await tb.session();
    try {
      const t0 = performance.now();
      const r = await own.run(`agent-browser open ${tb.base}/liar\nagent-browser wait --text "Present text" && echo text-found\nagent-browser wait --url "/liar" && echo url-found`, "bash", 10);
      expect(r).toMatchObject({ exitCode: 0, stderr: "", stdout: `✓ Liar\n  ${tb.base}/liar\ntext-found\nurl-found\n` });
      expect(performance.now() - t0).toBeLessThan(8_000);
    } finally {
      await own.end().catch(() => undefined);
    }
  }, 60_000);

  test("a failure read from the page says no redundant Error:; the eval limit names the limit", async () => {
    await bash(`agent-browser open ${tb.base}/form`);
    expect(await bash(`agent-browser select "#btn" x`)).toMatchObject({ exitCode: 1, stderr: "✗ the element is not a <select>\n" });
    await s.run(`await page.evaluate(() => { document.getElementById('para').textContent = 'y'.repeat(2000000); })`, "node");
    expect(await bash(`agent-browser get text "#para"`)).toMatchObject({ exitCode: 1, stderr: "✗ the value is 2000000 characters, over the 1000000 that are read\n" });
    expect(await bash(`agent-browser eval "'x'.repeat(2000000)"`)).toMatchObject({ exitCode: 1, stderr: "✗ a result of 2000002 characters, over the 1000000 that are read\n" });
    const node = await s.run(`try { await page.selectOption("#btn", "x"); } catch (e) { console.log(e.message); }\ntry { await page.evaluate(() => 'x'.repeat(2000000)); } catch (e) { console.log(e.message); }`, "node");
    expect(node.stdout).toBe("the element is not a <select>\na result of 2000002 characters, over the 1000000 that are read\n");
  }, 60_000);

  test("get url on a page busy with its own script answers (puppeteer's URL), and the session stays", async () => {
    // A session of its own: its page stays busy for a while after the script.
    const own = await tb.session();
    try {
      await own.run(`agent-browser open ${tb.base}/form`, "bash");
      const t0 = performance.now();
      const r = await own.run(`agent-browser eval 'setTimeout(() => { const t = Date.now(); while (Date.now() - t < 5000); }, 50); 1'\nagent-browser wait 300\nagent-browser get url`, "bash", 4);
      expect(r).toMatchObject({ exitCode: 0, killed: false, stderr: "", stdout: `1\n${tb.base}/form\n` });
      expect(performance.now() - t0).toBeLessThan(3_000);
      expect(((await (await tb.h.request(`/v2/browser/${own.id}`)).json()) as any).status).toBe("active");
    } finally {
      await own.end().catch(() => undefined);
    }
  }, 60_000);
});
