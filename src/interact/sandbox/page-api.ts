/**
 * @module interact/sandbox/page-api
 * The other end of the sandbox's `page` (interact/sandbox/prelude.ts): each call from the caller's JavaScript,
 * checked and carried out on the session's page with puppeteer. Nothing from the sandbox is trusted: the method must
 * be one of these, every argument is checked for its type and size, `goto` asks the egress gate first (and every
 * request of the page goes through it anyway), and what goes back is bounded. Locators are found by
 * interact/sandbox/locate.ts. Like Playwright, an action waits for its element (30 s at most); a query with several
 * matches takes the locator's (`first` by default, `nth`, `last`).
 */
import type { CDPSession, HTTPResponse, Page } from "puppeteer-core";
import type { FileSink } from "../../scrape/render-context.ts";
import { settle } from "../driver.ts";
import { sleep } from "../../scheduler/abortable.ts";
import { inWorld, MAX_READ_CHARS, pageTitle, type WorldElement } from "../isolated-world.ts";
import { checkFillable, evaluateBounded, navigableUrl, PageOpError, poll, pressCombo, screenshotToFile, type ShotBudget, withoutErrorPrefix } from "../page-ops.ts";
import { sizeCheckedOp } from "../page-size.ts";
import { navigate } from "./navigate.ts";
import { ownScript } from "../page-abandon.ts";
import { describe, findNow, findOne, locate, mapMatches, target } from "./locate.ts";

/** Longest a call waits: for its element, for a navigation, for a state. */
export const CALL_WAIT_MS = 30_000;
/** Characters of a value sent back (page content, an evaluation's result): bounded in the page, before it crosses. */
export const MAX_VALUE_CHARS = MAX_READ_CHARS;

/** What the calls act on. */
export interface PageApiContext {
  page: Page;
  /** A CDP session of the page (locators are found in an isolated world through it). */
  session: CDPSession;
  /** The egress gate's check of a URL `goto` is about to load. */
  check: (url: string) => Promise<void>;
  /** Stores a screenshot and returns its URL. */
  saveFile: FileSink;
  /** Aborts when the script ends (or is stopped): waits still running in calls end with it. */
  signal: AbortSignal;
  /** The script's screenshots so far. */
  shots: ShotBudget;
}

const str = (v: unknown, what: string, max = 100_000): string => {
  if (typeof v !== "string" || v.length > max) throw new PageOpError(`${what} must be a string of at most ${max} characters`);
  return v;
};
const num = (v: unknown, what: string, min: number, max: number): number => {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) throw new PageOpError(`${what} must be a number from ${min} to ${max}`);
  return v;
};
const opts = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const waitMs = (o: Record<string, unknown>) => (typeof o.timeout === "number" && o.timeout > 0 ? Math.min(o.timeout, CALL_WAIT_MS) : CALL_WAIT_MS);

/** A navigation, failing as a scrape of its URL would (navigate.ts); its response's status and URL. */
async function navigation(ctx: PageApiContext, go: () => Promise<HTTPResponse | null>, url?: string) {
  const res = await navigate(ctx, go, url);
  return res ? { status: res.status(), url: res.url() } : null;
}

const navOptions = (o: Record<string, unknown>) => {
  const until = o.waitUntil === "domcontentloaded" ? "domcontentloaded" : o.waitUntil === "networkidle" ? "networkidle2" : o.waitUntil === "commit" ? "domcontentloaded" : "load";
  return { waitUntil: until as "load", timeout: waitMs(o) };
};

/** Calls that only read the page or wait on the clock: they load nothing, so the page limit does not fail them. */
const LOADS_NOTHING = new Set(["title", "content", "url", "textContent", "innerText", "innerHTML", "getAttribute", "inputValue", "isVisible", "isChecked", "isEnabled", "boundingBox", "count", "allTextContents", "allInnerTexts", "screenshot", "setViewportSize", "waitForTimeout"]);

