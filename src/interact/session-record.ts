/**
 * @module interact/session-record
 * What the registry of interact sessions (interact/sessions.ts) keeps for each one: its {@link Session} record (its
 * leased page, its times, what runs in it), its kind and its key in the registry ({@link keyOf}), the {@link Work}
 * that may run in it, how a standalone one is listed ({@link SessionInfo}, {@link sessionInfo}), and how a session
 * already forgotten by the registry is ended ({@link finishSession}, {@link endStuckSession}), its profile saved
 * ({@link profileEnd}) or, when that does not fit in its time, not at all. Kept apart from the
 * registry because none of it needs the registry's own state (its maps, limits and timers): it works on one session's
 * record alone.
 */
import type { Lease } from "../engines/browser/pool.ts";
import { captureProfile } from "../engines/browser/profile.ts";
import { CrawlboxError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import type { ProfileSnapshot, ProfileStore } from "../storage/profiles.ts";
import { abandonPageWork, CLOSE_ANSWER_MS, quietPage } from "./page-abandon.ts";

/** A scrape's session (`/v2/scrape/{id}/interact`, keyed by the scrape's id) or a standalone one (`/v2/browser`). */
export type SessionKind = "scrape" | "browser";

export interface Session {
  kind: SessionKind;
  id: string;
  keyId: string;
  lease: Lease;
  openedAt: number;
  lastActivityAt: number;
  /** When its whole life ends. */
  expiresAt: number;
  idleMs: number;
  idle?: ReturnType<typeof setTimeout>;
  life: ReturnType<typeof setTimeout>;
  /** The prompt or script running in it (one at a time): stopped, and waited for, when the session is closed under it. */
  running?: { stop: AbortController; done: Promise<unknown> };
  /** Prompts answered and code run (what the session was billed). */
  runs: number;
  /** Ends the session when its page closes (removed when the session ends: pool pages outlive sessions). */
  onClose: () => void;
  /**
   * Runs when the session is closed, or dropped because its page got stuck (not when its page crashed or closed),
   * before its page goes back: saves its profile, unless `cutOff` aborted first (nothing is written after it aborts:
   * a save given up on is given up for good). See {@link profileEnd}.
   */
  end?: (cutOff: AbortSignal) => Promise<void>;
  /** A standalone session's: the scrape whose interact requests run in it (`existingSessionId`, interact/session-registry.ts). */
  scrapeId?: string;
  /** Its live views' tokens (interact/live-view.ts), unless the session was opened without them. */
  liveTokens?: { view: string; control: string };
  /**
   * Stops following its page: the page limit (interact/page-size.ts) and its navigations (interact/page-abandon.ts
   * `watchNavigation`); the page goes back to the pool without them.
   */
  unguard: () => void;
}

/** A session as `GET /v2/browser` lists it (a scrape's too, with its `scrapeId`). */
export interface SessionInfo {
  /** A standalone session's own id; for a scrape's session, the scrape's id (the session is reached through it). */
  id: string;
  /** Open; or ended: closed (`destroyed`), or dropped with its page (`error`: crashed, closed under it, stuck). */
  status: "active" | "destroyed" | "error";
  /**
   * Set for a scrape's interact session (`/v2/scrape/{scrapeId}/interact`), and for a standalone session attached to a
   * scrape (`existingSessionId`): the scrape whose interact requests run in it.
   */
  scrapeId?: string;
  createdAt: number;
  lastActivityAt: number;
  expiresAt: number;
  endedAt?: number;
  /** The live views' tokens while the session is open (`streamWebView`): watching, and interactive. */
  liveTokens?: { view: string; control: string };
  streamWebView: boolean;
}

/** How a session is opened: its life, its idle time, whether it has live views, and the proxy its page goes out through. */
export interface SessionTimes {
  lifeMs: number;
  idleMs: number;
  liveView: boolean;
  proxyServer?: string;
}

/**
 * A new session's record, opened `now` on its leased page with `times`: `on.life` runs when its life is over,
 * `on.pageClosed` when its page closes (set up by the registry once the session is registered).
 */
export function newSession(o: Pick<Session, "kind" | "id" | "keyId" | "lease" | "unguard" | "end">, times: SessionTimes, now: number, on: { life: () => void; pageClosed: () => void }): Session {
  const life = setTimeout(on.life, times.lifeMs);
  life.unref?.();
  return { ...o, openedAt: now, lastActivityAt: now, expiresAt: now + times.lifeMs, idleMs: times.idleMs, runs: 0, life, onClose: on.pageClosed };
}

/** A session's key in the registry: a scrape's and a standalone session's ids never meet. */
export const keyOf = (kind: SessionKind, id: string) => `${kind}:${id}`;

/** Longest a closing session's `end` (saving its profile) may take before its page goes back anyway. */
export const END_TIMEOUT_MS = 5_000;

/**
 * How a prompt or script ended, as far as its session is concerned. The work sets `stuck` when it was stopped with a
 * command still running on the page; the registry (interact/sessions.ts) then asks the page (interact/page-abandon.ts)
 * and leaves `stuck` set only when the page did not answer and the session was dropped for it, with `profileSaved`
 * telling whether the session's profile was saved first (absent: it had none to save).
 */
export interface WorkOutcome {
  stuck: boolean;
  /** Stopped by its time limit (or its client leaving, the session closing): the loads it started are stopped too. */
  killed?: boolean;
  profileSaved?: boolean;
}

/**
 * What may run in a session: a prompt or a script, telling when its time ran out with a step still in the page.
 * `stop` aborts when the session is closed under it: it should end as when its own time runs out.
 */
export type Work<T extends WorkOutcome> = (lease: Lease, stop: AbortSignal) => Promise<T>;

/** An open session as `GET /v2/browser` lists it. */
export function sessionInfo(s: Session): SessionInfo {
  return {
    id: s.id,
    status: "active",
    ...(s.kind === "scrape" ? { scrapeId: s.id } : s.scrapeId !== undefined ? { scrapeId: s.scrapeId } : {}),
    createdAt: s.openedAt,
    lastActivityAt: s.lastActivityAt,
    expiresAt: s.expiresAt,
    streamWebView: s.liveTokens !== undefined,
    ...(s.liveTokens ? { liveTokens: s.liveTokens } : {}),
  };
}

/**
 * Ends a forgotten session: a prompt or script running in it is stopped first (its page is not handed back under
 * it), and what it left running on the page abandoned (interact/page-abandon.ts); then its profile is saved, then its
 * page goes back (as suspect if its own thread did not answer: the pool checks the browser).
 */
export async function finishSession(s: Session, now: () => number): Promise<ClosedSession> {
  const running = s.running;
  if (running) {
    running.stop.abort(new CrawlboxError("INTERACT_SESSION_CLOSED", 409, "The session was closed."));
    await Promise.race([running.done, Bun.sleep(END_TIMEOUT_MS)]);
  }
  const closed: ClosedSession = { durationMs: now() - s.openedAt, runs: s.runs };
  // Closed under a busy loop, the page would not give its profile up: it is quieted first, as a stuck one is. The loop
  // may be the script's (still running at the close) or the page's own, between scripts (a `setInterval` re-arming
  // it): a session with a profile to save asks its page either way (a page that is not busy answers at once). A page
  // that does not answer has its loads stopped and is asked again (a navigation of its own held the question, and
  // would have cost the profile: the page goes back to the pool anyway, its context closed).
  const ask = running !== undefined || s.end !== undefined;
  const busy = ask && (await abandonPageWork(s.lease.session, undefined, performance.now() + CLOSE_ANSWER_MS, true));
  const saved = await saveProfile(s, busy, END_TIMEOUT_MS);
  if (saved !== undefined) closed.profileSaved = saved;
  s.lease.release({ suspect: busy });
  return closed;
}

/** What a close tells: how long the session was open, how much it ran, and whether its profile was saved (absent: it had none to save). */
export interface ClosedSession {
  durationMs: number;
  runs: number;
  profileSaved?: boolean;
}

/**
 * Ends a forgotten session whose page got stuck (interact/page-abandon.ts): its page is quieted and its profile saved
 * as {@link finishSession} saves it, within `ms` (the script's answer waits for it: interact/page-abandon.ts
 * ABANDON_MS), then its page goes back as suspect (the pool checks the browser). Whether the profile was saved (false:
 * nothing was written, the stored profile is as it was); undefined when the session has none to save.
 */
export async function endStuckSession(s: Session, ms: number): Promise<boolean | undefined> {
  const saved = await saveProfile(s, true, ms);
  s.lease.release({ suspect: true });
  return saved;
}

/**
 * Saves the session's profile (its `end`) within `ms`: whether it was saved, undefined when it has none. A `busy` page
 * is quieted first (interact/page-abandon.ts), so that its storage can be read. A save that does not finish in time is
 * cut off: it writes nothing after (no cookies saved later without the storage they went with), and the answer is
 * false.
 */
async function saveProfile(s: Session, busy: boolean, ms: number): Promise<boolean | undefined> {
  const cutOff = AbortSignal.timeout(Math.max(1, ms));
  if (busy) await raceAbort(quietPage(s.lease.session), cutOff).catch(() => undefined);
  if (!s.end) return undefined;
  if (cutOff.aborted) return false;
  return raceAbort(s.end(cutOff), cutOff).then(
    () => true,
    () => false,
  );
}

/**
 * A standalone session's profile saving (its `end`, for the session opened on `lease`), when it was opened with
 * `profile` and `saveChanges`: what the session changed in the profile's cookies and storage, read from its page, is
 * saved over `snapshot` (the profile as the session's page was started from it), unless `cutOff` aborted first.
 * The store's save is synchronous, so a save either happens whole before the cut-off or not at all.
 */
export function profileEnd(keyId: string, profile: { store: ProfileStore; name: string }, snapshot: ProfileSnapshot): (lease: Lease) => (cutOff: AbortSignal) => Promise<void> {
  return (lease) => async (cutOff) => {
    const next = await captureProfile(lease.context, lease.page, snapshot.state);
    if (cutOff.aborted) throw cutOff.reason;
    profile.store.save(keyId, profile.name, snapshot, next);
  };
}
