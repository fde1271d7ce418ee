/**
 * @module interact/session-registry
 * The registry of open browser sessions (interact/sessions.ts opens them and runs prompts and scripts in them): the
 * sessions of both kinds by their key ({@link keyOf}), those being opened, and the ones that ended
 * (interact/session-history.ts), and the standalone sessions a scrape's requests run in (`existingSessionId`,
 * {@link SessionRegistry.attach}); how they are found and listed (`GET /v2/browser`, `GET /v2/browser/{id}`), timed out
 * (idle, life), closed (their running work stopped, their profile saved: interact/session-record.ts) or dropped with a
 * failed page, and closed all at once when the server stops; and how many may be open.
 *
 * A session holds one of the browser pool's pages, so at most half the browser's concurrency (at least one) may be
 * open in all, and {@link MAX_SESSIONS_PER_KEY} per key: standalone sessions (`/v2/browser`) and scrapes' interact
 * sessions (`/v2/scrape/{id}/interact`) together, sessions being opened included. A refusal is a 429
 * `TOO_MANY_INTERACT_SESSIONS` that names the key's sessions and how each is stopped: an interact session holds a place
 * as a standalone one does, and `GET /v2/browser` lists both (before, it listed only standalone ones, and a key with
 * one listed session was told it had two open).
 */
import { TooManyRequestsError } from "../errors.ts";
import { InteractBusyError, InteractSessionClosedWhileOpeningError } from "./errors.ts";
import { LiveViews } from "./live-view.ts";
import type { SharedOpening } from "./shared-opening.ts";
import { finishSession, keyOf, type ClosedSession, sessionInfo, type Session, type SessionInfo, type SessionKind } from "./session-record.ts";
import { SessionHistory, type EndedStatus } from "./session-history.ts";

/** Sessions one key may have open (or opening). */
export const MAX_SESSIONS_PER_KEY = 2;

/** The 429 of a key with no room: its sessions named, by kind, with how to stop each. */
function keyFullMessage(mine: readonly Session[], opening: number): string {
  const standalone = mine.filter((s) => s.kind === "browser").map((s) => s.id);
  const scrapes = mine.filter((s) => s.kind === "scrape").map((s) => s.id);
  const parts = [
    ...(standalone.length ? [`standalone ${standalone.join(", ")} (DELETE /v2/browser/{id})`] : []),
    ...(scrapes.length ? [`interact on scrape ${scrapes.join(", ")} (DELETE /v2/scrape/{id}/interact)`] : []),
    ...(opening ? [`${opening} being opened`] : []),
  ];
  return `This key already has ${MAX_SESSIONS_PER_KEY} browser sessions open: ${parts.join("; ")}. GET /v2/browser lists them, interact sessions with their scrapeId; stop one first.`;
}

/** The open sessions and what becomes of them (see the module comment); the base of interact/sessions.ts. */
export class SessionRegistry {
  protected readonly sessions = new Map<string, Session>();
  /** Sessions being opened (counted in the limits; a second prompt waits for the same opening, within its own time). */
  protected readonly opening = new Map<string, { keyId: string; opening: SharedOpening<Session> }>();
  protected readonly history = new SessionHistory();
  /**
   * Standalone sessions a scrape's interact requests run in (`existingSessionId`, {@link attach}), by the scrape's id:
   * the scrape's own session, when it has one, comes first.
   */
  private readonly attached = new Map<string, Session>();
  /** Closes under way (stopping a running script, saving a profile): the server waits for them when it stops. */
  private readonly ending = new Set<Promise<unknown>>();
  /** Set when the server stops: no session opens after. */
  protected closed = false;
  /** The sessions' live views (`liveViewUrl`). */
  readonly live = new LiveViews();

  constructor(protected readonly now: () => number = Date.now) {}

  /** Whether `keyId` has a session on `scrapeId` (its own, or a standalone one attached to it). */
  has(scrapeId: string, keyId: string): boolean {
    return this.ofScrape(scrapeId)?.keyId === keyId;
  }

  /** The open session the scrape's interact requests run in: its own, else a standalone session attached to it. */
  protected ofScrape(scrapeId: string): Session | undefined {
    return this.sessions.get(keyOf("scrape", scrapeId)) ?? this.attached.get(scrapeId);
  }

  /**
   * Attaches the key's open standalone session `id` to `scrapeId` (upstream's `existingSessionId`): the scrape's
   * interact requests run in it from now on, as it is (nothing is replayed), until it ends or `DELETE
   * /v2/scrape/{scrapeId}/interact` ends it; it is listed with that `scrapeId`. A session attached to another scrape
   * moves to this one, as upstream's does. Undefined when the key has no such session open (the caller opens one).
   * A session carrying out a prompt or script is not moved: the request could not run in it (409, as `use` answers).
   */
  protected attach(id: string, keyId: string, scrapeId: string): Session | undefined {
    const s = this.sessions.get(keyOf("browser", id));
    if (!s || s.keyId !== keyId) return undefined;
    if (s.running) throw new InteractBusyError();
    if (s.scrapeId !== undefined && this.attached.get(s.scrapeId) === s) this.attached.delete(s.scrapeId);
    s.scrapeId = scrapeId;
    this.attached.set(scrapeId, s);
    return s;
  }

  /**
   * The key's session `id` as `GET /v2/browser` lists it, open or ended (while remembered): a standalone one, else a
   * scrape's (whose id is its scrape's).
   */
  record(id: string, keyId: string): SessionInfo | undefined {
    for (const kind of ["browser", "scrape"] as const) {
      const s = this.sessions.get(keyOf(kind, id));
      if (s && s.keyId === keyId) return sessionInfo(s);
      const ended = this.history.find(kind, id, keyId);
      if (ended) return ended;
    }
    return undefined;
  }

