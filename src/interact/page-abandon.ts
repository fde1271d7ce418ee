/**
 * @module interact/page-abandon
 * What becomes of a session's page when a prompt or script is stopped (its time ran out, its client left) with a
 * command still running on the page. Most such commands are driven from crawlbox: a wait polling the page
 * (`agent-browser wait`, `waitForSelector`, a locator waiting for its element), a navigation waiting for its load
 * (`open` of a page whose load never ends, `goto`). They stop with the script (their polls follow its signal), and
 * the page is fine: {@link abandonPageWork} stops a load the script started that is still under way (its `goto`, a
 * link it clicked, a navigation its JavaScript asked for: {@link followLoads}), as the browser's Stop button does, and
 * the session goes on. Only a page whose own thread does not answer is stuck: JavaScript running
 * in it that does not return (a busy loop in an `eval`, or in the page's own script). Such a page is not used again
 * (interact/sessions.ts drops its session), but {@link quietPage} first stops that JavaScript and what would start it
 * again, so that the session's profile can still be read from the page and saved as a close would.
 *
 * The test is the page's answer to a trivial evaluation: Chromium runs `Runtime.evaluate` on the page's main thread,
 * so a thread kept busy cannot answer it, while a page waiting (for a load, a timer, a promise) answers at once. A
 * page whose main frame is navigating cannot answer either (Chromium holds the question until the new document
 * commits): {@link watchNavigation} tells such a page from a stuck one.
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

/** Longest a closing page whose loads were stopped is asked again (a page that was only navigating answers in milliseconds). */
const REASK_MS = 300;

/** Longest {@link abandonPageWork} takes for a session being closed (`closing`): the page's answer, a stop, its answer again. */
export const CLOSE_ANSWER_MS = PAGE_ANSWER_MS + STOP_MS + REASK_MS;

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
/** How many of a session's own scripts in its page ({@link ownScript}) are under way, by the page's CDP session. */
const scripting = new WeakMap<CDPSession, number>();

/** Runs `go` with `session` counted in `counts` while it is under way. */
async function counted<T>(counts: WeakMap<CDPSession, number>, session: CDPSession, go: () => Promise<T>): Promise<T> {
  counts.set(session, (counts.get(session) ?? 0) + 1);
  try {
    return await go();
  } finally {
    const left = (counts.get(session) ?? 1) - 1;
    if (left > 0) counts.set(session, left);
    else counts.delete(session);
  }
}

/**
 * Carries out `go`, a navigation the session's code asks for (`open`, `back`, `forward`, `reload`; `goto`, `goBack`,
 * `goForward`, `reload`: interact/sandbox/navigate.ts) on the page reached through `session`: the loads that start
 * while it is under way are the code's ({@link followLoads}).
 */
export function ownNavigation<T>(session: CDPSession, go: () => Promise<T>): Promise<T> {
  return counted(navigating, session, go);
}

/**
 * Runs `go`, JavaScript of the session's code in the page reached through `session` (bash's `eval`, JavaScript's and
 * Python's `page.evaluate` and a locator's `evaluate`): a navigation the page asks for while it runs
 * (`location.href = …`, `location.assign`, `form.submit()`, `history.back()`) is the code's ({@link followLoads}), as a
 * clicked link is. Chromium tells such a request (`Page.frameRequestedNavigation`, and for a move in the history its
 * start, `Page.frameStartedNavigating`) while the script runs, before its evaluation answers.
 */
export function ownScript<T>(session: CDPSession, go: () => Promise<T>): Promise<T> {
  return counted(scripting, session, go);
}

/**
 * Why a page asks for a navigation itself (`Page.frameRequestedNavigation`) when it is the code's doing: a link
 * clicked, a form sent (`click`, `press Enter`). A page's own script (`location.href = …` in a timer), a refresh
 * (`<meta http-equiv=refresh>`, a `Refresh` header) are the page's, unless the code's own script is running then.
 */
const CLICKED = new Set(["anchorClick", "formSubmissionGet", "formSubmissionPost"]);

/** Reasons that are the page's own even while the code's script runs: a refresh it had scheduled. */
const REFRESHES = new Set(["httpHeaderRefresh", "metaTagRefresh"]);

