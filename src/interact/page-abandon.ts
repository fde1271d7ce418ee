/**
 * @module interact/page-abandon
 * What becomes of a session's page when a prompt or script is stopped (its time ran out, its client left) with a
 * command still running on the page. Most such commands are driven from crawlbox: a wait polling the page
 * (`agent-browser wait`, `waitForSelector`, a locator waiting for its element), a navigation waiting for its load
 * (`open` of a page whose load never ends, `goto`). They stop with the script (their polls follow its signal), and
 * the page is fine: {@link abandonPageWork} stops a load the script started that is still under way, as the browser's
 * Stop button does, and the session goes on. Only a page whose own thread does not answer is stuck: JavaScript running
 * in it that does not return (a busy loop in an `eval`, or in the page's own script). Such a page is not used again
 * (interact/sessions.ts drops its session), but {@link quietPage} first stops that JavaScript and what would start it
 * again, so that the session's profile can still be read from the page and saved as a close would.
 *
 * The test is the page's answer to a trivial evaluation: Chromium runs `Runtime.evaluate` on the page's main thread,
 * so a thread kept busy cannot answer it, while a page waiting (for a load, a timer, a promise) answers at once.
 *
 * All of it is bounded: the script's answer comes at most {@link ABANDON_MS} after it was stopped, whatever the page
 * does (the JavaScript SDK gives up on an answer 5 s after the script's own `timeout`).
 */
import type { CDPSession } from "puppeteer-core";

/**
 * How long the page's thread has to answer once the work was stopped. A page waiting answers within milliseconds (a
 * loaded machine's within a few hundred); a page busy with a finite task answers when the task ends, so a task that
 * ends within this keeps its session (a `while` of 4 s in a script stopped after 2 s does).
 */
export const PAGE_ANSWER_MS = 2_400;

/**
 * Longest the whole abandonment takes, from the work's end to the answer: stopping a load, the page's answer
 * ({@link PAGE_ANSWER_MS}), and for a stuck page quieting it and saving the session's profile in what is left (the
 * save is given up for good when it does not fit, interact/session-record.ts).
 */
export const ABANDON_MS = 2_750;

/** Longest `Page.stopLoading` is waited for (the browser answers it in milliseconds, even for a busy page). */
const STOP_MS = 200;

/** Longest a CDP command sent to quiet a page is waited for (answered from outside the page's busy thread). */
const COMMAND_MS = 1_000;

/** `p`'s outcome within `ms`: `"ok"`, `"failed"` (rejected) or `"silent"` (no answer in time). */
async function within(p: Promise<unknown>, ms: number): Promise<"ok" | "failed" | "silent"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<"silent">((resolve) => (timer = setTimeout(() => resolve("silent"), Math.max(0, ms))));
  try {
    return await Promise.race([p.then(() => "ok" as const, () => "failed" as const), silent]);
  } finally {
    clearTimeout(timer);
  }
}

/** The loads that started on a page since {@link followLoads} and have not ended. */
export interface Loads {
  /** Whether a frame that started loading since is still loading (its document not yet answered, or its load event not yet come). */
  readonly pending: boolean;
  /** Stops following. */
  dispose(): void;
}

/** How many of a session's own navigations ({@link ownNavigation}) are under way, by the page's CDP session. */
const navigating = new WeakMap<CDPSession, number>();

/**
 * Carries out `go`, a navigation the session's code asks for (`open`, `back`, `forward`, `reload`; `goto`, `goBack`,
 * `goForward`, `reload`: interact/sandbox/navigate.ts) on the page reached through `session`: the loads that start
 * while it is under way are the code's ({@link followLoads}).
 */
export async function ownNavigation<T>(session: CDPSession, go: () => Promise<T>): Promise<T> {
  navigating.set(session, (navigating.get(session) ?? 0) + 1);
  try {
    return await go();
  } finally {
    const left = (navigating.get(session) ?? 1) - 1;
    if (left > 0) navigating.set(session, left);
    else navigating.delete(session);
  }
}

