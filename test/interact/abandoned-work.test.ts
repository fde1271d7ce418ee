/**
 * A script whose time runs out with a command still running on the session's page (src/interact/page-abandon.ts),
 * with real Chromium and a local site. A wait driven from crawlbox (bash `wait --text`, JavaScript's
 * `waitForSelector`) or a navigation under way (`open` of a page whose load never ends, or whose server never
 * answers) is abandoned: the load is stopped, the session goes on, and a profile session saves its changes when it is
 * closed later. Only a page whose own thread does not answer (a busy loop in an `eval`) ends its session; its profile
 * is still saved first, the answer says the session was closed, and the session is listed as `error` and gone (410).
 * Before, any command still running ended the session silently and its profile was lost.
 *
 * Then: only a load the script started is stopped (every abandon stopped the page's loading, which cancelled the
 * page's own `fetch` and `EventSource`); a page busy with a finite task of a few seconds keeps its session (1.5 s
 * dropped it); and a stuck page is answered for within the script's timeout and 3 s whatever it does (a loop re-armed
 * by `setInterval` took 11.5 s, said its profile could not be saved, and the save, still running, later wrote its
 * cookies alone), its profile saved whole before the answer, or not at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;
/** Requests the site holds until the tests end (a server that never answers). */
const held: Array<() => void> = [];
/** How many times `/never` was asked for. */
let neverHits = 0;

const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html", ...headers } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      const p = url.pathname;
      if (p === "/setcookie") return html(`<html><head><title>Set</title></head><body><p>Cookie set</p></body></html>`, { "set-cookie": `sid=${url.searchParams.get("v")}; Path=/` });
      if (p === "/showcookie") return html(`<html><head><title>Show</title></head><body><p id="c">${req.headers.get("cookie") ?? "nobody"}</p><p id="ls"></p><script>document.getElementById("ls").textContent = localStorage.getItem("ls") || "none";</script></body></html>`);
      // Its load never ends: a frame whose document never comes.
      if (p === "/hangframe") return html(`<html><head><title>Hangframe</title></head><body><p>Framed</p><iframe src="/never"></iframe></body></html>`);
      if (p === "/never") {
        neverHits++;
        return new Promise<Response>((resolve) => held.push(() => resolve(html("<p>late</p>"))));
      }
      // Goes elsewhere by itself after 1 s, to a page that answers 3 s later.
      if (p === "/later") return html(`<html><head><title>Later</title></head><body><p>Later</p><script>setTimeout(() => { location.href = "/slow?ms=3000"; }, 1000);</script></body></html>`);
      if (p === "/slow") return Bun.sleep(Number(url.searchParams.get("ms") ?? 0)).then(() => html(`<html><head><title>Slow</title></head><body><p>Slow page</p></body></html>`));
      // A link to a server that never answers.
      if (p === "/tonever") return html(`<html><head><title>Link</title></head><body><a id="go" href="/never">go</a></body></html>`);
      // Busy on its own, between scripts: a loop of 100 s started again every 50 ms.
      if (p === "/busy") return html(`<html><head><title>Busy</title></head><body><p>Busy</p><script>setInterval(() => { const t = Date.now(); while (Date.now() - t < 100000); }, 50);</script></body></html>`);
      return html(`<html><head><title>Plain</title></head><body><p>Plain page</p></body></html>`);
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  for (const release of held) release();
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const open = async (json: Record<string, unknown> = {}) => ((await (await h.request("/v2/browser", { method: "POST", json })).json()) as any).id as string;
const run = async (id: string, code: string, language: "bash" | "node", timeout?: number) => {
  const res = await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code, language, ...(timeout ? { timeout } : {}) } });
  return { status: res.status, body: (await res.json()) as any };
};
/** What a session started from `profile` finds: its cookie (and, with `storage`, its local storage, after a space). */
const cookieSeenBy = async (profile: string, storage = false) => {
  const id = await open({ profile: { name: profile, saveChanges: false } });
  try {
    const read = storage ? `agent-browser get text '#c' && agent-browser get text '#ls'` : `agent-browser get text '#c'`;
    const lines = (await run(id, `agent-browser open ${base}/showcookie && ${read}`, "bash")).body.stdout.trim().split("\n");
    return storage ? lines.slice(-2).join(" ") : lines.at(-1);
  } finally {
    await h.request(`/v2/browser/${id}`, { method: "DELETE" });
  }
};

