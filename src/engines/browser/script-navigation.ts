/**
 * @module engines/browser/script-navigation
 * `executeJavascript` on a page that may be navigating: a script runs on the document the browser is showing, once
 * a navigation in flight has committed, and is run again only when it cannot have run (see below). Before, a script
 * after a click that started a navigation failed the whole scrape with a 500 ("Execution context was destroyed").
 */
import type { Frame, HTTPRequest, Page } from "puppeteer-core";
import { ActionError } from "./action-error.ts";
import type { ActionContext } from "./actions.ts";
import { isContextLost, waitForParsedDocument } from "./page-reads.ts";
import { evaluateScript, type ScriptResult } from "./script.ts";

/**
 * Time kept back from the scrape's deadline when a script waits for a navigation: enough to fail with a message
 * saying why (the page was still navigating) before the action's own timeout fails it with a generic one.
 */
export const NAVIGATION_MARGIN_MS = 100;
/** How often a script waiting for a navigation looks whether the new document has replaced the old one. */
export const NAVIGATION_POLL_MS = 25;

/*
 * executeJavascript and navigations. Chromium holds a DevTools command for a document whose navigation is in flight
 * (the request sent, the new document not committed) and drops it with that document: a script sent then never runs
 * (checked: a script bumping a `sessionStorage` counter leaves it untouched), and puppeteer reports "Execution context
 * was destroyed". A script sent before the navigation started may have run, though: it may have started that
 * navigation itself (`form.submit(); await …`) and been cut while it awaited, or been cut by the page's own. Its
 * effects (a form posted, an item added to a cart) would happen again if it were run again.
 *
 * So a script is run again, once, only when it cannot have run: the navigation that destroyed its context had begun
 * before the script was sent. A script that returns at once (`location.href = "/next"; 1`) returns before its
 * navigation commits, keeps its value and is never run again; the next action waits for the new document. One whose
 * context was destroyed by a navigation that began after it was sent is not run again: a 409 says why.
 */

/**
 * Follows the main frame's cross-document navigations while the actions run: the navigation in flight (its request
 * sent, the new document not committed yet) and how many have begun. Navigation requests are the page's events, as
 * the egress gate sees them; a redirect continues a navigation rather than beginning one.
 */
export class NavigationWatch {
  private inFlight: HTTPRequest | undefined;
  private begun = 0;

  private readonly onRequest = (r: HTTPRequest) => {
    if (!r.isNavigationRequest() || r.frame() !== this.page.mainFrame()) return;
    if (r.redirectChain().length === 0) this.begun++;
    this.inFlight = r;
  };
  /** Failed (blocked, aborted, a download) or answered without a document (204): nothing will commit. */
  private readonly onEnded = (r: HTTPRequest) => {
    if (r === this.inFlight) this.inFlight = undefined;
  };
  private readonly onNavigated = (frame: Frame) => {
    if (frame === this.page.mainFrame()) this.inFlight = undefined;
  };

  constructor(private readonly page: Page) {
    page.on("request", this.onRequest);
    page.on("requestfailed", this.onEnded);
    page.on("requestfinished", this.onEnded);
    page.on("framenavigated", this.onNavigated);
  }

  dispose(): void {
    this.page.off("request", this.onRequest);
    this.page.off("requestfailed", this.onEnded);
    this.page.off("requestfinished", this.onEnded);
    this.page.off("framenavigated", this.onNavigated);
  }

  /** The URL the main frame is navigating to, or undefined when no navigation is in flight. */
  pendingUrl(): string | undefined {
    return this.inFlight?.url();
  }

  /** Navigations begun so far: compared before and after a script, it tells whether one began meanwhile. */
  count(): number {
    return this.begun;
  }
}

/**
 * Runs a client's script on the document the page is on, waiting first for a navigation in flight to end; runs it
 * again once when its context was destroyed before it could run (see the comment above {@link NavigationWatch}).
 * Fails with a 409 {@link ActionError} when the page's navigation keeps it from running or cut it short.
 */
export async function runScript(script: string, index: number, ctx: ActionContext, navigation: NavigationWatch): Promise<ScriptResult> {
  for (let attempt = 1; ; attempt++) {
    await untilNavigationEnds(index, ctx, navigation, attempt > 1);
    const begunBefore = navigation.count();
    try {
      return await evaluateScript(ctx.page, script, ctx.budget.leftBytes);
    } catch (err) {
      if (!isContextLost(err) && !TARGET_NAVIGATED.test(reasonOf(err))) throw err;
      const mayHaveRun = navigation.count() > begunBefore;
      if (!mayHaveRun && attempt === 1) continue;
      throw navigatedAway(index, mayHaveRun, err);
    }
  }
}

/**
 * The error of a DevTools command Chromium dropped with its document, as a script on its own CDP session (the
 * top-level `await` way, script.ts) gets it: puppeteer's "Execution context was destroyed" wording for the others.
 */
const TARGET_NAVIGATED = /Inspected target navigated or closed/;

/**
 * Waits until no navigation is in flight and the page's document is parsed (`DOMContentLoaded`), so that a script
 * runs on the page the browser is showing; a page that is not navigating is not waited for, unless `replaced` (the
 * script's document went away: the new one may not be parsed yet). Within the scrape's deadline, less
 * {@link NAVIGATION_MARGIN_MS}.
 */
async function untilNavigationEnds(index: number, ctx: ActionContext, navigation: NavigationWatch, replaced: boolean): Promise<void> {
  const until = ctx.deadline - NAVIGATION_MARGIN_MS;
  if (navigation.pendingUrl() === undefined && !replaced) return;
  while (navigation.pendingUrl() !== undefined) {
    if (performance.now() >= until) throw stillNavigating(index, navigation.pendingUrl()!);
    await Bun.sleep(Math.min(NAVIGATION_POLL_MS, Math.max(0, until - performance.now())));
  }
  await waitForParsedDocument(ctx.page, until);
}

function stillNavigating(index: number, url: string): ActionError {
  const reason = `the page was still navigating to ${shortUrl(url)} when the scrape's timeout was reached; the script was not run`;
  return new ActionError(index, "executeJavascript", reason, undefined, 409);
}

function navigatedAway(index: number, mayHaveRun: boolean, cause: unknown): ActionError {
  const reason = mayHaveRun
    ? "the page navigated away before the script's value came back (the script's own navigation, or the page's); it is not run again, as it may have run already"
    : "the page navigated again before the script could run on the new document; the script was not run";
  return new ActionError(index, "executeJavascript", reason, cause, 409);
}

function shortUrl(url: string): string {
  return url.length > 200 ? `${url.slice(0, 200)}…` : url;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
