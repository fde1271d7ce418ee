/**
 * @module interact/replay
 * Brings a new interact session's page to the state its scrape saw: the scrape's actions (clicks, typing, keys,
 * scrolls, waits, scripts) are carried out again on the freshly opened URL, with the browser engine's own action
 * runner. Actions that only produced output (`scrape`, `pdf`, `screenshot`) are skipped: a screenshot's `viewport`
 * sized the page for its picture only (the scrape undid it after), so the actions after it ran on the scrape's own
 * device, as they do here. The replay has its own time: what loading
 * took is not charged to the scrape's waits. A replay that fails (the page changed since the scrape, an action's
 * element gone) is a 422 naming the action by its place in the scrape's list.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { waitCostMs, type Action } from "../api/actions.ts";
import { runActions } from "../engines/browser/actions.ts";
import { applyEmulation, chromeMajorOf } from "../engines/browser/emulation.ts";
import { NetworkTracker } from "../engines/browser/wait.ts";
import { CrawlboxError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { isPageTooLarge, sizeChecked } from "./page-size.ts";

/** What replayed actions may produce in all (script returns): they are not kept, only bounded. */
const REPLAY_BUDGET_BYTES = 8 * 1024 * 1024;
/** Time each replayed action has beyond its own waits (a click's navigation, a script). */
const PER_ACTION_MS = 5_000;

/** 422: the scrape's actions could not be carried out again on the page as it is now. */
export class ReplayFailedError extends CrawlboxError {
  constructor(index: number, type: string, reason: string) {
    super("INTERACT_REPLAY_FAILED", 422, `The scrape's action ${index} (${type}) could not be replayed on the page as it is now: ${reason}`, { details: { index, type } });
  }
}

/** The time a replay of `actions` may take: their own waits, plus a little per action. */
export function replayTimeMs(actions: readonly Action[]): number {
  return actions.reduce((ms, a) => {
    return ms + (a.type === "wait" ? waitCostMs(a) : 0) + PER_ACTION_MS;
  }, 0);
}

/**
 * Carries out the page-changing ones of `actions` on `page`, each by `deadline` (`performance.now()`); returns how
 * many. Throws {@link ReplayFailedError} for the first that fails.
 */
export async function replayActions(page: Page, actions: readonly Action[], deadline: number, signal?: AbortSignal): Promise<number> {
  const network = new NetworkTracker(page);
  const budget = { leftBytes: REPLAY_BUDGET_BYTES };
  let replayed = 0;
  try {
    for (const [index, action] of actions.entries()) {
      if (action.type === "scrape" || action.type === "pdf" || action.type === "screenshot") continue;
      try {
        await runActions([action], { page, network, deadline, ...(signal ? { signal } : {}), budget });
        replayed++;
      } catch (err) {
        if (signal?.aborted) throw err;
        // The runner names the action by its place in what it was given (one action): say where it is in the scrape's.
        const reason = (err instanceof Error ? err.message : String(err)).replace(/^Action \d+ \([^)]*\) failed: /, "").slice(0, 300);
        throw new ReplayFailedError(index, action.type, reason);
      }
    }
    return replayed;
  } finally {
    network.dispose();
  }
}

/**
 * The device and place a scrape's page was emulated as (`mobile`, `location`), which its session emulates too: a
 * phone's page, or a country's, is not the desktop page (other markup, other elements for the actions to find).
 */
export interface ScrapeDevice {
  mobile: boolean;
  location?: { country: string; languages: string[] };
  /**
   * The page was served in the enhanced mode (`metadata.proxyUsed: "stealth"`): the session takes the stealth measures
   * too (and goes out through the enhanced upstream proxy when one is configured: interact/sessions.ts).
   */
  stealth?: boolean;
}

/** Longest loading the scrape's URL may take when a session opens (within the prompt's or script's own time). */
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Opens a scrape's session page: loads `url` and replays the scrape's `actions` on it, with their own time, within
 * `signal` (the opening's). A page that does not load is `INTERACT_OPEN_FAILED`; a main document past the page limit
 * (the page, or one an action opens) `SCRAPE_RESPONSE_TOO_LARGE`, as a scrape of it would be (interact/page-size.ts);
 * a replay that fails, a {@link ReplayFailedError} naming the action. `device`: the scrape's emulation, applied first.
 */
export async function openScrapePage(page: Page, session: CDPSession, url: string, actions: readonly Action[], signal: AbortSignal, device?: ScrapeDevice): Promise<void> {
  if (device && (device.mobile || device.location || device.stealth)) {
    // The session's page is leased for it alone and closed with it: nothing else meets this emulation afterwards.
    const chromeMajor = await chromeMajorOf(page);
    const { country, languages } = device.location ?? {};
    await raceAbort(applyEmulation(session, { mobile: device.mobile, chromeMajor, stealth: device.stealth === true, ...(country ? { country } : {}), ...(languages ? { languages } : {}) }), signal);
  }
  try {
    await raceAbort(sizeChecked(page, () => page.goto(url, { waitUntil: "load", timeout: LOAD_TIMEOUT_MS })), signal);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (isPageTooLarge(err)) throw err;
    throw new CrawlboxError("INTERACT_OPEN_FAILED", 500, `The scrape's page could not be opened in the browser: ${(err as Error).message.slice(0, 200)}`);
  }
  await raceAbort(sizeChecked(page, () => replayActions(page, actions, performance.now() + replayTimeMs(actions), signal)), signal);
}
