/**
 * A navigation the session's code starts through the page's own script (`location.href = …`, `location.assign`,
 * `form.submit()` in an `eval` or a `page.evaluate`) is the code's, as a clicked link or a sent form is: when the
 * script is stopped by its time limit with that navigation still under way (its server never answers), the navigation
 * is stopped with it (interact/page-abandon.ts), and the page stays where it was. Before, only clicked links, sent
 * forms and `open`/`goto` were stopped: a navigation started by `eval 'location.href = …'` went on after the script,
 * and replaced the page under the next one when its server answered. A navigation the page starts by itself (a timer
 * of its own) outside the code's calls is still left alone (test/interact/abandoned-work.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;
/** Requests the site holds until released (a server that has not answered yet). */
const held: Array<() => void> = [];
let neverHits = 0;
/** The `/once` keys answered already. */
const seen = new Set<string>();

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/never") {
        neverHits++;
        return new Promise<Response>((resolve) => held.push(() => resolve(html("<html><head><title>Late</title></head><body><p>late</p></body></html>"))));
      }
      // Answers the first request for each `k`, then holds the later ones (not cached: a move back asks again).
      if (p === "/once") {
        const k = new URL(req.url).searchParams.get("k") ?? "";
        if (!seen.has(k)) {
          seen.add(k);
          return new Response("<html><head><title>Once</title></head><body><p>Once</p></body></html>", { headers: { "content-type": "text/html", "cache-control": "no-store" } });
        }
        return new Promise<Response>((resolve) => held.push(() => resolve(html("<html><head><title>Late</title></head><body><p>late</p></body></html>"))));
      }
      // Goes elsewhere by itself 0.5 s after it loads, then loops forever: the new document can never commit.
      if (p === "/wanderbusy") return html(`<html><head><title>WB</title></head><body><p>wb</p><script>setTimeout(() => { location.href = "/never"; while (true) {} }, 500);</script></body></html>`);
      // Goes elsewhere by itself 2.5 s after it loads, to a server that answers when released.
      if (p === "/later") return html(`<html><head><title>Later</title></head><body><p>Later</p><script>setTimeout(() => { location.href = "/never"; }, 2500);</script></body></html>`);
      return html(`<html><head><title>Plain</title></head><body><p>Plain page</p><form id="f" action="/never"><input name="q" value="1"></form></body></html>`);
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

const open = async () => ((await (await h.request("/v2/browser", { method: "POST", json: {} })).json()) as any).id as string;
const run = async (id: string, code: string, language: "bash" | "node", timeout?: number) => {
  const res = await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code, language, ...(timeout ? { timeout } : {}) } });
  return { status: res.status, body: (await res.json()) as any };
};
/** Lets the held answers through, then gives a navigation still under way the time to replace the page. */
const releaseHeld = async () => {
  for (const release of held.splice(0)) release();
  await Bun.sleep(700);
};

