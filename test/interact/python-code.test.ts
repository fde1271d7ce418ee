/**
 * Browser code in `language: "python"` (src/interact/sandbox, Pyodide) with real Chromium, through the official SDK's
 * `browserExecute` and `interact`: Python gets the sandbox's `page` under Playwright's Python names (snake_case,
 * keyword options, `page.url` and `locator.first` as properties, responses with `status`/`ok`), `print` is stdout and
 * the result, an exception is exit code 1 with a traceback of the code's own lines, the time limit stops a busy
 * loop, and the sandbox's Python reaches neither the network nor the server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { FixtureServer } from "../fixtures/servers.ts";
import type { Harness } from "../helpers/harness.ts";
import { startCodeTestbed, type CodeTestbed } from "./code-testbed.ts";
import { pythonSnapshot } from "../../src/interact/sandbox/python-snapshot.ts";
import { PYTHON_FILES_ORIGIN, pythonFiles } from "../../src/interact/sandbox/python-assets.ts";

const FORM = `<!doctype html><html><head><title>Form</title></head><body><h1>Sign up</h1>
<label for="email">Email</label><input id="email" type="email" placeholder="you@example.com">
<label><input id="terms" type="checkbox"> Terms</label>
<select id="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<button onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('email').value + ' (' + document.getElementById('plan').value + ')'">Send</button>
<p id="out"></p><ul><li>one</li><li>two</li><li>three</li></ul><nav><a href="/other">Other page</a></nav></body></html>`;

let tb: CodeTestbed;
let h: Harness;
let app: Firecrawl;
let base: string;
let secret: FixtureServer;

beforeAll(async () => {
  tb = await startCodeTestbed({ "/form": FORM });
  ({ h, app, base, secret } = tb);
});
afterAll(() => tb.close());

async function session() {
  const s = await tb.session();
  return { ...s, run: (code: string, timeout?: number) => s.run(code, "python", timeout) };
}

describe("Python code", () => {
  test("Playwright's Python names: navigation, locators, keyword options, properties, reads, evaluate; print is stdout and the result", async () => {
    const s = await session();
    try {
      const r = await s.run(`
res = await page.goto("${base}/form", wait_until="domcontentloaded")
print(res.status, res.ok, page.url == "${base}/form", await page.title())
await page.get_by_label("Email").fill("bob@example.com")
await page.locator("#terms").check()
print(await page.select_option("#plan", "pro"), await page.is_checked("#terms"))
await page.get_by_role("button", name="Send").click()
print(await page.text_content("#out"))
items = page.locator("ul").locator("li")
print(await items.count(), await items.all_text_contents(), await items.nth(1).inner_text(), await items.last.text_content(), await items.first.text_content())
print(len(await items.all()), await page.get_by_placeholder("you@example.com").input_value())
print(await page.evaluate("() => document.querySelectorAll('li').length"), await page.evaluate("(n) => n * 2", 21), await page.evaluate("1 + 1"))
print(await page.locator("#email").evaluate("(el, suffix) => el.value + suffix", "!"), (await page.inner_html("#out"))[:5])
box = await page.locator("h1").bounding_box()
print(sorted(box.keys()))
import sys, asyncio
await asyncio.sleep(0.01)
print("to stderr", file=sys.stderr)
await page.get_by_role("link", name="Other page").click()
await page.wait_for_url("**/other")
await page.wait_for_load_state("load")
print(await page.title(), page.url.endswith("/other"))
shot = await page.screenshot(full_page=True)
print(shot.endswith(".png"))
`);
      expect(r).toMatchObject({ success: true, exitCode: 0, killed: false, stderr: "to stderr\n" });
      expect(r.stdout).toBe(
        `200 True True Form\n['pro'] True\nHello bob@example.com (pro)\n3 ['one', 'two', 'three'] two three one\n3 bob@example.com\n3 42 2\nbob@example.com! Hello\n['height', 'width', 'x', 'y']\nOther True\nTrue\n`,
      );
      // Python's result is its stdout, as upstream's.
      expect(r.result).toBe(r.stdout);
      // Output as written: a last line without its newline is kept (it was lost), as is a function ending in a comment.
      const raw = await s.run(`import sys, json\nsys.stdout.write(json.dumps({"a": 1}))\nsys.stderr.write("warn")\nprint(await page.evaluate("() => document.title // the title"), end="")\nprint(" é", end="")`);
      expect({ stdout: raw.stdout, stderr: raw.stderr, result: raw.result }).toEqual({ stdout: '{"a": 1}Other é', stderr: "warn", result: '{"a": 1}Other é' });
      // The next script finds the page as this one left it; JavaScript and Python share the session.
      expect((await s.run("print(page.url)")).stdout).toBe(`${base}/other\n`);
      expect((await app.browserExecute(s.id, { code: "return page.url()", language: "node" }) as any).result).toBe(`${base}/other`);
    } finally {
      await s.end();
    }
  }, 90_000);

  test("Python values and arguments: null is None, data keeps its keys, keyword arguments by name, unsupported options and regular expressions refused", async () => {
    const s = await session();
    try {
      const r = await s.run(`
