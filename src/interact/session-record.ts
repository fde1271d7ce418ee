/**
 * @module interact/session-record
 * What the registry of interact sessions (interact/sessions.ts) keeps for each one: its {@link Session} record (its
 * leased page, its times, what runs in it), its kind and its key in the registry ({@link keyOf}), the {@link Work}
 * that may run in it, how a standalone one is listed ({@link SessionInfo}, {@link sessionInfo}), and how a session
 * already forgotten by the registry is ended ({@link finishSession}). Kept apart from the registry because none of it
 * needs the registry's own state (its maps, limits and timers): it works on one session's record alone.
 */
import type { Lease } from "../engines/browser/pool.ts";
import { CrawlboxError } from "../errors.ts";

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
  /** Runs when the session is closed (not when its page failed), before its page goes back: saves its profile. */
  end?: () => Promise<void>;
  /** Its live views' tokens (interact/live-view.ts), unless the session was opened without them. */
  liveTokens?: { view: string; control: string };
  /** Stops holding its page to the page limit (interact/page-size.ts): the page goes back to the pool without it. */
  unguard: () => void;
}

/** A standalone session as `GET /v2/browser` lists it. */
export interface SessionInfo {
  id: string;
  status: "active" | "destroyed";
  createdAt: number;
  lastActivityAt: number;
  expiresAt: number;
  endedAt?: number;
  /** The live views' tokens while the session is open (`streamWebView`): watching, and interactive. */
  liveTokens?: { view: string; control: string };
  streamWebView: boolean;
}

/** A session's key in the registry: a scrape's and a standalone session's ids never meet. */
export const keyOf = (kind: SessionKind, id: string) => `${kind}:${id}`;

/** Longest a closing session's `end` (saving its profile) may take before its page goes back anyway. */
const END_TIMEOUT_MS = 5_000;

/**
 * What may run in a session: a prompt or a script, told when its time ran out with a step still in the page.
 * `stop` aborts when the session is closed under it: it should end as when its own time runs out.
 */
export type Work<T extends { stuck: boolean }> = (lease: Lease, stop: AbortSignal) => Promise<T>;

/** An open session as `GET /v2/browser` lists it. */
export function sessionInfo(s: Session): SessionInfo {
  return { id: s.id, status: "active", createdAt: s.openedAt, lastActivityAt: s.lastActivityAt, expiresAt: s.expiresAt, streamWebView: s.liveTokens !== undefined, ...(s.liveTokens ? { liveTokens: s.liveTokens } : {}) };
}

/**
 * Ends a forgotten session: a prompt or script running in it is stopped first (its page is not handed back under
 * it), then its profile is saved, then its page goes back.
 */
export async function finishSession(s: Session, now: () => number): Promise<{ durationMs: number; runs: number }> {
  const running = s.running;
  if (running) {
    running.stop.abort(new CrawlboxError("INTERACT_SESSION_CLOSED", 409, "The session was closed."));
    await Promise.race([running.done, Bun.sleep(END_TIMEOUT_MS)]);
  }
  const closed = { durationMs: now() - s.openedAt, runs: s.runs };
  if (s.end) await Promise.race([s.end(), Bun.sleep(END_TIMEOUT_MS)]).catch(() => undefined);
  s.lease.release();
  return closed;
}
