/**
 * `/v2/browser` (src/server/routes/browser.ts) with real Chromium, through the official SDK's `browser`,
 * `browserExecute`, `listBrowsers` and `deleteBrowser`: bash code of agent-browser commands (open, snapshot refs,
 * fill, click, get, check, select, eval, screenshot, --json) run on the session's page, which keeps its state between
 * executions; bash's chaining and exit statuses; the time limit; profiles saved and loaded; the limits and refusals.
 * (With private networks not allowed, `open` and the page's own requests stopped at the egress gate: browser-egress.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const FORM = `<!doctype html><html><head><title>Form</title></head><body><h1>Sign up</h1><p>Fill the form.</p>
<label for="email">Email</label><input id="email" type="email">
<label><input id="terms" type="checkbox"> Terms</label>
<select id="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<button onclick="document.getElementById('out').textContent = 'Hello ' + document.getElementById('email').value + ' (' + document.getElementById('plan').value + ')'">Send</button>
<p id="out"></p><a href="/other">Other page</a></body></html>`;

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let app: Firecrawl;
let base: string;

const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html", ...headers } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/form") return html(FORM);
      if (p === "/login") return html("<html><head><title>In</title></head><body>Logged in</body></html>", { "set-cookie": "sid=s3cret; Path=/" });
      if (p === "/whoami") return html(`<html><head><title>Who</title></head><body><p id="c">${req.headers.get("cookie") ?? "nobody"}</p></body></html>`);
      return html("<html><head><title>Other</title></head><body><p>Other page</p></body></html>");
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  // Four browser pages: up to two sessions at once (half), two per key.
  h = await createHarness({ browserConcurrency: 4 });
  app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

describe("browser sessions", () => {
  test("bash code drives the session's page with agent-browser commands; the page keeps its state; delete reports the use", async () => {
    const who = h.services.keys.verify(h.key)!;
    const before = h.services.ledger.usage(who).creditsUsed;
    const created: any = await app.browser({ ttl: 120, activityTtl: 60 });
    expect(created.success).toBe(true);
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(110_000);

    const first: any = await app.browserExecute(created.id, {
      code: [
        `agent-browser open ${base}/form`,
        "agent-browser snapshot",
        "agent-browser snapshot -i",
        'agent-browser fill @e1 "bob@example.com"',
        "agent-browser check '#terms' && agent-browser is checked '#terms'",
        "agent-browser select '#plan' pro",
        "agent-browser click @e4 # the Send button",
        "agent-browser get text '#out'",
        "agent-browser --json get title",
        "agent-browser eval 'document.querySelectorAll(\"option\").length * 2'",
      ].join("\n"),
    });
    expect(first).toMatchObject({ success: true, exitCode: 0, killed: false, stderr: "" });
    const lines = first.stdout.split("\n");
    expect(lines.slice(0, 2)).toEqual(["✓ Form", `  ${base}/form`]);
    // The full outline: headings and text, with refs on what can be named.
    expect(first.stdout).toContain('- heading "Sign up" [ref=e1] [level=1]\n- paragraph: Fill the form.\n- text: Email\n- textbox "Email" [ref=e2]\n');
    // Interactive only, numbered afresh: the refs the next commands use.
    expect(first.stdout).toContain('- textbox "Email" [ref=e1]\n- checkbox "Terms" [ref=e2]\n- combobox "" [ref=e3]: Free\n- button "Send" [ref=e4]\n- link "Other page" [ref=e5]\n');
    expect(first.stdout).toEndWith('true\npro\nHello bob@example.com (pro)\n{"success":true,"data":"Form"}\n4\n');
    expect(first.output).toBe(first.stdout);

    // The next execution finds the page as the last one left it; navigation works both ways.
    const second: any = await app.browserExecute(created.id, { code: "agent-browser get text '#out'; agent-browser click 'a'; agent-browser get title; agent-browser back; agent-browser get title" });
    expect(second).toMatchObject({ exitCode: 0, stderr: "" });
    expect(second.stdout).toBe(`Hello bob@example.com (pro)\nOther\n✓ Form\n  ${base}/form\nForm\n`);

    // A screenshot is stored and its URL printed.
    const shot: any = await app.browserExecute(created.id, { code: "agent-browser screenshot page.png" });
    const url = shot.stdout.trim();
    expect(url).toMatch(/\/v2\/files\/\w+\.png$/);
    const png = new Uint8Array(await (await fetch(url)).arrayBuffer());
    expect([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");

    const listed: any = await app.listBrowsers();
    expect(listed.sessions).toEqual([expect.objectContaining({ id: created.id, status: "active", cdpUrl: "", liveViewUrl: created.liveViewUrl, streamWebView: true })]);
    expect(created.liveViewUrl).toMatch(/\/v2\/live\/[\w-]{43}$/);
    const gone: any = await app.deleteBrowser(created.id);
    expect(gone).toMatchObject({ success: true, status: "destroyed", creditsBilled: 3 });
    expect(gone.sessionDurationMs).toBeGreaterThan(0);
    expect(h.services.ledger.usage(who).creditsUsed - before).toBe(3);
    expect(((await app.listBrowsers({ status: "destroyed" })) as any).sessions).toEqual([expect.objectContaining({ id: created.id, status: "destroyed", endedAt: expect.any(String) })]);
    expect(((await app.listBrowsers({ status: "active" })) as any).sessions).toEqual([]);
    // Closed, the session is gone with upstream's 410 (an id never known stays a 404).
    expect((await h.request(`/v2/browser/${created.id}/execute`, { method: "POST", json: { code: "agent-browser get url", language: "bash" } })).status).toBe(410);
    expect((await h.request(`/v2/browser/${created.id}`, { method: "DELETE" })).status).toBe(410);
    expect((await h.request(`/v2/browser/${crypto.randomUUID()}`, { method: "DELETE" })).status).toBe(404);
  }, 60_000);

  test("/v2/interact is the same routes as /v2/browser (upstream's documented name): open, list, execute, close", async () => {
    const opened = await h.request("/v2/interact", { method: "POST", json: {} });
    expect(opened.status).toBe(200);
    const { id } = (await opened.json()) as any;
    const listed = (await (await h.request("/v2/interact")).json()) as any;
    expect(listed.sessions.map((x: any) => x.id)).toContain(id);
    const ran = (await (await h.request(`/v2/interact/${id}/execute`, { method: "POST", json: { code: `agent-browser open ${base}/form && agent-browser get title`, language: "bash" } })).json()) as any;
    expect(ran).toMatchObject({ success: true, exitCode: 0 });
    // One session, whichever name it is reached by.
    expect(((await (await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "agent-browser get url", language: "bash" } })).json()) as any).stdout).toBe(`${base}/form\n`);
    const closed = (await (await h.request(`/v2/interact/${id}`, { method: "DELETE" })).json()) as any;
    expect(closed).toMatchObject({ success: true, status: "destroyed", creditsBilled: 2 });
    expect((await h.request(`/v2/browser/${id}`, { method: "DELETE" })).status).toBe(410);
  }, 60_000);

  test("find (semantic locators), set viewport and cookies", async () => {
    const { id } = (await app.browser()) as any;
    try {
      const r: any = await app.browserExecute(id, {
        code: [
          `agent-browser open ${base}/form`,
          'agent-browser find label Email fill "ann@example.com"',
          "agent-browser find role checkbox check --name Terms",
          "agent-browser find role button click --name Send --exact",
          "agent-browser find first '#out' text",
          "agent-browser find nth 0 'a' text",
          "agent-browser find text 'Nowhere at all' click --exact --timeout 200 || echo 'not found'",
          "agent-browser set viewport 800 600 && agent-browser eval 'innerWidth + \"x\" + innerHeight'",
          "agent-browser cookies set flavour oat && agent-browser cookies",
          "agent-browser cookies clear && agent-browser cookies",
        ].join("\n"),
      });
      expect(r.stderr).toBe("✗ no element matches text=Nowhere at all after 200 ms\n");
      const lines = r.stdout.trim().split("\n").slice(2);
      expect(lines.slice(0, 4)).toEqual(["Hello ann@example.com (free)", "Other page", "not found", "800x600"]);
      expect(JSON.parse(lines[4])).toEqual([expect.objectContaining({ name: "flavour", value: "oat", domain: "127.0.0.1", path: "/" })]);
      expect(lines[5]).toBe("[]");
      expect(((await app.browserExecute(id, { code: "agent-browser find role" })) as any).exitCode).toBe(2);
    } finally {
      await app.deleteBrowser(id);
    }
  }, 60_000);

  test("bash's chaining and statuses: && and || by exit status, set -e, command not found, exit, syntax refused before anything runs", async () => {
    const { id } = (await app.browser()) as any;
    const run = async (code: string) => (await app.browserExecute(id, { code })) as any;
    try {
      const chained = await run(`agent-browser open ${base}/form\nagent-browser click @e99 || echo "no such ref"\nagent-browser get title && echo ok\nfalse && echo never`);
      expect(chained.stdout).toBe(`✓ Form\n  ${base}/form\nno such ref\nForm\nok\n`);
      expect(chained.stderr).toBe("✗ no element matches @e99 (refs change with every snapshot and page: take a new one)\n");
      expect(chained.exitCode).toBe(1); // the last command run was `false`

      const strict = await run("set -e\necho one\nagent-browser click '#missing'\necho two");
      expect([strict.stdout, strict.exitCode]).toEqual(["one\n", 1]);
      const unknown = await run("curl http://example.com; echo after");
      expect(unknown.stderr).toContain("curl: command not found");
      expect([unknown.stdout, unknown.exitCode]).toEqual(["after\n", 0]);
      expect((await run("echo a; exit 3; echo b")).stdout).toBe("a\n");
      expect((await run("echo a; exit 3")).exitCode).toBe(3);
      for (const code of ["echo a | cat", "echo $HOME", "agent-browser eval \"$(cat /etc/passwd)\"", "echo a > /tmp/x", "sleep 100 &"]) {
        const refused = await run(`echo before\n${code}`);
        expect([code, refused.exitCode, refused.stdout]).toEqual([code, 2, ""]);
        expect(refused.stderr).toContain("are not supported");
      }
      expect((await run("agent-browser frobnicate")).stderr).toContain("unknown command: frobnicate");
      expect((await run("agent-browser open file:///etc/passwd")).stderr).toBe("✗ file:///etc/passwd is not an http(s) URL\n");
    } finally {
      await app.deleteBrowser(id);
    }
  }, 60_000);

  test("the time limit stops a script where it is (exit 124); a page stuck in a command ends the session", async () => {
    const { id } = (await app.browser()) as any;
    let t0 = performance.now();
    const slept: any = await app.browserExecute(id, { code: "echo start; sleep 30; echo never", timeout: 1 });
    expect(slept).toMatchObject({ killed: true, exitCode: 124, stdout: "start\n", stderr: "Stopped after 1 s.\n" });
    expect(performance.now() - t0).toBeLessThan(5_000);
    // Sleeping is not the page's fault: the session is still there.
    expect(((await app.browserExecute(id, { code: "echo still here" })) as any).stdout).toBe("still here\n");
    t0 = performance.now();
    const hung: any = await app.browserExecute(id, { code: `agent-browser open ${base}/other\nagent-browser eval 'while (true) {}'`, timeout: 2 });
    expect(hung).toMatchObject({ killed: true, exitCode: 124 });
    expect(performance.now() - t0).toBeLessThan(8_000);
    // Stuck, the session was dropped: gone (410, upstream's "destroyed"), listed with status "error".
    expect((await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "echo x", language: "bash" } })).status).toBe(410);
  }, 30_000);

  test("closing a session stops the script running in it first: the script answers that, and is billed", async () => {
    const { id } = (await app.browser()) as any;
    const running = app.browserExecute(id, { code: "echo started; sleep 20; echo never" }) as Promise<any>;
    await Bun.sleep(300);
    const t0 = performance.now();
    const closed: any = await app.deleteBrowser(id);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(closed).toMatchObject({ success: true, status: "destroyed", creditsBilled: 1 });
    expect(await running).toMatchObject({ success: true, killed: true, exitCode: 124, stdout: "started\n", stderr: "Stopped: the session was closed.\n" });
  }, 30_000);

  test("stopping the server waits for a session whose script is running: the script is stopped, its page handed back", async () => {
    const own = await createHarness({ browserConcurrency: 4 });
    try {
      const { id } = (await (await own.request("/v2/browser", { method: "POST", json: {} })).json()) as any;
      const running = own.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code: "echo started; sleep 20", language: "bash" } });
      await Bun.sleep(300);
      await own.services.interact!.closeAll();
      // Every close is over when closeAll returns: the script's page is back in the pool.
      expect(own.services.engines.pool!.running).toBe(0);
      expect(((await (await running).json()) as any)).toMatchObject({ killed: true, stdout: "started\n", stderr: "Stopped: the session was closed.\n" });
    } finally {
      await own.close();
    }
  }, 30_000);

  test("a profile keeps the session's cookies for the next session with that profile", async () => {
    const first: any = await app.browser({ profile: { name: "shop" } });
    await app.browserExecute(first.id, { code: `agent-browser open ${base}/login` });
    await app.deleteBrowser(first.id); // saved on close
    const second: any = await app.browser({ profile: { name: "shop", saveChanges: false } });
    const who: any = await app.browserExecute(second.id, { code: `agent-browser open ${base}/whoami && agent-browser get text '#c'` });
    expect(who.stdout).toEndWith("sid=s3cret\n");
    await app.deleteBrowser(second.id);
    const fresh: any = await app.browser();
    expect(((await app.browserExecute(fresh.id, { code: `agent-browser open ${base}/whoami && agent-browser get text '#c'` })) as any).stdout).toEndWith("nobody\n");
    await app.deleteBrowser(fresh.id);
  }, 60_000);

  test("limits and refusals: two sessions per key, an unused session closes, live view, an unknown language refused, bad bodies", async () => {
    const a: any = await app.browser();
    const b: any = await app.browser();
    const third = await h.request("/v2/browser", { method: "POST", json: {} });
    expect(third.status).toBe(429);
    expect(((await third.json()) as any).code).toBe("TOO_MANY_INTERACT_SESSIONS");
    const ruby = await h.request(`/v2/browser/${a.id}/execute`, { method: "POST", json: { code: "puts 1", language: "ruby" } });
    expect(ruby.status).toBe(400);
    expect(((await ruby.json()) as any)).toMatchObject({ code: "BAD_REQUEST", details: [expect.objectContaining({ path: ["language"] })] });
    // Another key sees none of them.
    const other = h.services.keys.create("other").key;
    expect((await h.request(`/v2/browser/${a.id}/execute`, { method: "POST", json: { code: "echo x", language: "bash" }, auth: other })).status).toBe(404);
    expect(((await (await h.request("/v2/browser", { auth: other })).json()) as any).sessions).toEqual([]);
    await app.deleteBrowser(a.id);
    await app.deleteBrowser(b.id);

    for (const json of [{ ttl: 5 }, { activityTtl: 99_999 }, { profile: {} }, { unknown: 1 }]) expect([json, (await h.request("/v2/browser", { method: "POST", json })).status]).toEqual([json, 400]);
    expect((await h.request("/v2/browser?status=gone")).status).toBe(400);
    expect((await h.request(`/v2/browser/${crypto.randomUUID()}/execute`, { method: "POST", json: {} })).status).toBe(400);

    // Unused for its activity time, a session closes by itself (a short time, set on the registry directly).
    const keyId = h.services.keys.verify(h.key)!.keyId;
    const idle = await h.services.interact!.create({ keyId, lifeMs: 60_000, idleMs: 200, liveView: false, signal: new AbortController().signal });
    await Bun.sleep(600);
    expect(h.services.interact!.list(keyId, "active")).toEqual([]);
    expect(h.services.interact!.list(keyId, "destroyed")[0]).toMatchObject({ id: idle.id, status: "destroyed" });
  }, 60_000);
});
