/**
 * Every action type (api-v2.md §6.6) against a local playground page with real Chromium, their results in
 * `data.actions`, the limits, and SCRAPE_ACTION_ERROR naming the failing action.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startJsSite, type JsSite } from "../fixtures/js-pages.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, imageSize, scrape } from "./helpers.ts";
import { type ActionError, runActions } from "../../src/engines/browser/actions.ts";
import { NetworkTracker } from "../../src/engines/browser/wait.ts";

let site: JsSite;
let h: Harness;

beforeAll(async () => {
  site = startJsSite();
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
});

describe("actions", () => {
  test("wait, click (one and all), write, press, scroll, executeJavascript, scrape: each with its effect", async () => {
    const { status, body } = await scrape(h, {
      url: `${site.url}/actions`,
      onlyMainContent: false,
      actions: [
        { type: "wait", milliseconds: 20 },
        { type: "click", selector: "#reveal" },
        { type: "click", selector: ".inc", all: true },
        { type: "click", selector: "#q" },
        { type: "write", text: "tomatoes" },
        { type: "press", key: "Enter" },
        { type: "wait", selector: ".late" },
        { type: "scroll", direction: "down" },
        { type: "scroll", selector: "#box" },
        { type: "executeJavascript", script: "[document.body.dataset.scrolled, document.body.dataset.boxScrolled]" },
        { type: "executeJavascript", script: "return document.querySelectorAll('.inc').length * 2" },
        { type: "executeJavascript", script: "new Promise(r => setTimeout(() => r({ ok: true }), 10))" },
        { type: "scrape" },
      ],
    });
    expect(status).toBe(200);
    const md: string = body.data.markdown;
    expect(md).toContain("Secret revealed by click");
    expect(md).toContain("Count: 3");
    expect(md).toContain("Submitted: tomatoes");
    expect(md).toContain("Appeared late");
    const a = body.data.actions;
    expect(a.screenshots).toEqual([]);
    expect(a.pdfs).toEqual([]);
    const [scrolled, boxScrolled] = a.javascriptReturns[0].value;
    expect(a.javascriptReturns[0].type).toBe("array");
    expect(Number(scrolled)).toBeGreaterThan(0);
    expect(Number(boxScrolled)).toBeGreaterThan(0);
    expect(a.javascriptReturns[1]).toEqual({ type: "number", value: 6 });
    expect(a.javascriptReturns[2]).toEqual({ type: "object", value: { ok: true } });
    expect(a.scrapes).toHaveLength(1);
    expect(a.scrapes[0].url).toBe(`${site.url}/actions`);
    expect(a.scrapes[0].html).toContain("Submitted: tomatoes");
    expect(body.data.metadata.engine).toBe("browser");
  });

  test("screenshot (viewport and fullPage) and pdf (format, landscape) are stored files", async () => {
    const { body } = await scrape(h, {
      url: `${site.url}/tall`,
      actions: [
        { type: "screenshot", viewport: { width: 640, height: 480 } },
        { type: "screenshot", fullPage: true, quality: 50 },
        { type: "pdf", format: "A4", landscape: true, scale: 0.8 },
      ],
    });
    const a = body.data.actions;
    expect(a.screenshots).toHaveLength(2);
    const first = imageSize(new Uint8Array(await (await fetchFile(h, a.screenshots[0])).arrayBuffer()));
    expect(first).toEqual({ width: 640, height: 480, type: "png" });
    const full = imageSize(new Uint8Array(await (await fetchFile(h, a.screenshots[1])).arrayBuffer()));
    expect(full.type).toBe("jpeg");
    expect(full.height).toBeGreaterThan(3000);
    expect(a.pdfs).toHaveLength(1);
    expect(a.pdfs[0]).toMatch(/\/v2\/files\/[0-9a-f]{32}\.pdf$/);
    const pdf = await fetchFile(h, a.pdfs[0]);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const text = new TextDecoder("latin1").decode(new Uint8Array(await pdf.arrayBuffer()));
    expect(text.startsWith("%PDF-")).toBe(true);
    // A4 landscape: 842 × 595 points.
    expect(text).toMatch(/MediaBox\s*\[\s*0\s+0\s+841\.9\d*\s+595\.\d+/);
  });

  test("a failing action gives SCRAPE_ACTION_ERROR naming its index", async () => {
    const click = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "wait", milliseconds: 1 }, { type: "click", selector: "#missing" }] });
    expect(click.body.code).toBe("SCRAPE_ACTION_ERROR");
    expect(click.body.error).toContain("Action 1 (click)");
    expect(click.body.details).toEqual({ index: 1, type: "click" });
    const js = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "executeJavascript", script: "throw new Error('boom')" }] });
    expect(js.body.code).toBe("SCRAPE_ACTION_ERROR");
    expect(js.body.error).toContain("boom");
  });

  test("a selector wait is bounded by the scrape's deadline", async () => {
    const started = performance.now();
    const { body } = await scrape(h, { url: `${site.url}/actions`, timeout: 3000, actions: [{ type: "wait", selector: "#never" }] });
    expect(performance.now() - started).toBeLessThan(6000);
    expect(["SCRAPE_ACTION_ERROR", "SCRAPE_TIMEOUT"]).toContain(body.code);
  });
});

describe("limits (checked before anything is fetched)", () => {
  test("more than 50 actions, waits over 60 s, waitFor over timeout/2, wait with both or neither field", async () => {
    const before = site.hits.get("/actions") ?? 0;
    const many = await scrape(h, { url: `${site.url}/actions`, actions: Array.from({ length: 51 }, () => ({ type: "scrape" })) });
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body)).toContain("cannot exceed 50");
    const waits = await scrape(h, {
      url: `${site.url}/actions`,
      waitFor: 30000,
      timeout: 120000,
      actions: [{ type: "wait", milliseconds: 30001 }],
    });
    expect(waits.status).toBe(400);
    expect(JSON.stringify(waits.body)).toContain("60 seconds");
    const half = await scrape(h, { url: `${site.url}/actions`, waitFor: 6000, timeout: 10000 });
    expect(half.status).toBe(400);
    const both = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "wait", milliseconds: 5, selector: "#x" }] });
    expect(both.status).toBe(400);
    expect(site.hits.get("/actions") ?? 0).toBe(before);
  });

  test("an action selector that is not CSS (Puppeteer's aria/, pierce/, text/, xpath/, >>>, ::-p-…) is a 400 naming it", async () => {
    const before = site.hits.get("/actions") ?? 0;
    const notCss = [">>>", "#box >>> p", "div >>>> p", "aria/Reveal", "aria/", "pierce/#reveal", "pierce/", "text/Reveal", "xpath///button", "text=Reveal", "::-p-text(Reveal)", "button::-p-aria(Reveal)", "::-p-foo(x)", "div[", ""];
    for (const selector of notCss) {
      const { status, body } = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "wait", milliseconds: 1 }, { type: "click", selector }] });
      expect({ selector, status, code: body.code }).toEqual({ selector, status: 400, code: "BAD_REQUEST" });
      expect(body.details).toContainEqual(expect.objectContaining({ path: ["actions", 1, "selector"] }));
    }
    const wait = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "wait", selector: "aria/Reveal" }] });
    expect([wait.status, wait.body.details[0].path]).toEqual([400, ["actions", 0, "selector"]]);
    const scroll = await scrape(h, { url: `${site.url}/actions`, actions: [{ type: "scroll", selector: "::-p-text(tall)" }] });
    expect([scroll.status, scroll.body.details[0].path]).toEqual([400, ["actions", 0, "selector"]]);
    expect(site.hits.get("/actions") ?? 0).toBe(before);
    // The same characters inside a string are CSS, and work.
    const quoted = await scrape(h, {
      url: `${site.url}/actions`,
      onlyMainContent: false,
      actions: [{ type: "click", selector: "#reveal:not([title='aria/x >>> ::-p-text(y)'])" }],
    });
    expect(quoted.status).toBe(200);
    expect(quoted.body.data.markdown).toContain("Secret revealed by click");
  });
});

describe("selectors are matched as CSS only", () => {
  test("the runner never reads a selector as a Puppeteer query: a stored or replayed one Chromium refuses is a 400", async () => {
    const lease = await h.services.engines.pool!.acquire({ deadline: performance.now() + 20_000 });
    const network = new NetworkTracker(lease.page);
    try {
      await lease.page.setContent(
        `<button title="a >>> b" onclick="document.title='quoted'">A</button><p>p2</p>` +
          `<button id="t" onclick="document.title='text'">Reveal</button>`,
      );
      const run = (type: "click" | "wait", selector: string) =>
        runActions([type === "click" ? { type, selector, all: false } : { type, selector }], {
          page: lease.page,
          network,
          deadline: performance.now() + 5_000,
          budget: { leftBytes: 1_000_000 },
        });
      for (const selector of ["text/Reveal", "::-p-text(Reveal)", "xpath///button", "aria/Reveal", "pierce/#t", "p:contains(p2)"]) {
        for (const type of ["click", "wait"] as const) {
          await lease.page.evaluate(() => void (document.title = ""));
          const err = (await run(type, selector).then(() => undefined, (e: unknown) => e)) as ActionError | undefined;
          expect({ selector, type, status: err?.status, code: err?.code, title: await lease.page.title() }).toEqual({ selector, type, status: 400, code: "SCRAPE_ACTION_ERROR", title: "" });
          expect(err?.message).toContain("is not a valid selector");
        }
      }
      await run("click", "[title='a >>> b']");
      expect(await lease.page.title()).toBe("quoted");
      await run("wait", "#t");
    } finally {
      network.dispose();
      lease.release();
    }
  }, 60_000);
});
