/**
 * @module interact/sessions
 * Interactive browser sessions, in a browser context of their own from the pool: a scrape's
 * (`/v2/scrape/{id}/interact`), opened on the scrape's page by its first prompt or script with the scrape's actions
 * replayed (interact/replay.ts) so the page is as the scrape left it, and standalone ones (`/v2/browser`), opened on
 * a blank page. Each keeps its page for the next prompts and scripts (what one clicked stays clicked). A session holds
 * one of the pool's pages, so few may be open (interact/session-registry.ts: {@link MAX_SESSIONS_PER_KEY} per key). A
 * scrape's session idle for {@link IDLE_MS} or open for {@link MAX_LIFE_MS} is closed (unless its first request set
 * other times; a standalone one has its own); so is every session when the server stops (interact/session-registry.ts
 * keeps them). A session whose page closed or crashed is dropped at once, and so is one whose page got stuck: a prompt
 * or script stopped with a command still running on the page leaves the page to answer (interact/page-abandon.ts), and
 * a page whose own thread does not (JavaScript that does not return) is not used again, its profile saved first. One
 * prompt or script at a time per session.
 */
import type { BrowserPool, Lease } from "../engines/browser/pool.ts";
import { CrawlboxError, ServerStoppingError } from "../errors.ts";
import { InteractBusyError, InteractSessionLostError } from "./errors.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import type { Action } from "../api/actions.ts";
import type { ProfileStore } from "../storage/profiles.ts";
import { runPrompt, type PromptOutcome } from "./driver.ts";
import { openScrapePage, type ScrapeDevice } from "./replay.ts";
import { SharedOpening } from "./shared-opening.ts";
import { endStuckSession, keyOf, newSession, profileEnd, sessionInfo, type Session, type SessionInfo, type SessionKind, type SessionTimes, type Work, type WorkOutcome } from "./session-record.ts";
import { blankPageOpening, leaseSessionPage } from "./session-page.ts";
import { BrowserSessionDestroyedError, BrowserSessionNotFoundError } from "./session-history.ts";
import { MAX_SESSIONS_PER_KEY, SessionRegistry } from "./session-registry.ts";
import { ABANDON_MS, abandonPageWork, followLoads, type Loads, stopWorkLoads } from "./page-abandon.ts";

/** A session closes after this long without a prompt. */
export const IDLE_MS = 5 * 60 * 1000;
/** And after this long in all. */
export const MAX_LIFE_MS = 30 * 60 * 1000;

/**
 * A scrape's session as a request asks for it: the page to open and how (the scrape's actions replayed on its
 * device), the caller's `signal`; `lifeMs` and `idleMs` (its `ttl`, `activityTtl`) set the times of a session it
 * opens (by default {@link MAX_LIFE_MS} and {@link IDLE_MS}; a session already open keeps its own).
 * `existingSessionId`: when the scrape has no session, the key's open standalone session to attach to it instead of
 * opening one (interact/session-registry.ts `attach`).
 */
export interface ScrapeTarget {
  scrapeId: string;
  keyId: string;
  url: string;
  actions?: readonly Action[];
  device?: ScrapeDevice;
  signal: AbortSignal;
  lifeMs?: number;
  idleMs?: number;
  /** A standalone session of the key's to run in when the scrape has none (upstream's `existingSessionId`), as it is. */
  existingSessionId?: string;
}

/** Open sessions of both kinds, sharing the limits (each holds one of the browser's pages). */
export class InteractSessions extends SessionRegistry {
  private readonly max: number;

  /**
   * `check(url)`: the egress gate's check, so a session opens only on a page a scrape could fetch now.
   * `maxPageBytes`: `CRAWLBOX_MAX_PAGE_BYTES`, held on every main document a session's page loads, as a scrape's.
   * `proxyServerFor`: the gate listener for the upstream proxy a scrape in `mode` from `country` went out through
   * (engines/browser/index.ts), so that a scrape's session goes out as the scrape did; undefined: none configured.
   */
  constructor(
    private readonly pool: BrowserPool,
    concurrency: number,
    private readonly check: (url: string) => Promise<void>,
    private readonly maxPageBytes: number,
    now: () => number = Date.now,
    private readonly proxyServerFor?: (mode: "basic" | "enhanced", country: string | undefined) => string | undefined,
  ) {
    super(now);
    this.max = Math.max(1, Math.floor(concurrency / 2));
  }

  /**
   * Carries out `prompt` in the scrape's session, opening it on `url` first when there is none. `call()` gives each
   * model call its limits; `signal` (the prompt's time, the client leaving) stops opening and the prompt.
   */
  async prompt(o: ScrapeTarget & { prompt: string; llm: LlmClient; call: () => LlmCall }): Promise<PromptOutcome> {
    const session = await this.scrapeSession(o);
    return this.use(session, (lease, stop) => runPrompt(o.llm, lease.page, lease.session, o.prompt, o.call, AbortSignal.any([o.signal, stop])));
  }

