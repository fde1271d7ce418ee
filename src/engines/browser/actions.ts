/**
 * @module engines/browser/actions
 * Runs a scrape's `actions` (api-v2.md §6.6) in order on a loaded page and collects their results:
 * `{screenshots, scrapes, javascriptReturns, pdfs}`. Limits (50 actions, wait budget, wait XOR) are checked at
 * the API layer (src/api/refine.ts); here every action is bounded by the scrape's deadline, and a selector wait by
 * 30 s. A failure becomes `SCRAPE_ACTION_ERROR` naming the action's index and type.
 */
import type { Page, PaperFormat } from "puppeteer-core";
import type { Action } from "../../api/actions.ts";
import { CrawlboxError, SiteError } from "../../errors.ts";
import { RESPONSE_TOO_LARGE_CODE } from "../http/body.ts";
import type { PageArtifacts } from "../types.ts";
import { isolatedRealm, readAcrossNavigation, readDocumentHtml } from "./page-reads.ts";
import { canCapture, RENDER_PROBE_MS } from "./render-probe.ts";
import { type DeviceControl, takeScreenshot } from "./screenshot.ts";
import { OversizedResult } from "./script.ts";
import { ActionError } from "./action-error.ts";
import { NavigationWatch, runScript } from "./script-navigation.ts";
import { clickMatches, waitForVisible } from "./element-targets.ts";
import { type NetworkTracker, waitForQuiet } from "./wait.ts";

export { ActionError } from "./action-error.ts";
// Kept importable from here: interact runs scripts and takes screenshots the way actions do.
export { evaluateScript } from "./script.ts";
export { FULL_PAGE_MAX_AREA_PX, FULL_PAGE_MAX_HEIGHT_PX, takeScreenshot } from "./screenshot.ts";

/** Longest a selector `wait` may take. */
export const SELECTOR_WAIT_CAP_MS = 30_000;
/** Settling time after an action that may change the page (click, press, scroll, script). */
export const SETTLE_CAP_MS = 1_500;


/**
 * Browser messages that mean the action was malformed rather than the page at fault: a key puppeteer does not know,
 * a selector Chromium's `querySelector` refuses (one css-select parsed, api/css-selector.ts, but Chromium does not
 * know, such as `:contains()`).
 */
const MALFORMED_ACTION = /^Unknown key: |is not a valid selector|The provided selector is empty/;

/** Action results, bytes not yet stored. */
export type ActionResults = NonNullable<PageArtifacts["actions"]>;

/** What the runner needs besides the page. */
export interface ActionContext {
  page: Page;
  network: NetworkTracker;
  /** `performance.now()` deadline of the scrape. */
  deadline: number;
  signal?: AbortSignal;
  /**
   * Bytes the action results may still take (scraped HTML, script returns, screenshots, PDFs), shared with the
   * final page: the whole result is bounded by `CRAWLBOX_MAX_PAGE_BYTES`, as a fetched page is.
   */
  budget: { leftBytes: number };
  /**
   * The page's device as emulated, and the session it was emulated through: a screenshot's `viewport` then changes
   * only its size (a phone stays a phone) and is undone after the picture. Without it, puppeteer's `setViewport`.
   */
  device?: DeviceControl;
  /** Receives what the client should know about an action that succeeded (a full-page screenshot that was cut). */
  warnings?: string[];
}

/** The warning of a full-page screenshot action cut at `clippedAtPx` (the `screenshot` format's wording). */
export function clippedScreenshotWarning(index: number, clippedAtPx: number): string {
  return `The full-page screenshot of action ${index} was cut at ${clippedAtPx} px: the page is taller than a screenshot can be.`;
}

/**
 * The warning of a `screenshot` action that took no picture, the page never having been rendered (its slot in
 * `actions.screenshots` is then an empty string: scrape/action-results.ts).
 */
export function unrenderedScreenshotWarning(index: number): string {
  return `No screenshot was taken for action ${index}: the browser had not rendered the page within ${RENDER_PROBE_MS / 1000} s (it still waits for a script or stylesheet that never arrived), so its place in actions.screenshots is an empty string.`;
}

/** Runs `actions`; throws {@link ActionError} on the first failure. */
export async function runActions(actions: readonly Action[], ctx: ActionContext): Promise<ActionResults> {
  const navigation = new NavigationWatch(ctx.page);
  try {
    return await runEach(actions, ctx, navigation);
  } finally {
    navigation.dispose();
  }
}

async function runEach(actions: readonly Action[], ctx: ActionContext, navigation: NavigationWatch): Promise<ActionResults> {
  const out: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i]!;
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    const left = ctx.deadline - performance.now();
    if (left <= 0) throw new ActionError(i, action.type, "the scrape's timeout was reached before this action");
    let used: number;
    try {
      used = await withTimeout(runOne(action, i, ctx, out, left, navigation), left, `did not finish within the scrape's remaining ${Math.round(left)} ms`);
    } catch (err) {
      if (err instanceof CrawlboxError) throw err;
      if (err instanceof OversizedResult) throw tooLarge(i, action.type, err.exact ? `${err.size}` : `more than ${err.size - 1}`, ctx.budget.leftBytes);
      const reason = reasonOf(err);
      throw new ActionError(i, action.type, reason, err, MALFORMED_ACTION.test(reason) ? 400 : 500);
    }
    if (used > ctx.budget.leftBytes) throw tooLarge(i, action.type, `${used}`, ctx.budget.leftBytes);
    ctx.budget.leftBytes -= used;
  }
  return out;
}

