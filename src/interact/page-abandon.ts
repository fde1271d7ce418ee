/**
 * @module interact/page-abandon
 * What becomes of a session's page when a prompt or script is stopped (its time ran out, its client left) with a
 * command still running on the page. Most such commands are driven from crawlbox: a wait polling the page
 * (`agent-browser wait`, `waitForSelector`, a locator waiting for its element), a navigation waiting for its load
 * (`open` of a page whose load never ends, `goto`). They stop with the script (their polls follow its signal), and
 * the page is fine: {@link abandonPageWork} stops whatever load is still under way, as the browser's Stop button does,
 * and the session goes on. Only a page whose own thread does not answer is stuck: JavaScript running in it that does
 * not return (a busy loop in an `eval`, or in the page's own script). Such a page is not used again
 * (interact/sessions.ts drops its session), but {@link interruptPage} first stops that JavaScript, so that the
 * session's profile can still be read from the page and saved as a close would.
 *
 * The test is the page's answer to a trivial evaluation: Chromium runs `Runtime.evaluate` on the page's main thread,
 * so a thread kept busy cannot answer it, while a page waiting (for a load, a timer, a promise) answers at once.
 */
import type { CDPSession } from "puppeteer-core";

/**
 * How long the page has to answer after the work was stopped: an idle page answers within milliseconds, a loaded
 * machine's within a few hundred.
 */
export const PAGE_ANSWER_MS = 1_500;

/** Longest a CDP command sent here (stop loading, interrupt) is waited for. */
const COMMAND_MS = 1_000;

/** `p`'s outcome within `ms`: `"ok"`, `"failed"` (rejected) or `"silent"` (no answer in time). */
async function within(p: Promise<unknown>, ms: number): Promise<"ok" | "failed" | "silent"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<"silent">((resolve) => (timer = setTimeout(() => resolve("silent"), ms)));
  try {
    return await Promise.race([p.then(() => "ok" as const, () => "failed" as const), silent]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Abandons the command left running on the page reached through `session` (the session's lease's CDP session): a
 * load still under way is stopped, and the page's thread is asked to answer. Whether the page is stuck (its thread did
 * not answer within {@link PAGE_ANSWER_MS}): a stuck page is not to be used again. An evaluation that fails instead
 * (the document being replaced, the page gone) is not a busy thread: a page that closed or crashed ends its session
 * by itself (interact/sessions.ts).
 */
export async function abandonPageWork(session: CDPSession): Promise<boolean> {
  // A pending navigation (its server has not answered yet, or its load event never comes) would otherwise go on, and
  // could replace the page under the next script. Stopping is handled by the browser even when the thread is busy.
  await within(session.send("Page.stopLoading"), COMMAND_MS);
  const answer = await within(session.send("Runtime.evaluate", { expression: "0", returnByValue: true }), PAGE_ANSWER_MS);
  return answer === "silent";
}

/**
 * Stops JavaScript running on the page (a busy loop), as DevTools' "terminate execution" does: Chromium interrupts
 * it from outside the page's thread. The page then answers again (its storage can be read for the profile), but a
 * page that was stuck once is not trusted with a session: it goes back to the pool as suspect.
 */
export async function interruptPage(session: CDPSession): Promise<void> {
  await within(session.send("Runtime.terminateExecution"), COMMAND_MS);
}