  /** Runs `work` in the scrape's session (opened on `url` first when there is none), as {@link prompt} does. */
  async inScrape<T extends WorkOutcome>(o: ScrapeTarget, work: Work<T>): Promise<T> {
    return this.use(await this.scrapeSession(o), work);
  }

  /**
   * Opens a standalone session on a blank page (`POST /v2/browser`), closed after `idleMs` unused or `lifeMs` in all.
   * With a `profile`, the page starts from its saved cookies and storage, and (unless `saveChanges` is false) what
   * the session changed in them is saved back when it is closed.
   */
  async create(o: { keyId: string; lifeMs: number; idleMs: number; liveView: boolean; profile?: { store: ProfileStore; name: string; saveChanges: boolean }; signal: AbortSignal }): Promise<SessionInfo> {
    const id = crypto.randomUUID();
    const { prepare } = blankPageOpening(o.keyId, o.profile);
    // What the session changes in its profile is saved when it ends, over the profile as its page starts from it (the
    // same row blankPageOpening just read: nothing runs between the two reads). Saved here rather than by the opening's
    // own `end`, so that a save cut off by its time writes nothing (interact/session-record.ts).
    const end = o.profile?.saveChanges ? profileEnd(o.keyId, o.profile, o.profile.store.load(o.keyId, o.profile.name)) : undefined;
    // Through the basic upstream proxy when one is configured, as every fetch that is not a scrape attempt: an
    // appliance whose only way out is its proxy must still reach pages from a session.
    const proxyServer = this.proxyServerFor?.("basic", undefined);
    const times = { lifeMs: o.lifeMs, idleMs: o.idleMs, liveView: o.liveView, ...(proxyServer ? { proxyServer } : {}) };
    const s = await this.open("browser", id, o.keyId, times, prepare, o.signal, end);
    this.idleTimer(s);
    return sessionInfo(s);
  }

  /**
   * Runs `work` in the key's session `id` as `GET /v2/browser` lists it (`POST /v2/browser/{id}/execute`): a standalone
   * session, or a scrape's interact session while it is open (listed under its scrape's id, it runs code there as
   * `/v2/scrape/{id}/interact` would). 410 when the session has ended (while remembered): an interact session is opened
   * again only by its scrape's route, which knows its page. 404 when never known.
   */
  async inListed<T extends WorkOutcome>(id: string, keyId: string, work: Work<T>): Promise<T> {
    const kind = this.openKind(id, keyId);
    const s = kind && this.sessions.get(keyOf(kind, id));
    if (!s) {
      const ended = this.record(id, keyId);
      if (ended && ended.status !== "active") throw new BrowserSessionDestroyedError(ended.status);
      throw new BrowserSessionNotFoundError();
    }
    return this.use(s, work);
  }

  private async use<T extends WorkOutcome>(session: Session, work: Work<T>): Promise<T> {
    if (session.running) throw new InteractBusyError();
    clearTimeout(session.idle);
    session.lastActivityAt = this.now();
    const stop = new AbortController();
    // A crashed page (over its memory limit, say) stops the work at once; the session is lost with it (below).
    const crashed = session.lease.crashed;
    const onCrash = () => stop.abort(crashed.reason);
    crashed.addEventListener("abort", onCrash, { once: true });
    // The loads the work starts (its navigations, their frames): one still under way when it is stopped is stopped
    // too, and nothing else of the page's (interact/page-abandon.ts).
    const loads = followLoads(session.lease.session);
    // A page over the memory limit since the guard's last tick is stopped now, not after the answer (inside the work
    // a close waits for, so that a run it stops is counted before the close bills it).
    const done = work(session.lease, stop.signal).then((outcome) => session.lease.checkMemory().then(() => outcome));
    session.running = { stop, done: done.catch(() => undefined) };
    try {
      const outcome = await done;
      if (crashed.aborted) throw crashed.reason;
      session.runs++;
      if (outcome.stuck) await this.abandoned(session, outcome, loads);
      else if (outcome.killed && this.isOpen(session)) await stopWorkLoads(session.lease.session, loads);
      return outcome;
    } catch (err) {
      // A typed error (the model's) leaves the session as it is; a crashed page, or anything else (the browser failing
      // under it), loses the session.
      if (!crashed.aborted && err instanceof CrawlboxError) throw err;
      this.drop(session);
      throw new InteractSessionLostError(crashed.aborted ? (crashed.reason as Error).message : undefined);
    } finally {
      loads.dispose();
      crashed.removeEventListener("abort", onCrash);
      session.running = undefined;
      session.lastActivityAt = this.now();
      this.idleTimer(session);
    }
  }