describe("a navigation the code's script started is stopped with the code", () => {
  test("bash: `eval 'location.href = …'` to a server that never answers, then a wait stopped by the time limit: the page stays", async () => {
    const id = await open();
    try {
      await run(id, `agent-browser open ${base}/plain`, "bash");
      const hits = neverHits;
      const stopped = await run(id, `agent-browser eval 'location.href = "/never"; 1' && agent-browser wait --text 'nothing-here'`, "bash", 2);
      expect(stopped.body).toMatchObject({ killed: true, exitCode: 124 });
      expect(neverHits).toBe(hits + 1);
      await releaseHeld();
      expect((await run(id, "agent-browser get url && agent-browser get title", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/plain\nPlain\n` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("JavaScript: `page.evaluate(() => location.assign(…))`, then a wait stopped by the time limit: the page stays", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/plain")`, "node");
      const stopped = await run(id, `await page.evaluate(() => { location.assign("/never"); });\nawait page.waitForSelector("#nothing")`, "node", 2);
      expect(stopped.body).toMatchObject({ killed: true, exitCode: 124 });
      await releaseHeld();
      expect((await run(id, "return page.url() + ' ' + (await page.title())", "node")).body).toMatchObject({ exitCode: 0, result: `${base}/plain Plain` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);

  test("JavaScript: `history.back()` in a locator's evaluate, to a page whose server no longer answers: the page stays", async () => {
    const id = await open();
    try {
      await run(id, `await page.goto("${base}/once?k=back"); await page.goto("${base}/plain")`, "node");
      const stopped = await run(id, `await page.locator("p").evaluate(() => history.back());\nawait page.waitForSelector("#nothing")`, "node", 2);
      expect(stopped.body).toMatchObject({ killed: true, exitCode: 124 });
      await releaseHeld();
      expect((await run(id, "return page.url() + ' ' + (await page.title())", "node")).body).toMatchObject({ exitCode: 0, result: `${base}/plain Plain` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);
});

describe("a navigation the code's script started, then a timed wait that ran out (nothing of the code's left in the page)", () => {
  for (const [language, code] of [
    ["bash", `agent-browser eval "location.href = '/never'; 1" && agent-browser wait 100000`],
    ["node", `await page.evaluate(() => { location.href = "/never"; });\nawait page.waitForTimeout(1e5)`],
  ] as const) {
    test(`${language}: the navigation is stopped with the script; the next command answers at once, on the page`, async () => {
      const id = await open();
      try {
        await run(id, language === "bash" ? `agent-browser open ${base}/plain` : `await page.goto("${base}/plain")`, language);
        const stopped = await run(id, code, language, 2);
        expect(stopped.body).toMatchObject({ killed: true, exitCode: 124 });
        const t0 = performance.now();
        const next = await run(id, "agent-browser get url && agent-browser get title", "bash", 10);
        const tookMs = performance.now() - t0;
        expect(next.body).toMatchObject({ exitCode: 0, stdout: `${base}/plain\nPlain\n` });
        expect(tookMs).toBeLessThan(3_000);
        await releaseHeld();
        expect((await run(id, "agent-browser get url", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/plain\n` });
      } finally {
        await h.request(`/v2/browser/${id}`, { method: "DELETE" });
      }
    }, 60_000);
  }
});

describe("a page busy while it navigates on its own is excused only a few seconds", () => {
  test("its timer navigates, then loops forever: the session is dropped as stuck, not kept busy forever", async () => {
    const id = await open();
    try {
      await run(id, `agent-browser open ${base}/wanderbusy`, "bash");
      await Bun.sleep(1_000);
      let dropped = false;
      for (let i = 0; i < 3 && !dropped; i++) {
        const r = await run(id, "agent-browser get title", "bash", 3);
        dropped = r.status !== 200 || (await (await h.request(`/v2/browser/${id}`)).json() as any).status === "error";
      }
      expect(dropped).toBe(true);
      expect(((await (await h.request(`/v2/browser/${id}`)).json()) as any).status).toBe("error");
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 90_000);
});

describe("the page's own navigation, outside the code's calls, is left alone", () => {
  test("a timer of the page's own sends it elsewhere during a wait after an `eval`: not stopped with the wait", async () => {
    const id = await open();
    try {
      await run(id, `agent-browser open ${base}/later`, "bash");
      // The eval returns at once; the page's own timer navigates 2.5 s after the load, while the wait runs.
      const stopped = await run(id, `agent-browser eval 'document.title' && agent-browser wait --text 'nothing-here'`, "bash", 4);
      expect(stopped.body).toMatchObject({ killed: true, exitCode: 124 });
      await releaseHeld();
      expect((await run(id, "agent-browser get url && agent-browser get title", "bash")).body).toMatchObject({ exitCode: 0, stdout: `${base}/never\nLate\n` });
    } finally {
      await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    }
  }, 60_000);
});