describe("a script stopped in a wait or a load keeps its session", () => {
  test("bash: `wait --text` that never matches, stopped by the time limit: the session goes on, and its profile is saved at its close", async () => {
    const id = await open({ profile: { name: "login" } });
    const t0 = performance.now();
    const waited = await run(id, `agent-browser open ${base}/setcookie?v=LOGGEDIN\nagent-browser wait --text "Dashboard"`, "bash", 2);
    expect(waited.body).toMatchObject({ killed: true, exitCode: 124, stderr: "Stopped after 2 s.\n" });
    expect(performance.now() - t0).toBeLessThan(6_000);
    // The session is still there, on the page the script left.
    expect((await run(id, "agent-browser get url", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/setcookie?v=LOGGEDIN\n` });
    expect(((await (await h.request(`/v2/browser/${id}`)).json()) as any)).toMatchObject({ success: true, id, status: "active" });
    expect((await h.request(`/v2/browser/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(await cookieSeenBy("login")).toBe("sid=LOGGEDIN");
  }, 60_000);

  test("JavaScript: waitForSelector for an element that never comes, stopped by the time limit: the session goes on", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/plain")`, "node");
      const waited = await run(id, `await page.waitForSelector("#never")`, "node", 2);
      expect(waited.body).toMatchObject({ killed: true, exitCode: 124 });
      expect(waited.body.stderr).not.toContain("session was closed");
      expect((await run(id, "return await page.title()", "node")).body).toMatchObject({ exitCode: 0, result: "Plain" });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("bash: `open` of a page whose load never ends, stopped by the time limit: its load is stopped, the session goes on", async () => {
    const id = await open();
    try {
      const opened = await run(id, `agent-browser open ${base}/hangframe`, "bash", 3);
      expect(opened.body).toMatchObject({ killed: true, exitCode: 124 });
      const after = await run(id, "agent-browser get url && agent-browser get text p && agent-browser eval 'document.readyState'", "bash");
      expect(after.body).toMatchObject({ exitCode: 0, stdout: `${base}/hangframe\nFramed\ncomplete\n` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("JavaScript: goto a server that never answers, stopped by the time limit: the navigation is stopped, the page stays where it was", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/plain")`, "node");
      const hits = neverHits;
      const went = await run(id, `await page.goto("${base}/never")`, "node", 2);
      expect(went.body).toMatchObject({ killed: true, exitCode: 124 });
      expect(neverHits).toBe(hits + 1);
      // Released now, the held answer would replace the page if the navigation were still under way.
      for (const release of held.splice(0)) release();
      await Bun.sleep(500);
      expect((await run(id, "return page.url() + ' ' + (await page.title())", "node")).body).toMatchObject({ exitCode: 0, result: `${base}/plain Plain` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);
});

describe("only what the script started is abandoned", () => {
  test("a wait stopped by the time limit leaves the page's own fetch and EventSource running (no load of the script's to stop)", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/plain")`, "node");
      const code = `await page.evaluate(() => { window.p2 = fetch("/never").then(() => "res", (e) => "rej: " + e); window.es = new EventSource("/never"); });\nawait page.waitForSelector("#never")`;
      expect((await run(id, code, "node", 4)).body).toMatchObject({ killed: true, exitCode: 124, stderr: "Stopped after 4 s.\n" });
      const after = await run(id, `return await page.evaluate(() => Promise.race([window.p2, new Promise((r) => setTimeout(() => r("pending"), 300))]).then((v) => v + " es.readyState=" + window.es.readyState))`, "node");
      expect(after.body).toMatchObject({ exitCode: 0, result: "pending es.readyState=0" });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("a navigation the page starts by itself while a wait runs is not stopped with the wait", async () => {
    const id = await open();
    try {
      const waited = await run(id, `agent-browser open ${base}/later && agent-browser wait --text 'nothing-here'`, "bash", 2);
      expect(waited.body).toMatchObject({ killed: true, exitCode: 124 });
      await Bun.sleep(4_000);
      // Its own redirect was cancelled with the wait: the page stayed on /later.
      expect((await run(id, "agent-browser get url && agent-browser get title", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/slow?ms=3000\nSlow\n` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("a link the script clicked whose server never answers is still stopped with the script", async () => {
    const id = await open();
    try {
      const clicked = await run(id, `agent-browser open ${base}/tonever && agent-browser click '#go' && agent-browser wait --text 'nothing-here'`, "bash", 2);
      expect(clicked.body).toMatchObject({ killed: true, exitCode: 124 });
      // Released now, the held answer would replace the page if the navigation were still under way.
      for (const release of held.splice(0)) release();
      await Bun.sleep(500);
      expect((await run(id, "agent-browser get url && agent-browser get title", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/tonever\nLink\n` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("a page busy with a finite task the script started keeps its session when the task ends within 2.4 s of the stop", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/plain")`, "node");
      const busy = await run(id, `await page.evaluate(() => { const t = Date.now(); while (Date.now() - t < 3600); })`, "node", 2);
      expect(busy.body).toMatchObject({ killed: true, exitCode: 124, stderr: "Stopped after 2 s.\n" });
      expect((await run(id, "return await page.title()", "node")).body).toMatchObject({ exitCode: 0, result: "Plain" });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);
});

describe("a page whose own thread does not answer ends its session, saying so", () => {
  test("a busy loop re-armed by setInterval: answered within the timeout and 3 s, its profile (cookies and storage) saved first", async () => {
    const id = await open({ profile: { name: "rearm" } });
    await run(id, `await page.goto("${base}/setcookie?v=REARMED"); await page.evaluate(() => localStorage.setItem("ls", "STORED"))`, "node");
    const t0 = performance.now();
    const hung = await run(id, `await page.evaluate(() => { setInterval(() => { for (;;); }, 0); for (;;); })`, "node", 5);
    const took = performance.now() - t0;
    expect(hung.body).toMatchObject({ killed: true, exitCode: 124 });
    expect(hung.body.stderr).toStartWith("Stopped after 5 s.\nThe session was closed: its page was still running JavaScript that did not return");
    expect(hung.body.stderr).toEndWith("Its profile was saved first.\n");
    expect(took).toBeLessThan(8_000);
    expect(await cookieSeenBy("rearm", true)).toBe("sid=REARMED STORED");
  }, 60_000);

  test("a page whose thread cannot even be interrupted (a synchronous request that never ends): answered in time, and its profile left as it was, for good", async () => {
    const before = await open({ profile: { name: "blocked" } });
    await run(before, `agent-browser open ${base}/setcookie?v=BEFORE`, "bash");
    await h.request(`/v2/browser/${before}`, { method: "DELETE" });
    const id = await open({ profile: { name: "blocked" } });
    const t0 = performance.now();
    const code = `agent-browser open ${base}/setcookie?v=CHANGED\nagent-browser eval 'const x = new XMLHttpRequest(); x.open("GET", "/never", false); x.send(); 1'`;
    const hung = await run(id, code, "bash", 3);
    const took = performance.now() - t0;
    expect(hung.body).toMatchObject({ killed: true, exitCode: 124 });
    expect(hung.body.stderr).toEndWith("Its profile could not be saved.\n");
    // A save still under way would write the cookies alone, later: none does.
    await Bun.sleep(3_000);
    expect(await cookieSeenBy("blocked")).toBe("sid=BEFORE");
    expect(took).toBeLessThan(6_000);
  }, 60_000);

  test("a busy loop in `eval`: the session is closed (410 after, listed as error), and its profile is saved first", async () => {
    const id = await open({ profile: { name: "busy" } });
    const t0 = performance.now();
    const hung = await run(id, `agent-browser open ${base}/setcookie?v=BEFORELOOP\nagent-browser eval 'while (true) {}'`, "bash", 2);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(hung.body).toMatchObject({ killed: true, exitCode: 124 });
    expect(hung.body.stderr).toStartWith("Stopped after 2 s.\nThe session was closed: its page was still running JavaScript that did not return");
    expect(hung.body.stderr).toEndWith("Its profile was saved first.\n");
    expect(hung.body.liveViewUrl).toBeUndefined();
    const next = await run(id, "echo x", "bash");
    expect([next.status, next.body.error]).toEqual([410, "Browser session has been destroyed."]);
    const errored = ((await (await h.request("/v2/browser?status=error")).json()) as any).sessions;
    expect(errored.filter((e: any) => e.id === id)).toEqual([expect.objectContaining({ id, status: "error", endedAt: expect.any(String) })]);
    expect(await cookieSeenBy("busy")).toBe("sid=BEFORELOOP");
  }, 60_000);

  test("closed (DELETE) while a busy loop runs in its page: the close is prompt, and the profile is still saved", async () => {
    const id = await open({ profile: { name: "closed-busy" } });
    const running = run(id, `agent-browser open ${base}/setcookie?v=CLOSEDBUSY\nagent-browser eval 'while (true) {}'`, "bash", 60);
    await Bun.sleep(1_500);
    const t0 = performance.now();
    expect((await h.request(`/v2/browser/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect((await running).body).toMatchObject({ killed: true, exitCode: 124, stderr: "Stopped: the session was closed.\n" });
    expect(await cookieSeenBy("closed-busy")).toBe("sid=CLOSEDBUSY");
  }, 60_000);

  test("closed (DELETE) while the page's own script keeps it busy between scripts: the close is prompt, and the profile is still saved", async () => {
    const id = await open({ profile: { name: "own-busy" } });
    expect((await run(id, `agent-browser open ${base}/setcookie?v=OWNBUSY && agent-browser open ${base}/busy`, "bash")).body).toMatchObject({ exitCode: 0 });
    await Bun.sleep(1_000);
    const t0 = performance.now();
    const res = await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    const took = performance.now() - t0;
    expect([res.status, ((await res.json()) as any).status]).toEqual([200, "destroyed"]);
    // It was 5 s (the save cut off) and the profile lost.
    expect(took).toBeLessThan(4_000);
    expect(await cookieSeenBy("own-busy")).toBe("sid=OWNBUSY");
  }, 60_000);
});