await page.goto("${base}/form")
print(await page.get_attribute("h1", "href") is None, await page.evaluate("() => null") is None, await page.evaluate("() => ({a: [1, null]})"))
print(await page.evaluate("() => ({status: 'ok', count: 3})"), await page.evaluate("() => [{down: 1, up: 2}, {goto: 'x', nth: 0}]"))
print(await page.get_by_placeholder("you@").count(), await page.get_by_placeholder("YOU@EXAMPLE.COM").count(), await page.get_by_placeholder("you@", exact=True).count(), await page.is_visible("#email", timeout=100))
print(await page.evaluate("(o) => document.querySelectorAll(o.item_selector).length", {"item_selector": "li"}), await page.evaluate("(x) => x * 2", arg=21))
await page.fill("#email", value="kw@example.com")
print(await page.locator("li").nth(index=1).text_content(), await page.input_value("#email"))
await page.mouse.wheel(delta_x=0, delta_y=10)
await page.locator("#email").type("!", delay=50)
print(await page.locator("#email").input_value())
for bad in ['page.locator("li", has_text="two")', 'page.screenshot(path="a.png")', 'page.get_by_text(re.compile("sign", re.I))']:
    try:
        r = eval(bad)
        if inspect.isawaitable(r):
            await r
        print("NOT REFUSED", bad)
    except Error as e:
        print("refused:", e.message)
import re, inspect
`.replace("import re, inspect", "").replace("await page.goto", "import re, inspect\nawait page.goto"));
      expect(r).toMatchObject({ exitCode: 0, stderr: "" });
      expect(r.stdout).toBe(
        "True True {'a': [1, None]}\n{'status': 'ok', 'count': 3} [{'down': 1, 'up': 2}, {'goto': 'x', 'nth': 0}]\n1 1 0 True\n3 42\ntwo kw@example.com\nkw@example.com!\n" +
          "refused: locator: crawlbox does not take has_text (it takes selector)\n" +
          "refused: screenshot: crawlbox does not take path (it takes full_page)\n" +
          "refused: get_by_text: a regular expression is not taken here; give the text (it matches any case and part of the text unless exact=True)\n",
      );
      // Regular expressions where Playwright's URL waits take them, Python's named groups included; Playwright's names import.
      const waited = await s.run(`
import re
from playwright.async_api import TimeoutError as PlaywrightTimeout, Error as PlaywrightError
await page.wait_for_url(re.compile(r"/(?P<p>form)$"), timeout=2000)
try:
    await page.wait_for_selector("#never", timeout=300)
except PlaywrightTimeout as e:
    print("timeout:", isinstance(e, PlaywrightError), isinstance(e, TimeoutError), e.message)