/**
 * Carries out call `m` with arguments `a`; what it answers (JSON-serialisable). Throws {@link PageOpError}; a call
 * that may load a document (a navigation, an action, `evaluate`) during which a main document passes the page limit
 * fails with the limit's (interact/page-size.ts).
 */
export function carryOut(ctx: PageApiContext, m: string, a: unknown[]): Promise<unknown> {
  const done = LOADS_NOTHING.has(m) ? perform(ctx, m, a) : sizeCheckedOp(ctx.page, () => perform(ctx, m, a));
  return done.catch((err: unknown) => {
    throw withoutErrorPrefix(err);
  });
}

async function perform(ctx: PageApiContext, m: string, a: unknown[]): Promise<unknown> {
  const { page, session } = ctx;
  const el = async (visible = false) => findOne(page, session, target(a[0]), waitMs(opts(a[2] ?? a[1])), ctx.signal, visible);
  const read = async (fn: string, arg: unknown = null) => (await el()).call(fn, arg);
  const act = async (fn: (e: WorldElement) => Promise<unknown>) => {
    await fn(await el(true));
    await settle(page);
    return null;
  };
  switch (m) {
    case "goto": {
      const url = navigableUrl(str(a[0], "a URL", 8_000));
      if (url !== "about:blank") await ctx.check(url);
      return navigation(ctx, () => page.goto(url, navOptions(opts(a[1]))), url);
    }
    case "goBack": return navigation(ctx, () => page.goBack(navOptions(opts(a[0]))));
    case "goForward": return navigation(ctx, () => page.goForward(navOptions(opts(a[0]))));
    case "reload": return navigation(ctx, () => page.reload(navOptions(opts(a[0]))));
    case "title": return pageTitle(session);
    case "content": return (await inWorld(session, `(() => { const d = document.doctype ? "<!DOCTYPE " + document.doctype.name + ">" : ""; const v = d + document.documentElement.outerHTML; if (v.length > ${MAX_VALUE_CHARS}) throw new Error("the page is " + v.length + " characters, over the ${MAX_VALUE_CHARS} that are read"); return v; })()`)).value;
    case "evaluate":
    case "evaluateOn": {
      const f = opts(m === "evaluate" ? a[0] : a[1]);
      const src = str(f.src, "the function", 1_000_000);
      const arg = (m === "evaluate" ? a[1] : a[2]) ?? null;
      // page.evaluate runs in the page, as Playwright's does (its globals are there), bounded before it crosses.
      // The newline ends a `// comment` the function's source may end with (Playwright takes such strings too).
      // A function that gives nothing gives undefined, as Playwright's: a script ending with such a call has no value.
      // A navigation it starts (`location.href = …`, `form.submit()`) is the code's (interact/page-abandon.ts).
      if (m === "evaluate") {
        const got = await ownScript(session, () => evaluateBounded(page, f.fn === true ? `(${src}\n)(${JSON.stringify(arg)})` : src, MAX_VALUE_CHARS));
        return got.type === "undefined" ? undefined : got.value;
      }
      // A locator's evaluate gets its element in the isolated world: the DOM, not the page's own JavaScript.
      const e = await el();
      return ownScript(session, () => e.call(`function (arg) { return (${src}\n)(this, arg); }`, arg));
    }
    case "waitForTimeout": await sleep(num(a[0], "the time", 0, 300_000), ctx.signal); return null;
    case "waitForLoadState": {
      const state = a[0] === "networkidle" ? "networkidle" : a[0] === "domcontentloaded" ? "domcontentloaded" : "load";
      if (state === "networkidle") await page.waitForNetworkIdle({ idleTime: 500, timeout: waitMs(opts(a[1])) });
      else await page.waitForFunction((s: string) => (s === "load" ? document.readyState === "complete" : document.readyState !== "loading"), { timeout: waitMs(opts(a[1])) }, state);
      return null;
    }
    case "url": return page.url();
    case "waitFor": {
      const t = target(a[0]);
      const o = opts(a[1]);
      const state = o.state === "attached" || o.state === "hidden" || o.state === "detached" ? o.state : "visible";
      const reached = await poll(async () => {
        const el = await findNow(page, session, t);
        const visible = el ? await el.visible() : false;
        return (state === "attached" ? !!el : state === "detached" ? !el : state === "visible" ? visible : !visible) || undefined;
      }, waitMs(o), ctx.signal);
      if (!reached) throw new PageOpError(`${describe(t)} was not ${state} within ${Math.round(waitMs(o) / 1000)} s`);
      return null;
    }
    case "screenshot": return screenshotToFile(page, opts(a[0]).fullPage === true, ctx.saveFile, ctx.shots);
    case "setViewportSize": {
      const o = opts(a[0]);
      await page.setViewport({ width: Math.round(num(o.width, "width", 100, 4_000)), height: Math.round(num(o.height, "height", 100, 4_000)) });
      return null;
    }
    case "click": {
      const o = opts(a[1]);
      // force: Playwright's way past its actionability checks; here a click dispatched on the element itself.
      if (o.force === true) {
        await (await el()).domClick();
        await settle(page);
        return null;
      }
      return act((e) => e.click(typeof o.clickCount === "number" ? Math.min(3, Math.max(1, Math.round(o.clickCount))) : 1));
    }
    case "dblclick": return act((e) => e.click(2));
    case "hover": return act((e) => e.hover());
    case "focus": return act((e) => e.focus());
    case "scrollIntoView": return act((e) => e.scrollIntoView());
    case "fill": { const v = str(a[1], "the value"); return act(async (e) => { await checkFillable(e); await e.clear(); await e.type(v); }); }
    case "clear": return act(async (e) => { await checkFillable(e); await e.clear(); });
    case "type": { const v = str(a[1], "the text"); return act((e) => e.type(v)); }
    case "press": { const k = str(a[1], "the key", 100); return act(async (e) => { await e.focus(); await pressCombo(page, k); }); }
    case "check":
    case "uncheck":
      return act((e) => e.setChecked(m === "check"));
    case "selectOption": {
      const raw = Array.isArray(a[1]) ? a[1] : [a[1]];
      if (raw.length > 1_000) throw new PageOpError("at most 1,000 options at once");
      return (await el(true)).select(raw.map((v) => (typeof v === "string" ? v : str(opts(v).value, "an option's value", 2_000))));
    }
    case "textContent": return read("function () { return this.textContent; }");
    case "innerText": return read("function () { return this.innerText; }");
    case "innerHTML": return read("function () { return this.innerHTML; }");
    case "getAttribute": return read("function (k) { return this.getAttribute(k); }", str(a[1], "the attribute", 200));
    case "inputValue": return read('function () { return this.value == null ? "" : this.value; }');
    case "isVisible": { const e = await findNow(page, session, target(a[0])); return e ? e.visible() : false; }
    case "isChecked": return read("function () { return !!this.checked; }");
    case "isEnabled": return read("function () { return !this.disabled; }");
    case "boundingBox": return (await el()).box();
    case "count": return locate(session, target(a[0]));
    case "allTextContents": return mapMatches(session, target(a[0]), '(e) => e.textContent || ""');
    case "allInnerTexts": return mapMatches(session, target(a[0]), "(e) => e.innerText");
    case "keyPress": await pressCombo(page, str(a[0], "the key", 100)); await settle(page); return null;
    case "keyDown": await pressCombo(page, str(a[0], "the key", 100), "down"); return null;
    case "keyUp": await pressCombo(page, str(a[0], "the key", 100), "up"); return null;
    case "keyType": await page.keyboard.type(str(a[0], "the text")); return null;
    case "mouseClick": await page.mouse.click(num(a[0], "x", 0, 100_000), num(a[1], "y", 0, 100_000)); await settle(page); return null;
    case "mouseWheel": await page.mouse.wheel({ deltaX: num(a[0] ?? 0, "deltaX", -100_000, 100_000), deltaY: num(a[1] ?? 0, "deltaY", -100_000, 100_000) }); return null;
    default:
      throw new PageOpError(`page has no method ${String(m).slice(0, 50)} in crawlbox (docs/interact.md lists them)`);
  }
}