  /**
   * The work was stopped with a command still running on the page: the page is left to answer. One that does (a
   * wait, a load the work started: now stopped) keeps its session (`stuck` cleared); one whose thread does not is not
   * used again: its session is dropped, its profile saved first if that fits in the time left (`profileSaved`), and
   * the next prompt of a scrape's opens a fresh one. All within ABANDON_MS: the answer waits for it.
   */
  private async abandoned(session: Session, outcome: WorkOutcome, loads: Loads): Promise<void> {
    const deadline = performance.now() + ABANDON_MS;
    // Closed under the work (DELETE, its ttl) or while the page was asked (or crashed meanwhile): the close or the
    // crash takes care of its page.
    outcome.stuck = this.isOpen(session) && (await abandonPageWork(session.lease.session, loads, deadline)) && this.isOpen(session);
    if (!outcome.stuck) return;
    this.forget(session, "error");
    const saved = await this.track(endStuckSession(session, deadline - performance.now()));
    if (saved !== undefined) outcome.profileSaved = saved;
  }

  /**
   * The session the scrape's requests run in, when it has one or `existingSessionId` names one to attach (upstream's:
   * the key's open standalone session becomes the scrape's, unless the scrape's own is being opened: a second session
   * for one scrape). Another id (not open, not the key's) is passed over, as upstream's: a session is opened on the
   * scrape's page. A busy session is not attached (409, interact/session-registry.ts `attach`).
   */
  private foundForScrape(o: ScrapeTarget): Session | undefined {
    const session = this.ofScrape(o.scrapeId);
    if (session && session.keyId !== o.keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
    if (session) return session;
    if (o.existingSessionId !== undefined && !this.opening.has(keyOf("scrape", o.scrapeId))) return this.attach(o.existingSessionId, o.keyId, o.scrapeId);
    return undefined;
  }

  private async scrapeSession(o: ScrapeTarget): Promise<Session> {
    const found = this.foundForScrape(o);
    if (found) return found;
    await this.check(o.url);
    // Looked up again: another request of the scrape's may have attached a session to it during the check (or the
    // scrape's own opening may have begun, which `open` joins). One scrape, one session.
    const since = this.foundForScrape(o);
    if (since) return since;
    // Through the upstream proxy the scrape used (its mode, its country): a site that answered the scrape through it
    // may refuse the server's own address, or show another country's page.
    const proxyServer = this.proxyServerFor?.(o.device?.stealth ? "enhanced" : "basic", o.device?.location?.country);
    const times = { lifeMs: o.lifeMs ?? MAX_LIFE_MS, idleMs: o.idleMs ?? IDLE_MS, liveView: true, ...(proxyServer ? { proxyServer } : {}) };
    return this.open("scrape", o.scrapeId, o.keyId, times, (lease, signal) => openScrapePage(lease.page, lease.session, o.url, o.actions ?? [], signal, o.device), o.signal);
  }

  /**
   * Opens the session, or joins its opening under way. `signal` is this caller's own (its time, its client): it stops
   * this caller's wait at once; `prepare` gets the opening's signal, which aborts only once every caller waiting for
   * it has given up (interact/shared-opening.ts).
   */
  private open(kind: SessionKind, id: string, keyId: string, times: SessionTimes, prepare: (lease: Lease, signal: AbortSignal) => Promise<void>, signal: AbortSignal, end?: (lease: Lease) => (cutOff: AbortSignal) => Promise<void>): Promise<Session> {
    const key = keyOf(kind, id);
    const pending = this.opening.get(key);
    if (pending) {
      if (pending.keyId !== keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
      return pending.opening.join(signal);
    }
    if (signal.aborted) throw signal.reason;
    if (this.closed) throw new ServerStoppingError("The server is stopping.");
    this.checkRoom(keyId, this.max);
    const opening = new SharedOpening((opened) => this.launch(kind, id, keyId, times, prepare, opened, end));
    const entry = { keyId, opening };
    const settled = () => {
      if (this.opening.get(key) === entry) this.opening.delete(key);
    };
    void opening.done.then(settled, settled);
    this.opening.set(key, entry);
    return opening.join(signal);
  }

  /** Opens a session; `signal` is the opening's own (aborted once nobody waits for it any more). */
  private async launch(kind: SessionKind, id: string, keyId: string, times: SessionTimes, prepare: (lease: Lease, signal: AbortSignal) => Promise<void>, signal: AbortSignal, end?: (lease: Lease) => (cutOff: AbortSignal) => Promise<void>): Promise<Session> {
    const { lease, unguard } = await leaseSessionPage(this.pool, this.maxPageBytes, prepare, signal, times.proxyServer);
    if (this.closed) {
      unguard();
      lease.release();
      throw new ServerStoppingError("The server is stopping.");
    }
    const session: Session = newSession({ kind, id, keyId, lease, unguard, ...(end ? { end: end(lease) } : {}) }, times, this.now(), {
      life: () => void this.close(id, keyId, kind),
      // A page that closes (a crash, the browser retired or killed) ends its session at once, not at its next prompt.
      pageClosed: () => this.drop(session),
    });
    // A person using the interactive view is activity: the session does not close under them for being idle.
    if (times.liveView) {
      session.liveTokens = this.live.register(lease.session, () => {
        session.lastActivityAt = this.now();
        if (!session.running) this.idleTimer(session);
      });
    }
    lease.page.once("close", session.onClose);
    lease.crashed.addEventListener("abort", session.onClose, { once: true });
    this.sessions.set(keyOf(kind, id), session);
    return session;
  }
}