/** Navigations that keep the document (a fragment, `history.pushState` moves): nothing loads, nothing is to stop. */
const SAME_DOCUMENT = new Set(["sameDocument", "historySameDocument"]);

/** A navigation's start, as Chromium tells it (`Page.frameStartedNavigating`). */
interface NavigationStart {
  frameId: string;
  navigationType: string;
}

/**
 * Follows the loads that the code running now (a prompt or script) starts on the page reached through `session`: a
 * navigation it asks for ({@link ownNavigation}: `open`, `goto`, back, forward, reload) and what loads while it is
 * under way (the frames of its page), a clicked link or a sent form, and a navigation its own JavaScript asks for
 * while it runs ({@link ownScript}), each until its frame stops loading (its load event, or a stop). A page's own
 * navigation outside the code's calls (its script's `location.href = …` in a timer, a refresh) and its own requests
 * (`fetch`, an `EventSource`, a WebSocket) are not the code's: {@link abandonPageWork} leaves them alone.
 * The session's CDP session has the Page domain on (engines/browser/setup.ts).
 */
export function followLoads(session: CDPSession): Loads {
  /** Frames loading a document of the code's. */
  const frames = new Set<string>();
  /** Frames whose next navigation the code asked for, until it starts (a same-document one loads nothing). */
  const asked = new Set<string>();
  const scriptRuns = () => (scripting.get(session) ?? 0) > 0;
  // Only a navigation of the frame itself: a link opened in a new tab or window, or a download, loads nothing there.
  const requested = (e: { frameId: string; reason: string; disposition?: string }) => {
    if (e.disposition !== undefined && e.disposition !== "currentTab") return;
    if (CLICKED.has(e.reason) || (scriptRuns() && !REFRESHES.has(e.reason))) asked.add(e.frameId);
  };
  // A move in the history (`history.back()`) is not requested: it starts at once, while the script still runs.
  const begun = (e: NavigationStart) => {
    const mine = asked.delete(e.frameId) || scriptRuns();
    if (mine && !SAME_DOCUMENT.has(e.navigationType)) frames.add(e.frameId);
  };
  const started = (e: { frameId: string }) => void ((navigating.get(session) ?? 0) > 0 && frames.add(e.frameId));
  const stopped = (e: { frameId: string }) => void frames.delete(e.frameId);
  const detached = (e: { frameId: string }) => {
    frames.delete(e.frameId);
    asked.delete(e.frameId);
  };
  session.on("Page.frameRequestedNavigation", requested);
  session.on("Page.frameStartedNavigating", begun);
  session.on("Page.frameStartedLoading", started);
  session.on("Page.frameStoppedLoading", stopped);
  session.on("Page.frameDetached", detached);
  return {
    get pending() {
      return frames.size > 0 || asked.size > 0;
    },
    dispose() {
      session.off("Page.frameRequestedNavigation", requested);
      session.off("Page.frameStartedNavigating", begun);
      session.off("Page.frameStartedLoading", started);
      session.off("Page.frameStoppedLoading", stopped);
      session.off("Page.frameDetached", detached);
    },
  };
}

/**
 * Longest a page that does not answer is excused for navigating ({@link watchNavigation}), from the navigation's start:
 * past it, the page is taken for stuck as any other. A busy thread holds the commit of its next document forever (a
 * page that starts a navigation and then loops), and a server that answers that late is not worth a page held open.
 */
export const NAVIGATION_EXCUSE_MS = 5_000;

/**
 * Whether the main frame of each watched session page ({@link watchNavigation}) is navigating, and since when (a
 * `performance.now()` time), by its CDP session.
 */
const mainFrames = new WeakMap<CDPSession, { navigating: boolean; sinceMs: number }>();

/**
 * Follows, from a session's opening to its end, whether the main frame of its page (reached through `session`) is
 * navigating: a document asked for (by anyone: the page itself too) that has neither committed nor stopped. Chromium
 * holds DevTools commands for such a page until then, the page's answer to {@link abandonPageWork} included, so a
 * page that does not answer while it navigates is waiting for its server, not busy. Returns what ends the watch.
 */
