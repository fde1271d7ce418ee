/**
 * @module interact/sessions
 * Interactive browser sessions, in a browser context of their own from the pool: a scrape's
 * (`/v2/scrape/{id}/interact`), opened on the scrape's page by its first prompt or script with the scrape's actions
 * replayed (interact/replay.ts) so the page is as the scrape left it, and standalone ones (`/v2/browser`), opened on
 * a blank page. Each keeps its page for the next prompts and scripts (what one clicked stays clicked). A session holds
 * one of the pool's pages, so few may be open: at most half the browser's concurrency (at least one) in all and
 * {@link MAX_SESSIONS_PER_KEY} per key, both kinds and sessions being opened included. A scrape's session idle for
 * {@link IDLE_MS} or open for {@link MAX_LIFE_MS} is closed (a standalone one has its own times); so is one whose
 * page closed or got stuck, and every session when the server stops. One prompt or script at a time per session.
 */
import type { BrowserPool, Lease } from "../engines/browser/pool.ts";
import { CrawlboxError, ServerStoppingError, TooManyRequestsError } from "../errors.ts";
import { InteractBusyError, InteractSessionClosedWhileOpeningError, InteractSessionLostError } from "./errors.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import type { Action } from "../api/actions.ts";
import type { ProfileStore } from "../storage/profiles.ts";
import { runPrompt, type PromptOutcome } from "./driver.ts";
import { openScrapePage, type ScrapeDevice } from "./replay.ts";
import { LiveViews } from "./live-view.ts";
import { SharedOpening } from "./shared-opening.ts";
import { finishSession, keyOf, sessionInfo, type Session, type SessionInfo, type SessionKind, type Work } from "./session-record.ts";
import { blankPageOpening, leaseSessionPage } from "./session-page.ts";

/** A session closes after this long without a prompt. */
export const IDLE_MS = 5 * 60 * 1000;
/** And after this long in all. */
export const MAX_LIFE_MS = 30 * 60 * 1000;
/** Sessions one key may have open (or opening). */
export const MAX_SESSIONS_PER_KEY = 2;
/** Ended standalone sessions remembered for `GET /v2/browser?status=destroyed`: the server's last ones, all keys together (in memory, newest first). */
export const ENDED_KEPT = 1_000;

/** How a session is opened: its life, its idle time, whether it has live views, and the proxy its page goes out through. */
interface SessionTimes {
  lifeMs: number;
  idleMs: number;
  liveView: boolean;
  proxyServer?: string;
}