/** Performs one action; returns the bytes of the result it added to `out` (0 for most actions). */
async function runOne(action: Action, index: number, ctx: ActionContext, out: ActionResults, left: number, navigation: NavigationWatch): Promise<number> {
  const { page, deadline } = ctx;
  switch (action.type) {
    case "wait":
      if (action.selector !== undefined) {
        await waitForVisible(page, action.selector, Math.min(SELECTOR_WAIT_CAP_MS, left), deadline);
      } else {
        await Bun.sleep(action.milliseconds ?? 0);
      }
      return 0;
    case "click": {
      await clickMatches(page, action.selector, action.all, deadline);
      await settle(ctx);
      return 0;
    }
    case "write":
      await page.keyboard.type(action.text);
      return 0;
    case "press":
      await page.keyboard.press(action.key as Parameters<Page["keyboard"]["press"]>[0]);
      await settle(ctx);
      return 0;
    case "scroll": {
      const sign = action.direction === "up" ? -1 : 1;
      // In crawlbox's isolated world (page-reads.ts), as every read of the runner's own: the page's redefinitions of
      // `querySelector`, `scrollBy` or `requestAnimationFrame` (or an error they throw) do not reach it.
      if (action.selector) {
        const found = await isolatedRealm(page).evaluate(
          (sel: string, s: number) => {
            const el = document.querySelector(sel);
            if (!el) return false;
            el.scrollBy({ top: s * (el.clientHeight || window.innerHeight) });
            if (el.scrollHeight <= el.clientHeight) el.scrollIntoView({ block: s > 0 ? "end" : "start" });
            return true;
          },
          action.selector,
          sign,
        );
        if (!found) throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
      } else {
        await isolatedRealm(page).evaluate((s: number) => window.scrollBy({ top: s * window.innerHeight }), sign);
      }
      // Scroll events are dispatched at the next rendering step, not by scrollBy: wait for two frames (100 ms at
      // most, in case frames are throttled) so that the page's scroll handlers (lazy loading, infinite lists) have
      // run before the next action. Without it an action right after a scroll could see none of their effects.
      await isolatedRealm(page).evaluate(
        () => new Promise<void>((done) => {
          setTimeout(done, 100);
          requestAnimationFrame(() => requestAnimationFrame(() => done()));
        }),
      );
      await settle(ctx);
      return 0;
    }
    case "screenshot": {
      // A page Chromium does not render (its <head> waits for what never arrives) is never captured: a capture waits
      // for a frame that does not come, until the scrape's timeout.
      if (!(await canCapture(page, deadline))) {
        // No bytes, but its place among the screenshots: `actions.screenshots[i]` stays the i-th screenshot action's.
        out.screenshots.push({ bytes: new Uint8Array(0), contentType: "" });
        ctx.warnings?.push(unrenderedScreenshotWarning(index));
        return 0;
      }
      const shot = await takeScreenshot(page, { ...action, deadline, ...(ctx.device ? { device: ctx.device } : {}) });
      out.screenshots.push({ bytes: shot.bytes, contentType: shot.contentType });
      if (shot.clippedAtPx !== undefined) ctx.warnings?.push(clippedScreenshotWarning(index, shot.clippedAtPx));
      return shot.bytes.byteLength;
    }
    case "scrape": {
      // Made and measured in crawlbox's isolated world: an oversized DOM is refused before it crosses the DevTools
      // connection. Made again when the page navigates under it (page-reads.ts).
      const scraped = await readAcrossNavigation(
        page,
        async () => {
          const read = await readDocumentHtml(page, ctx.budget.leftBytes);
          if (read.html === undefined) throw new OversizedResult(read.chars);
          return { url: page.url(), html: read.html };
        },
        deadline,
      );
      out.scrapes.push(scraped);
      return Buffer.byteLength(scraped.html) + scraped.url.length;
    }
    case "executeJavascript": {
      const returned = await runScript(action.script, index, ctx, navigation);
      out.javascriptReturns.push(returned);
      await settle(ctx);
      return Buffer.byteLength(JSON.stringify(returned.value) ?? "");
    }
    case "pdf": {
      const bytes = await page.pdf({
        format: (action.format ?? "Letter") as PaperFormat,
        landscape: action.landscape ?? false,
        scale: Math.min(2, Math.max(0.1, action.scale ?? 1)),
        printBackground: true,
      });
      out.pdfs.push({ bytes: new Uint8Array(bytes), contentType: "application/pdf" });
      return bytes.byteLength;
    }
    default:
      throw new Error(`unknown action type ${JSON.stringify((action as { type: string }).type)}`);
  }
}

/** `size`: the result's size as known: exact, or `more than N` when the page stopped writing it at the budget. */
function tooLarge(index: number, type: string, size: string, leftBytes: number): SiteError {
  return new SiteError(
    RESPONSE_TOO_LARGE_CODE,
    `Action ${index} (${type}) produced ${size} bytes: the page and its action results may hold at most CRAWLBOX_MAX_PAGE_BYTES together (${leftBytes} bytes were left).`,
    { retryable: false, details: { index, type } },
  );
}

async function settle(ctx: ActionContext): Promise<void> {
  const left = ctx.deadline - performance.now();
  await waitForQuiet(ctx.page, ctx.network, Math.min(SETTLE_CAP_MS, Math.max(0, left - 50)));
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function reasonOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split("\n")[0]!.replace(/^Error: /, "").slice(0, 300);
}
