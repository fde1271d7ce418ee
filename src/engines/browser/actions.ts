/**
 * @module engines/browser/actions
 * Runs a scrape's `actions` (api-v2.md §6.6) in order on a loaded page and collects their results:
 * `{screenshots, scrapes, javascriptReturns, pdfs}`. Limits (50 actions, wait budget, wait XOR) are checked at
 * the API layer (src/api/refine.ts); here every action is bounded by the scrape's deadline, and a selector wait by
 * 30 s. A failure becomes `SCRAPE_ACTION_ERROR` naming the action's index and type.
 */
import type { Page, PaperFormat } from "puppeteer-core";
import type { Action } from "../../api/actions.ts";
import { CrawlboxError } from "../../errors.ts";
import type { PageArtifacts } from "../types.ts";
import { type NetworkTracker, waitForQuiet } from "./wait.ts";

/** Longest a selector `wait` may take. */
export const SELECTOR_WAIT_CAP_MS = 30_000;
/** Settling time after an action that may change the page (click, press, scroll, script). */
export const SETTLE_CAP_MS = 1_500;

/** 500 (as upstream's transportable errors): an action could not be performed. */
export class ActionError extends CrawlboxError {
  constructor(index: number, type: string, reason: string, cause?: unknown) {
    super("SCRAPE_ACTION_ERROR", 500, `Action ${index} (${type}) failed: ${reason}`, { details: { index, type }, cause });
  }
}

/** Action results, bytes not yet stored. */
export type ActionResults = NonNullable<PageArtifacts["actions"]>;

/** What the runner needs besides the page. */
export interface ActionContext {
  page: Page;
  network: NetworkTracker;
  /** `performance.now()` deadline of the scrape. */
  deadline: number;
  /** Called after each action that may have navigated (the engine tracks the last main response). */
  signal?: AbortSignal;
}

/** Screenshot of the page; JPEG when a quality is given, PNG otherwise. `viewport` resizes first. */
export async function takeScreenshot(
  page: Page,
  o: { fullPage?: boolean; quality?: number; viewport?: { width: number; height: number } },
): Promise<{ bytes: Uint8Array; contentType: string }> {
  if (o.viewport) {
    const current = page.viewport();
    await page.setViewport({ ...(current ?? { deviceScaleFactor: 1 }), width: o.viewport.width, height: o.viewport.height });
  }
  const jpeg = o.quality !== undefined;
  const bytes = await page.screenshot({
    type: jpeg ? "jpeg" : "png",
    ...(jpeg ? { quality: o.quality } : {}),
    fullPage: o.fullPage ?? false,
    captureBeyondViewport: o.fullPage ?? false,
  });
  return { bytes: new Uint8Array(bytes), contentType: jpeg ? "image/jpeg" : "image/png" };
}

/** Runs `actions`; throws {@link ActionError} on the first failure. */
export async function runActions(actions: readonly Action[], ctx: ActionContext): Promise<ActionResults> {
  const out: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i]!;
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    const left = ctx.deadline - performance.now();
    if (left <= 0) throw new ActionError(i, action.type, "the scrape's timeout was reached before this action");
    try {
      await withTimeout(runOne(action, ctx, out, left), left, `did not finish within the scrape's remaining ${Math.round(left)} ms`);
    } catch (err) {
      if (err instanceof ActionError) throw err;
      throw new ActionError(i, action.type, reasonOf(err), err);
    }
  }
  return out;
}

async function runOne(action: Action, ctx: ActionContext, out: ActionResults, left: number): Promise<void> {
  const { page } = ctx;
  switch (action.type) {
    case "wait":
      if (action.selector !== undefined) {
        await page.waitForSelector(action.selector, { visible: true, timeout: Math.min(SELECTOR_WAIT_CAP_MS, left) });
      } else {
        await Bun.sleep(action.milliseconds ?? 0);
      }
      return;
    case "click": {
      if (action.all) {
        const handles = await page.$$(action.selector);
        if (handles.length === 0) throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
        for (const h of handles) await h.click().catch(() => h.evaluate((el) => (el as HTMLElement).click()));
      } else {
        const h = await page.$(action.selector);
        if (!h) throw new Error(`no element matches ${JSON.stringify(action.selector)}`);
        await h.click().catch(() => h.evaluate((el) => (el as HTMLElement).click()));
      }
      await settle(ctx);
      return;
    }
    case "write":
      await page.keyboard.type(action.text);
      return;
    case "press":
      await page.keyboard.press(action.key as Parameters<Page["keyboard"]["press"]>[0]);
      await settle(ctx);
      return;
    case "scroll": {
      const sign = action.direction === "up" ? -1 : 1;
      if (action.selector) {
        const found = await page.evaluate(
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
        await page.evaluate((s: number) => window.scrollBy({ top: s * window.innerHeight }), sign);
      }
      // Scroll events are dispatched at the next rendering step, not by scrollBy: wait for two frames (100 ms at
      // most, in case frames are throttled) so that the page's scroll handlers (lazy loading, infinite lists) have
      // run before the next action. Without it an action right after a scroll could see none of their effects.
      await page.evaluate(
        () => new Promise<void>((done) => {
          setTimeout(done, 100);
          requestAnimationFrame(() => requestAnimationFrame(() => done()));
        }),
      );
      await settle(ctx);
      return;
    }
    case "screenshot":
      out.screenshots.push(await takeScreenshot(page, action));
      return;
    case "scrape":
      out.scrapes.push({ url: page.url(), html: await page.content() });
      return;
    case "executeJavascript":
      out.javascriptReturns.push(await evaluateScript(page, action.script));
      await settle(ctx);
      return;
    case "pdf": {
      const bytes = await page.pdf({
        format: (action.format ?? "Letter") as PaperFormat,
        landscape: action.landscape ?? false,
        scale: Math.min(2, Math.max(0.1, action.scale ?? 1)),
        printBackground: true,
      });
      out.pdfs.push({ bytes: new Uint8Array(bytes), contentType: "application/pdf" });
      return;
    }
    default:
      throw new Error(`unknown action type ${JSON.stringify((action as { type: string }).type)}`);
  }
}

/**
 * Evaluates a script as a classic script (its value is the last expression statement's), awaiting a promise;
 * a script with a top-level `return` runs as an async function body instead. Returns `{type, value}` as upstream.
 */
export async function evaluateScript(page: Page, script: string): Promise<{ type: string; value: unknown }> {
  const run = (source: string) =>
    page.evaluate(
      `(async () => { const v = await (${source}); return { type: v === null ? "null" : Array.isArray(v) ? "array" : typeof v, value: v === undefined ? null : v }; })()`,
    );
  let result: unknown;
  try {
    result = await page.evaluate(
      `(async () => { const v = await eval(${JSON.stringify(script)}); return { type: v === null ? "null" : Array.isArray(v) ? "array" : typeof v, value: v === undefined ? null : v }; })()`,
    );
  } catch (err) {
    if (!/Illegal return|await is only valid|Unexpected token 'return'/.test(reasonOf(err))) throw err;
    result = await run(`(async () => { ${script}\n})()`);
  }
  const r = result as { type: string; value: unknown } | undefined;
  return r ?? { type: "undefined", value: null };
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