`);
      expect(waited).toMatchObject({ exitCode: 0, stdout: "timeout: True True wait_for_selector: #never was not visible within 0 s\n" });
    } finally {
      await s.end();
    }
  }, 90_000);

  test("exceptions, syntax errors and sys.exit end the code with exit code 1 and the code's own traceback", async () => {
    const s = await session();
    try {
      const raised = await s.run(`print("before")\ndef inner():\n    raise ValueError("bad value")\ninner()`);
      expect(raised).toMatchObject({ exitCode: 1, stdout: "before\n", killed: false });
      expect(raised.stderr).toBe(
        'Traceback (most recent call last):\n  File "<code>", line 4, in <module>\n    inner()\n    ~~~~~^^\n  File "<code>", line 3, in inner\n    raise ValueError("bad value")\nValueError: bad value\n',
      );
      // A page call that fails raises Error with crawlbox's words, catchable like any exception.
      const caught = await s.run(`await page.goto("${base}/form")\ntry:\n    await page.click("#missing", timeout=300)\nexcept Error as e:\n    print("caught", e)`);
      expect(caught).toMatchObject({ exitCode: 0, stdout: "caught click: no element matches #missing after 300 ms\n" });
      const syntax = await s.run("print('x'");
      expect(syntax.exitCode).toBe(1);
      expect(syntax.stderr).toContain("SyntaxError");
      expect(syntax.stderr).toContain('File "<code>", line 1');
      expect(await s.run("import sys\nprint('a')\nsys.exit(0)\nprint('b')")).toMatchObject({ exitCode: 0, stdout: "a\n" });
      expect(await s.run("import sys\nsys.exit(3)")).toMatchObject({ exitCode: 1, stderr: "SystemExit: 3\n" });
      const unknown = await s.run("page.drag_and_drop('a', 'b')");
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toContain("AttributeError: page.drag_and_drop is not in crawlbox's page API");
      // Ending the interpreter ends the code, at once: os._exit is an exit status, a crash an error.
      expect(await s.run("import os\nprint('a')\nos._exit(3)")).toMatchObject({ exitCode: 1, stdout: "a\n", stderr: "SystemExit: 3\n", killed: false });
      expect(await s.run("import posix\nposix._exit(4)")).toMatchObject({ exitCode: 1, stderr: "SystemExit: 4\n", killed: false });
      // A recursion limit past what the stack holds is capped (the recursion is a RecursionError); an interpreter that
      // crashes all the same ends the code at once, not at its time limit (the crash brought on by Pyodide's own call:
      // a recursion past the cap crashes it only sometimes, and otherwise runs until the time limit).
      const t0 = performance.now();
      const deep = await s.run("import sys\nsys.setrecursionlimit(10**6)\nprint(sys.getrecursionlimit())\ndef f(n):\n    return f(n + 1)\nf(0)", 60);
      expect(deep).toMatchObject({ exitCode: 1, killed: false, stdout: "5000\n" });
      expect(deep.stderr).toEndWith("RecursionError: maximum recursion depth exceeded\n");
      const crash = await s.run("import pyodide_js\npyodide_js._api.fatal_error(Exception('boom'))", 60);
      expect(crash).toMatchObject({ exitCode: 1, killed: false });
      expect(crash.stderr).toContain("Python failed: the interpreter crashed");
      expect(performance.now() - t0).toBeLessThan(30_000);
      expect(await s.run("import sys\nprint('hi')\nsys.stdout = None")).toMatchObject({ exitCode: 0, stdout: "hi\n" });
    } finally {
      await s.end();
    }
  }, 90_000);

  test("the sandbox's Python has no network, no packages to fetch and no server; the time limit stops a busy loop", async () => {
    const s = await session();
    try {
      const probe = await s.run(`
import js, os
from pyodide.http import pyfetch
for u in ["http://127.0.0.1:${secret.port}/", "${base}/form"]:
    try:
        r = await pyfetch(u)
        print(await r.string())
    except Exception as e:
        print("FAILED")