export async function watchNavigation(session: CDPSession): Promise<() => void> {
  const { frameTree } = await session.send("Page.getFrameTree");
  const main = frameTree.frame.id;
  const state = { navigating: false, sinceMs: 0 };
  const begun = (e: NavigationStart) => {
    if (e.frameId !== main || SAME_DOCUMENT.has(e.navigationType)) return;
    // A navigation replacing one under way restarts nothing: the page has been waiting since the first.
    if (!state.navigating) state.sinceMs = performance.now();
    state.navigating = true;
  };
  const ended = (e: { frameId: string }) => void (e.frameId === main && (state.navigating = false));
  const committed = (e: { frame: { id: string } }) => ended({ frameId: e.frame.id });
  session.on("Page.frameStartedNavigating", begun);
  session.on("Page.frameNavigated", committed);
  session.on("Page.frameStoppedLoading", ended);
  mainFrames.set(session, state);
  return () => {
    session.off("Page.frameStartedNavigating", begun);
    session.off("Page.frameNavigated", committed);
    session.off("Page.frameStoppedLoading", ended);
    if (mainFrames.get(session) === state) mainFrames.delete(session);
  };
}

/** Whether the page's main frame has been navigating for less than {@link NAVIGATION_EXCUSE_MS}. */
function navigatingLately(session: CDPSession): boolean {
  const state = mainFrames.get(session);
  return state !== undefined && state.navigating && performance.now() - state.sinceMs < NAVIGATION_EXCUSE_MS;
}

/**
 * Stops the loads the work started (`loads`) that are still under way, when the work was stopped (its time ran out)
 * with nothing of its own running in the page: a navigation its script asked for, then a timed wait that ran out
 * (`eval "location.href = …"` then `wait 100000`). Left going, it would hold every later command until its server
 * answers, then replace the page under them. Nothing of the page's own is stopped when the work started no load.
 */
export async function stopWorkLoads(session: CDPSession, loads: Loads): Promise<void> {
  if (loads.pending) await within(session.send("Page.stopLoading"), STOP_MS);
}

/**
 * Abandons the command left running on the page reached through `session` (the session's lease's CDP session): a
 * load the work started that is still under way (`loads`) is stopped, and the page's thread is asked to answer,
 * within {@link PAGE_ANSWER_MS} and before `deadline` (a `performance.now()` time). Whether the page is stuck (its
 * thread did not answer): a stuck page is not to be used again. An evaluation that fails instead (the document being
 * replaced, the page gone) is not a busy thread: a page that closed or crashed ends its session by itself
 * (interact/sessions.ts). A page that does not answer while its main frame navigates on its own (the work's loads were
 * stopped) is not stuck either: Chromium holds the question until the navigation commits or stops
 * ({@link watchNavigation}), and that navigation is the page's, left to go on; for {@link NAVIGATION_EXCUSE_MS} from
 * its start only (a page that loops after asking for a navigation never commits it). `closing`: the session ends, so nothing
 * of the page's is left to go on: a page that does not answer has its loads stopped, and is asked again briefly (a
 * navigation of its own held the question; a busy thread does not answer then either).
 */
export async function abandonPageWork(session: CDPSession, loads: Loads | undefined, deadline: number, closing = false): Promise<boolean> {
  // A pending navigation (its server has not answered yet, or its load event never comes) would otherwise go on, and
  // could replace the page under the next script. Only a load the work started is stopped: stopping loads also
  // cancels the page's own fetches and event streams (window.stop() does), which are none of the script's business.
  // Stopping is handled by the browser even when the thread is busy.
  if (loads?.pending) await within(session.send("Page.stopLoading"), STOP_MS);
  const ask = (ms: number) => within(session.send("Runtime.evaluate", { expression: "0", returnByValue: true }), Math.min(ms, deadline - performance.now()));
  if ((await ask(PAGE_ANSWER_MS)) !== "silent") return false;
  if (!closing) return !navigatingLately(session);
  await within(session.send("Page.stopLoading"), STOP_MS);
  return (await ask(REASK_MS)) === "silent";
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