/** Open sessions of both kinds, sharing the limits (each holds one of the browser's pages). */
export class InteractSessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being opened (counted in the limits; a second prompt waits for the same opening, within its own time). */
  private readonly opening = new Map<string, { keyId: string; opening: SharedOpening<Session> }>();
  private readonly ended: Array<SessionInfo & { keyId: string }> = [];
  /** Closes under way (stopping a running script, saving a profile): the server waits for them when it stops. */
  private readonly ending = new Set<Promise<unknown>>();
  private readonly max: number;
  private closed = false;
  /** The sessions' live views (`liveViewUrl`). */
  readonly live = new LiveViews();

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
    private readonly now: () => number = Date.now,
    private readonly proxyServerFor?: (mode: "basic" | "enhanced", country: string | undefined) => string | undefined,
  ) {
    this.max = Math.max(1, Math.floor(concurrency / 2));
  }

  /** Whether `keyId` has a session on `scrapeId`. */
  has(scrapeId: string, keyId: string): boolean {
    return this.sessions.get(keyOf("scrape", scrapeId))?.keyId === keyId;
  }

  /**
   * Carries out `prompt` in the scrape's session, opening it on `url` first when there is none. `call()` gives each
   * model call its limits; `signal` (the prompt's time, the client leaving) stops opening and the prompt.
   */
  async prompt(o: { scrapeId: string; keyId: string; url: string; actions?: readonly Action[]; device?: ScrapeDevice; prompt: string; llm: LlmClient; call: () => LlmCall; signal: AbortSignal }): Promise<PromptOutcome> {
    const session = await this.scrapeSession(o);
    return this.use(session, (lease, stop) => runPrompt(o.llm, lease.page, lease.session, o.prompt, o.call, AbortSignal.any([o.signal, stop])));
  }

  /** Runs `work` in the scrape's session (opened on `url` first when there is none), as {@link prompt} does. */
  async inScrape<T extends { stuck: boolean }>(o: { scrapeId: string; keyId: string; url: string; actions?: readonly Action[]; device?: ScrapeDevice; signal: AbortSignal }, work: Work<T>): Promise<T> {
    return this.use(await this.scrapeSession(o), work);
  }

  /**
   * Opens a standalone session on a blank page (`POST /v2/browser`), closed after `idleMs` unused or `lifeMs` in all.
   * With a `profile`, the page starts from its saved cookies and storage, and (unless `saveChanges` is false) what
   * the session changed in them is saved back when it is closed.
   */
  async create(o: { keyId: string; lifeMs: number; idleMs: number; liveView: boolean; profile?: { store: ProfileStore; name: string; saveChanges: boolean }; signal: AbortSignal }): Promise<SessionInfo> {
    const id = crypto.randomUUID();
    const { prepare, end } = blankPageOpening(o.keyId, o.profile);
    // Through the basic upstream proxy when one is configured, as every fetch that is not a scrape attempt: an
    // appliance whose only way out is its proxy must still reach pages from a session.
    const proxyServer = this.proxyServerFor?.("basic", undefined);
    const times = { lifeMs: o.lifeMs, idleMs: o.idleMs, liveView: o.liveView, ...(proxyServer ? { proxyServer } : {}) };
    const s = await this.open("browser", id, o.keyId, times, prepare, o.signal, end);
    this.idleTimer(s);
    return sessionInfo(s);
  }

  /** Runs `work` in the key's standalone session `id`: 404 when there is none. */
  async inBrowser<T extends { stuck: boolean }>(id: string, keyId: string, work: Work<T>): Promise<T> {
    const s = this.sessions.get(keyOf("browser", id));
    if (!s || s.keyId !== keyId) throw new CrawlboxError("NOT_FOUND", 404, "Browser session not found (it may have closed: sessions close when unused or at the end of their time).");
    return this.use(s, work);
  }

  /** The live view tokens of the key's session, if it is open and has them. */
  liveTokensOf(kind: SessionKind, id: string, keyId: string): { view: string; control: string } | undefined {
    const s = this.sessions.get(keyOf(kind, id));
    return s && s.keyId === keyId ? s.liveTokens : undefined;
  }

  /** The key's standalone sessions, open or (`destroyed`) ended while this server ran. */
  list(keyId: string, status?: "active" | "destroyed"): SessionInfo[] {
    const active = [...this.sessions.values()].filter((s) => s.kind === "browser" && s.keyId === keyId).map((s) => sessionInfo(s));
    const ended = this.ended.filter((e) => e.keyId === keyId).map(({ keyId: _k, ...e }) => e);
    return status === "active" ? active : status === "destroyed" ? ended : [...active, ...ended];
  }

  /**
   * Closes the session: how long it was open and how much it ran; undefined when there was none. Resolves once its
   * profile is saved (a next session with the profile finds what this one left).
   */
  async close(id: string, keyId: string, kind: SessionKind = "scrape"): Promise<{ durationMs: number; runs: number } | undefined> {
    const s = this.sessions.get(keyOf(kind, id));
    if (!s || s.keyId !== keyId) {
      // Still opening: stopped now, and its waiters told why. It was a 404, and the session then opened anyway and
      // held a page nobody knew of until it idled out (5 minutes).
      const pending = this.opening.get(keyOf(kind, id));
      if (!pending || pending.keyId !== keyId) return undefined;
      pending.opening.cancel(new InteractSessionClosedWhileOpeningError());
      await pending.opening.done.catch(() => undefined);
      return { durationMs: 0, runs: 0 };
    }
    this.forget(s);
    // The whole close is tracked, its wait for a running prompt or script included: the server waits for it.
    const ending = finishSession(s, this.now);
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

  private async use<T extends { stuck: boolean }>(session: Session, work: Work<T>): Promise<T> {
    if (session.running) throw new InteractBusyError();
    clearTimeout(session.idle);
    const stop = new AbortController();
    // A crashed page (over its memory limit, say) stops the work at once; the session is lost with it (below).
    const crashed = session.lease.crashed;
    const onCrash = () => stop.abort(crashed.reason);
    crashed.addEventListener("abort", onCrash, { once: true });
    // A page over the memory limit since the guard's last tick is stopped now, not after the answer (inside the work
    // a close waits for, so that a run it stops is counted before the close bills it).
    const done = work(session.lease, stop.signal).then((outcome) => session.lease.checkMemory().then(() => outcome));
    session.running = { stop, done: done.catch(() => undefined) };
    try {
      const outcome = await done;
      if (crashed.aborted) throw crashed.reason;
      session.runs++;
      // A page that did not answer a step in time is not used again: the next prompt opens a fresh one.
      if (outcome.stuck) this.drop(session);
      return outcome;
    } catch (err) {
      // A typed error (the model's) leaves the session as it is; a crashed page, or anything else (the browser failing
      // under it), loses the session.
      if (!crashed.aborted && err instanceof CrawlboxError) throw err;
      this.drop(session);
      throw new InteractSessionLostError(crashed.aborted ? (crashed.reason as Error).message : undefined);
    } finally {
      crashed.removeEventListener("abort", onCrash);
      session.running = undefined;
      session.lastActivityAt = this.now();
      this.idleTimer(session);
    }
  }

  private idleTimer(s: Session): void {
    if (this.sessions.get(keyOf(s.kind, s.id)) !== s) return;
    clearTimeout(s.idle);
    s.idle = setTimeout(() => void this.close(s.id, s.keyId, s.kind), s.idleMs);
    s.idle.unref?.();
  }

  private forget(s: Session): void {
    this.sessions.delete(keyOf(s.kind, s.id));
    clearTimeout(s.idle);
    clearTimeout(s.life);
    s.lease.page.off("close", s.onClose);
    s.lease.crashed.removeEventListener("abort", s.onClose);
    s.unguard();
    if (s.liveTokens) this.live.unregister(s.liveTokens.view);
    if (s.kind === "browser") {
      const { liveTokens: _dead, ...info } = sessionInfo(s);
      this.ended.unshift({ ...info, status: "destroyed", endedAt: this.now(), keyId: s.keyId });
      this.ended.length = Math.min(this.ended.length, ENDED_KEPT);
    }
  }

  /** Forgets a session whose page failed, handing the page back as suspect (the pool probes the browser). */
  private drop(s: Session): void {
    if (this.sessions.get(keyOf(s.kind, s.id)) !== s) return;
    this.forget(s);
    s.lease.release({ suspect: true });
  }

  private async scrapeSession(o: { scrapeId: string; keyId: string; url: string; actions?: readonly Action[]; device?: ScrapeDevice; signal: AbortSignal }): Promise<Session> {
    const session = this.sessions.get(keyOf("scrape", o.scrapeId));
    if (session && session.keyId !== o.keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
    if (session) return session;
    await this.check(o.url);
    // Through the upstream proxy the scrape used (its mode, its country): a site that answered the scrape through it
    // may refuse the server's own address, or show another country's page.
    const proxyServer = this.proxyServerFor?.(o.device?.stealth ? "enhanced" : "basic", o.device?.location?.country);
    const times = { lifeMs: MAX_LIFE_MS, idleMs: IDLE_MS, liveView: true, ...(proxyServer ? { proxyServer } : {}) };
    return this.open("scrape", o.scrapeId, o.keyId, times, (lease, signal) => openScrapePage(lease.page, lease.session, o.url, o.actions ?? [], signal, o.device), o.signal);
  }

  /**
   * Opens the session, or joins its opening under way. `signal` is this caller's own (its time, its client): it stops
   * this caller's wait at once; `prepare` gets the opening's signal, which aborts only once every caller waiting for
   * it has given up (interact/shared-opening.ts).
   */
  private open(kind: SessionKind, id: string, keyId: string, times: SessionTimes, prepare: (lease: Lease, signal: AbortSignal) => Promise<void>, signal: AbortSignal, end?: (lease: Lease) => () => Promise<void>): Promise<Session> {
    const key = keyOf(kind, id);
    const pending = this.opening.get(key);
    if (pending) {
      if (pending.keyId !== keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
      return pending.opening.join(signal);
    }
    if (signal.aborted) throw signal.reason;
    if (this.closed) throw new ServerStoppingError("The server is stopping.");
    const openings = [...this.opening.values()];
    const mine = [...this.sessions.values()].filter((s) => s.keyId === keyId).length + openings.filter((p) => p.keyId === keyId).length;
    if (mine >= MAX_SESSIONS_PER_KEY) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `This key already has ${MAX_SESSIONS_PER_KEY} browser sessions open; stop one (DELETE /v2/scrape/{id}/interact or /v2/browser/{id}) first.`);
    if (this.sessions.size + openings.length >= this.max) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `The server already has ${this.max} browser sessions open (half its browser's concurrency); try again later.`);
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
  private async launch(kind: SessionKind, id: string, keyId: string, times: SessionTimes, prepare: (lease: Lease, signal: AbortSignal) => Promise<void>, signal: AbortSignal, end?: (lease: Lease) => () => Promise<void>): Promise<Session> {
    const { lease, unguard } = await leaseSessionPage(this.pool, this.maxPageBytes, prepare, signal, times.proxyServer);
    if (this.closed) {
      unguard();
      lease.release();
      throw new ServerStoppingError("The server is stopping.");
    }
    const openedAt = this.now();
    const session: Session = {
      ...(end ? { end: end(lease) } : {}),
      kind,
      id,
      keyId,
      lease,
      openedAt,
      lastActivityAt: openedAt,
      expiresAt: openedAt + times.lifeMs,
      idleMs: times.idleMs,
      runs: 0,
      unguard,
      life: setTimeout(() => void this.close(id, keyId, kind), times.lifeMs),
      // A page that closes (a crash, the browser retired or killed) ends its session at once, not at its next prompt.
      onClose: () => this.drop(session),
    };
    session.life.unref?.();
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