print(sorted(os.listdir("/")) == sorted(set(os.listdir("/"))), hasattr(js, "process"), hasattr(js, "Bun"))
try:
    import numpy
except ImportError:
    print("no numpy")
`);
      expect(probe).toMatchObject({ exitCode: 0, stdout: "FAILED\nFAILED\nTrue False False\nno numpy\n" });
      expect(secret.hits).toBe(0);
      const t0 = performance.now();
      const busy = await s.run("print('spinning')\nwhile True:\n    pass", 8);
      expect(busy).toMatchObject({ killed: true, exitCode: 124 });
      expect(performance.now() - t0).toBeLessThan(20_000);
      // A busy loop in the sandbox is not in the session's page: the session goes on.
      expect((await s.run(`await page.goto("${base}/form")\nprint(await page.title())`)).stdout).toBe("Form\n");
    } finally {
      await s.end();
    }
  }, 90_000);

  test("a scrape's interact runs Python too; each script starts from the kept snapshot, and nothing one leaves reaches the next, of any key", async () => {
    const doc = (await app.scrape(`${base}/form`, { formats: ["markdown"] })) as any;
    const scrapeId = doc.metadata.scrapeId;
    const r = (await app.interact(scrapeId, { code: "print(await page.title(), page.url.endswith('/form'))", language: "python" })) as any;
    expect(r).toMatchObject({ success: true, exitCode: 0, stdout: "Form True\n" });
    // The snapshot was made once and is served by the file proxy: later scripts start from it. The proxy answers
    // its few files and nothing else: it forwards nothing.
    expect(await pythonSnapshot(h.services.engines.pool!)).toBe(true);
    // Each file at most twice per page's grant, and only while it lasts: a page cannot keep the server busy with it.
    const files = pythonFiles();
    const viaProxy = (url: string, init: RequestInit = {}) => fetch(url, { ...init, proxy: files.proxyUrl } as RequestInit);
    const grant = files.grant();
    const snapshot = await viaProxy(`${grant.base}snapshot.bin`);
    expect([snapshot.status, (await snapshot.arrayBuffer()).byteLength > 10_000_000]).toEqual([200, true]);
    expect((await viaProxy(`${grant.base}snapshot.bin`)).status).toBe(200);
    expect((await viaProxy(`${grant.base}snapshot.bin`)).status).toBe(404);
    expect((await viaProxy(`${grant.base}pyodide.mjs`)).status).toBe(200);
    grant.revoke();
    expect((await viaProxy(`${grant.base}pyodide.mjs`)).status).toBe(404);
    const second = files.grant();
    expect((await viaProxy(`${PYTHON_FILES_ORIGIN}/pyodide.mjs`)).status).toBe(404);
    expect((await viaProxy(`${second.base}../../etc/passwd`)).status).toBe(404);
    expect((await viaProxy(`${base}/form`)).status).toBe(404);
    expect((await viaProxy(`${second.base}pyodide.mjs`, { method: "POST", body: "x" })).status).toBe(404);
    second.revoke();
    const tamper = (await app.interact(scrapeId, { code: "import builtins, json, sys, js\nbuiltins.leak = 'A'\njson.dumps = None\nsys.modules['re'] = None\njs.globalThis.leak = 'B'\nprint('done')", language: "python" })) as any;
    expect(tamper.stdout).toBe("done\n");
    await app.stopInteraction(scrapeId);
    const other = new Firecrawl({ apiKey: h.services.keys.create("other").key, apiUrl: h.listen() });
    const { id } = (await other.browser()) as any;
    const clean = (await other.browserExecute(id, { code: "import builtins, json, re, js\nprint(hasattr(builtins, 'leak'), json.dumps([1]), re.sub('a', 'b', 'a'), hasattr(js.globalThis, 'leak'))", language: "python" })) as any;
    expect(clean).toMatchObject({ exitCode: 0, stdout: "False [1] b False\n" });
    await other.deleteBrowser(id);
  }, 90_000);
});