/**
 * Why a page asks for a navigation itself (`Page.frameRequestedNavigation`) when it is the code's doing: a link
 * clicked, a form sent (`click`, `press Enter`). A page's own script (`location.href = …` in a timer), a refresh
 * (`<meta http-equiv=refresh>`, a `Refresh` header) are the page's.
 */
const CLICKED = new Set(["anchorClick", "formSubmissionGet", "formSubmissionPost"]);

/**
 * Follows the loads that the code running now (a prompt or script) starts on the page reached through `session`: a
 * navigation it asks for ({@link ownNavigation}: `open`, `goto`, back, forward, reload) and what loads while it is
 * under way (the frames of its page), and a clicked link or a sent form, each until its frame stops loading (its load
 * event, or a stop). A page's own navigation (its script's `location.href = …` in a timer, a refresh) and its own
 * requests (`fetch`, an `EventSource`, a WebSocket) are not the code's: {@link abandonPageWork} leaves them alone.
 * The session's CDP session has the Page domain on (engines/browser/setup.ts).
 */
export function followLoads(session: CDPSession): Loads {
  const frames = new Set<string>();
  const requested = (e: { frameId: string; reason: string }) => void (CLICKED.has(e.reason) && frames.add(e.frameId));
  const started = (e: { frameId: string }) => void ((navigating.get(session) ?? 0) > 0 && frames.add(e.frameId));
  const stopped = (e: { frameId: string }) => void frames.delete(e.frameId);
  session.on("Page.frameRequestedNavigation", requested);
  session.on("Page.frameStartedLoading", started);
  session.on("Page.frameStoppedLoading", stopped);
  session.on("Page.frameDetached", stopped);
  return {
    get pending() {
      return frames.size > 0;
    },
    dispose() {
      session.off("Page.frameRequestedNavigation", requested);
      session.off("Page.frameStartedLoading", started);
      session.off("Page.frameStoppedLoading", stopped);
      session.off("Page.frameDetached", stopped);
    },
  };
}

/**
 * Abandons the command left running on the page reached through `session` (the session's lease's CDP session): a
 * load the work started that is still under way (`loads`) is stopped, and the page's thread is asked to answer,
 * within {@link PAGE_ANSWER_MS} and before `deadline` (a `performance.now()` time). Whether the page is stuck (its
 * thread did not answer): a stuck page is not to be used again. An evaluation that fails instead (the document being
 * replaced, the page gone) is not a busy thread: a page that closed or crashed ends its session by itself
 * (interact/sessions.ts).
 */
export async function abandonPageWork(session: CDPSession, loads: Loads | undefined, deadline: number): Promise<boolean> {
  // A pending navigation (its server has not answered yet, or its load event never comes) would otherwise go on, and
  // could replace the page under the next script. Only a load the work started is stopped: stopping loads also
  // cancels the page's own fetches and event streams (window.stop() does), which are none of the script's business.
  // Stopping is handled by the browser even when the thread is busy.
  if (loads?.pending) await within(session.send("Page.stopLoading"), STOP_MS);
  const answer = await within(session.send("Runtime.evaluate", { expression: "0", returnByValue: true }), Math.min(PAGE_ANSWER_MS, deadline - performance.now()));
  return answer === "silent";
}

/**
 * Quiets a stuck page, as DevTools' "disable JavaScript" then "terminate execution" would: the page's scripts may no
 * longer run (a timer or an event that would start the busy loop again, as a `setInterval` re-arming it does, does
 * nothing), then the JavaScript running is stopped. Both are answered from outside the page's busy thread. The page
 * then answers again (its storage can be read for the profile, from crawlbox's isolated world), but a page that was
 * stuck once is not trusted with a session: it goes back to the pool as suspect, and its context is closed.
 */
export async function quietPage(session: CDPSession): Promise<void> {
  await within(session.send("Emulation.setScriptExecutionDisabled", { value: true }), COMMAND_MS);
  await within(session.send("Runtime.terminateExecution"), COMMAND_MS);
}
