/**
 * @module interact/replay
 * Brings a new interact session's page to the state its scrape saw: the scrape's actions (clicks, typing, keys,
 * scrolls, waits, scripts) are carried out again on the freshly opened URL, with the browser engine's own action
 * runner. Actions that only produced output (`screenshot`, `scrape`, `pdf`) are skipped: they changed nothing on
 * the page. A replay that fails is the session's opening failing, in the action's own words (which action, why).
 */
import type { Page } from "puppeteer-core";
import type { Action } from "../api/actions.ts";
import { runActions } from "../engines/browser/actions.ts";
import { NetworkTracker } from "../engines/browser/wait.ts";

/** Action types that only read the page. */
const OUTPUT_ONLY = new Set(["screenshot", "scrape", "pdf"]);

/** What replayed actions may produce in all (script returns): they are not kept, only bounded. */
const REPLAY_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * Carries out the page-changing ones of `actions` on `page` by `deadline` (`performance.now()`); returns how many.
 * Throws the runner's `ActionError` for an action that fails.
 */
export async function replayActions(page: Page, actions: readonly Action[], deadline: number, signal?: AbortSignal): Promise<number> {
  const steps = actions.filter((a) => !OUTPUT_ONLY.has(a.type));
  if (steps.length === 0) return 0;
  const network = new NetworkTracker(page);
  try {
    await runActions(steps, { page, network, deadline, ...(signal ? { signal } : {}), budget: { leftBytes: REPLAY_BUDGET_BYTES } });
    return steps.length;
  } finally {
    network.dispose();
  }
}