  /** The kind of the key's open session `id` as `GET /v2/browser` lists it (a standalone one first); undefined when none is open. */
  openKind(id: string, keyId: string): SessionKind | undefined {
    for (const kind of ["browser", "scrape"] as const) if (this.sessions.get(keyOf(kind, id))?.keyId === keyId) return kind;
    return undefined;
  }

  /** The live view tokens of the key's session, if it is open and has them (a scrape's: the one its requests run in). */
  liveTokensOf(kind: SessionKind, id: string, keyId: string): { view: string; control: string } | undefined {
    const s = kind === "scrape" ? this.ofScrape(id) : this.sessions.get(keyOf(kind, id));
    return s && s.keyId === keyId ? s.liveTokens : undefined;
  }

  /**
   * The key's sessions, standalone and scrapes' (those with a `scrapeId`: they count in the same limits), open
   * (`active`) or ended while this server ran (`destroyed`: closed; `error`: dropped with their page); all by default.
   * One entry per session: a scrape's session opened again after it ended is listed as it is now.
   */
  list(keyId: string, status?: "active" | EndedStatus): SessionInfo[] {
    const active = status === undefined || status === "active" ? [...this.sessions.values()].filter((s) => s.keyId === keyId).map((s) => sessionInfo(s)) : [];
    if (status === "active") return active;
    const open = (kind: SessionKind, id: string) => this.sessions.get(keyOf(kind, id))?.keyId === keyId;
    return [...active, ...this.history.list(keyId, open, status)];
  }

  /**
   * Closes the session: how long it was open, how much it ran, and whether its profile was saved (`profileSaved`,
   * absent when it had none to save); undefined when there was none. Resolves once its profile is saved (a next
   * session with the profile finds what this one left).
   */
  async close(id: string, keyId: string, kind: SessionKind = "scrape"): Promise<ClosedSession | undefined> {
    // A scrape's id closes the session its requests run in: its own, or a standalone one attached to it.
    const s = kind === "scrape" ? this.ofScrape(id) : this.sessions.get(keyOf(kind, id));
    if (!s || s.keyId !== keyId) {
      // Still opening: stopped now, and its waiters told why. It was a 404, and the session then opened anyway and
      // held a page nobody knew of until it idled out (5 minutes).
      const pending = this.opening.get(keyOf(kind, id));
      if (!pending || pending.keyId !== keyId) return undefined;
      pending.opening.cancel(new InteractSessionClosedWhileOpeningError());
      await pending.opening.done.catch(() => undefined);
      return { durationMs: 0, runs: 0 };
    }
    this.forget(s, "destroyed");
    // The whole close is tracked, its wait for a running prompt or script included: the server waits for it.
    return this.track(finishSession(s, this.now));
  }

  /** `ending`, tracked until it settles: the server waits for it when it stops. */
  protected track<T>(ending: Promise<T>): Promise<T> {
    this.ending.add(ending);
    void ending.finally(() => this.ending.delete(ending));
    return ending;
  }

  /** Closes every session (saving their profiles), waits for every close under way, and refuses new sessions. */
  async closeAll(): Promise<void> {
    this.closed = true;
    for (const s of [...this.sessions.values()]) void this.close(s.id, s.keyId, s.kind);
    await Promise.all(this.ending);
  }

  /**
   * Throws the 429 when `keyId` may not open another session (it has {@link MAX_SESSIONS_PER_KEY}, open or being
   * opened), or the server may not (it has `max`).
   */
  protected checkRoom(keyId: string, max: number): void {
    const open = [...this.sessions.values()];
    const openingKeyIds = [...this.opening.values()].map((p) => p.keyId);
    const mine = open.filter((s) => s.keyId === keyId);
    const opening = openingKeyIds.filter((k) => k === keyId).length;
    if (mine.length + opening >= MAX_SESSIONS_PER_KEY) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", keyFullMessage(mine, opening));
    if (open.length + openingKeyIds.length >= max) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `The server already has ${max} browser sessions open (half its browser's concurrency); try again later.`);
  }

  protected isOpen(s: Session): boolean {
    return this.sessions.get(keyOf(s.kind, s.id)) === s;
  }

  protected idleTimer(s: Session): void {
    if (!this.isOpen(s)) return;
    clearTimeout(s.idle);
    s.idle = setTimeout(() => void this.close(s.id, s.keyId, s.kind), s.idleMs);
    s.idle.unref?.();
  }

  protected forget(s: Session, status: EndedStatus): void {
    this.sessions.delete(keyOf(s.kind, s.id));
    if (s.scrapeId !== undefined && this.attached.get(s.scrapeId) === s) this.attached.delete(s.scrapeId);
    clearTimeout(s.idle);
    clearTimeout(s.life);
    s.lease.page.off("close", s.onClose);
    s.lease.crashed.removeEventListener("abort", s.onClose);
    s.unguard();
    if (s.liveTokens) this.live.unregister(s.liveTokens.view);
    // A prompt or script running in it was activity up to now (its record is made before the run itself ends).
    if (s.running) s.lastActivityAt = this.now();
    this.history.record(s, status, this.now());
  }

  /** Forgets a session whose page failed, handing the page back as suspect (the pool probes the browser). */
  protected drop(s: Session): void {
    if (!this.isOpen(s)) return;
    this.forget(s, "error");
    s.lease.release({ suspect: true });
  }
}
