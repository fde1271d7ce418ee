/**
 * Actions on a page that navigates under them, and which element a click picks. A script after an action that
 * started a navigation runs on the new document (once it is parsed), not against the old one's destroyed context; a
 * script whose own navigation cut it short is not run twice; a click without `all` clicks the first visible match.
 * Real Chromium, a local fixture server; scripts count their runs in `sessionStorage`, which outlives the document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Action } from "../../src/api/actions.ts";
import { type ActionError, type ActionResults, runActions } from "../../src/engines/browser/actions.ts";
import { untilDeadline } from "../../src/engines/browser/page-reads.ts";
import { NetworkTracker } from "../../src/engines/browser/wait.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, htmlPage, scrape } from "./helpers.ts";

/** How long `/slow` takes to answer: longer than an action's settling (1.5 s) plus a 500 ms wait. */
const SLOW_MS = 2_500;

const html = htmlPage;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      switch (url.pathname) {
        case "/start":
          return html(`<h1>Start</h1><a id="go" href="/toslow">go</a>`);
        case "/toslow":
          return new Response(null, { status: 302, headers: { location: "/slow" } });
        case "/slow":
          await Bun.sleep(SLOW_MS);
          return html(`<h1>Slow</h1>`);
        case "/never":
          await new Promise(() => {});
          return html("");
        case "/moves-on":
          return html(`<h1>Moves on</h1><script>addEventListener("load", () => { location.href = "/slow"; });</script>`);
        case "/form":
          return html(`<h1>Form</h1><form action="/posted" method="post"><input name="a" value="1"></form>`);
        case "/posted":
          return html(`<h1>Posted</h1>`);
        case "/landed":
          return html(`<h1>Landed</h1>`);
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

/**
 * Opens `path` (or sets `content`) on a pooled page and runs `actions` there: their results or error, and then the
 * page's run counter and title ("unread" when the page cannot answer within a second: a navigation still in flight).
 */
async function onPage(where: { path: string } | { content: string }, actions: Action[], timeoutMs = 15_000) {
  const lease = await h.services.engines.pool!.acquire({ deadline: performance.now() + 20_000 });
  const network = new NetworkTracker(lease.page);
  try {
    if ("path" in where) await lease.page.goto(`${base}${where.path}`);
    else await lease.page.setContent(where.content);
    const ran = await runActions(actions, { page: lease.page, network, deadline: performance.now() + timeoutMs, budget: { leftBytes: 1_000_000 } }).then(
      (results: ActionResults) => ({ results, error: undefined }),
      (error: ActionError) => ({ results: undefined, error }),
    );
    const read = <T>(p: Promise<T>) => untilDeadline(p.catch(() => "unread" as const), performance.now() + 1_000, "unread" as const);
    const runs = await read(lease.page.evaluate(() => sessionStorage.getItem("runs")));
    return { ...ran, runs, title: await read(lease.page.title()) };
  } finally {
    network.dispose();
    lease.release();
  }
}

/** A script that counts its runs in `sessionStorage` (which the next document of the origin sees) and then `rest`. */
const counted = (rest: string) => `sessionStorage.setItem("runs", Number(sessionStorage.getItem("runs") || 0) + 1); ${rest}`;

describe("executeJavascript after a navigation began", () => {
  test("after a click whose navigation is still in flight, the script runs on the new page", async () => {
    for (const pause of [[], [{ type: "wait", milliseconds: 500 }]] as Action[][]) {
      const { results, error } = await onPage({ path: "/start" }, [
        { type: "click", selector: "#go", all: false },
        ...pause,
        { type: "executeJavascript", script: "[location.pathname, document.querySelector('h1').textContent]" },
      ]);
      expect({ pause: pause.length, error: error?.message, returns: results?.javascriptReturns }).toEqual({
        pause: pause.length,
        error: undefined,
        returns: [{ type: "array", value: ["/slow", "Slow"] }],
      });
    }
  }, 60_000);

  test("a navigation the page began before the actions started: the script runs on the new page", async () => {
    const { results, error } = await onPage({ path: "/moves-on" }, [{ type: "executeJavascript", script: "document.querySelector('h1').textContent" }]);
    expect({ error: error?.message, returns: results?.javascriptReturns }).toEqual({ error: undefined, returns: [{ type: "string", value: "Slow" }] });
  }, 60_000);

  test("after a script that submitted a form, the next script reads the posted page, every time", async () => {
    for (let i = 0; i < 6; i++) {
      const { status, body } = await scrape(h, {
        url: `${base}/form`,
        maxAge: 0,
        actions: [
          { type: "executeJavascript", script: "document.forms[0].submit()" },
          { type: "executeJavascript", script: "document.querySelector('h1').textContent" },
        ],
      });
      expect({ i, status, error: body.error, returns: body.data?.actions?.javascriptReturns }).toEqual({
        i,
        status: 200,
        error: undefined,
        returns: [
          { type: "undefined", value: null },
          { type: "string", value: "Posted" },
        ],
      });
    }
  }, 60_000);

  test("a script that navigates and returns at once keeps its value and runs once", async () => {
    const { results, error, runs } = await onPage({ path: "/start" }, [
      { type: "executeJavascript", script: counted(`location.href = "/landed"; 1`) },
      { type: "executeJavascript", script: "location.pathname" },
    ]);
    expect(error).toBeUndefined();
    expect(results?.javascriptReturns).toEqual([
      { type: "number", value: 1 },
      { type: "string", value: "/landed" },
    ]);
    expect(runs).toBe("1");
  }, 60_000);

  test("a script cut short by its own navigation is not run again: 409 SCRAPE_ACTION_ERROR saying why", async () => {
    const { error, runs } = await onPage({ path: "/start" }, [
      { type: "executeJavascript", script: counted(`location.href = "/landed"; await new Promise((r) => setTimeout(r, 5000)); 2`) },
    ]);
    expect({ status: error?.status, code: error?.code, details: error?.details }).toEqual({
      status: 409,
      code: "SCRAPE_ACTION_ERROR",
      details: { index: 0, type: "executeJavascript" },
    });
    expect(error?.message).toContain("navigated away before the script's value came back");
    expect(runs).toBe("1");
  }, 60_000);

  test("a navigation that does not end before the timeout: 409 naming where it was going, the script not run", async () => {
    const started = performance.now();
    const { error } = await onPage(
      { path: "/start" },
      [
        { type: "executeJavascript", script: `location.href = "/never"; 1` },
        { type: "executeJavascript", script: "2" },
      ],
      4_000,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect({ status: error?.status, code: error?.code, details: error?.details }).toEqual({
      status: 409,
      code: "SCRAPE_ACTION_ERROR",
      details: { index: 1, type: "executeJavascript" },
    });
    expect(error?.message).toContain(`still navigating to ${base}/never when the scrape's timeout was reached; the script was not run`);
  }, 60_000);
});

describe("click without all", () => {
  const twins = (first: string) =>
    `${first}<button class="b" onclick="document.title='visible-clicked'">Visible</button>`;

  test("clicks the first visible match, not a hidden one before it", async () => {
    for (const hidden of ["display:none", "visibility:hidden", "width:0;height:0;padding:0;border:0;overflow:hidden"]) {
      const { error, title } = await onPage({ content: twins(`<button class="b" style="${hidden}" onclick="document.title='hidden-clicked'">Hidden</button>`) }, [
        { type: "click", selector: ".b", all: false },
      ]);
      expect({ hidden, error: error?.message, title }).toEqual({ hidden, error: undefined, title: "visible-clicked" });
    }
  }, 60_000);

  test("when no match is visible, the first one is still clicked (in the DOM); all still clicks every match", async () => {
    const hiddenOnly = await onPage({ content: `<input type="checkbox" id="c" style="display:none" onclick="document.title='checked:' + this.checked">` }, [
      { type: "click", selector: "#c", all: false },
    ]);
    expect({ error: hiddenOnly.error?.message, title: hiddenOnly.title }).toEqual({ error: undefined, title: "checked:true" });
    const every = await onPage(
      { content: `<button class="b" style="display:none" onclick="document.title+='h'">H</button><button class="b" onclick="document.title+='v'">V</button>` },
      [{ type: "click", selector: ".b", all: true }],
    );
    expect({ error: every.error?.message, title: every.title }).toEqual({ error: undefined, title: "hv" });
  }, 60_000);
});
