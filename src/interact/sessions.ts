/**
 * @module interact/sessions
 * Interactive browser sessions (`/v2/scrape/{id}/interact`): one per scrape, opened on the scrape's page by its first
 * prompt, with the scrape's actions replayed (interact/replay.ts) so the page is as the scrape left it, and kept for
 * the next prompts (what a prompt clicked stays clicked), in a browser context of its own from the pool. A session holds one of the pool's pages, so few may be open: at most half the browser's concurrency (at
 * least one) in all and {@link MAX_SESSIONS_PER_KEY} per key, sessions being opened included. A session idle for
 * {@link IDLE_MS} or open for {@link MAX_LIFE_MS} is closed; so is one whose page closed or got stuck, and every
 * session when the server stops. One prompt at a time per session.
 */
import type { BrowserPool, Lease } from "../engines/browser/pool.ts";
import { CrawlboxError, TooManyRequestsError } from "../errors.ts";
import type { LlmCall, LlmClient } from "../llm/client.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import type { Action } from "../api/actions.ts";
import { runPrompt, type PromptOutcome } from "./driver.ts";
import { replayActions, replayTimeMs } from "./replay.ts";

/** A session closes after this long without a prompt. */
export const IDLE_MS = 5 * 60 * 1000;
/** And after this long in all. */
export const MAX_LIFE_MS = 30 * 60 * 1000;
/** Sessions one key may have open (or opening). */
export const MAX_SESSIONS_PER_KEY = 2;
/** Longest opening a session may take (waiting for the browser, loading the page), within the prompt's own time. */
const OPEN_TIMEOUT_MS = 30_000;

interface Session {
  scrapeId: string;
  keyId: string;
  lease: Lease;
  openedAt: number;
  idle?: ReturnType<typeof setTimeout>;
  life: ReturnType<typeof setTimeout>;
  busy: boolean;
  /** Prompts answered (what the session was billed). */
  prompts: number;
  /** Ends the session when its page closes (removed when the session ends: pool pages outlive sessions). */
  onClose: () => void;
}

/** 409: the session is carrying out another prompt. */
export class InteractBusyError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_BUSY", 409, "This scrape's browser session is carrying out another prompt; send the next one when it answers.");
  }
}

/** 410: the session's browser page closed or crashed under it. */
export class InteractSessionLostError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_LOST", 410, "The browser session was lost (its page or browser closed); send the prompt again to open a new one.");
  }
}

/** Open sessions by scrape id. */
export class InteractSessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being opened, by scrape id (counted in the limits; a second prompt waits for the same opening). */
  private readonly opening = new Map<string, { keyId: string; session: Promise<Session> }>();
  private readonly max: number;
  private closed = false;

  /** `check(url)`: the egress gate's check, so a session opens only on a page a scrape could fetch now. */
  constructor(
    private readonly pool: BrowserPool,
    concurrency: number,
    private readonly check: (url: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {
    this.max = Math.max(1, Math.floor(concurrency / 2));
  }

  /** Whether `keyId` has a session on `scrapeId`. */
  has(scrapeId: string, keyId: string): boolean {
    return this.sessions.get(scrapeId)?.keyId === keyId;
  }

  /**
   * Carries out `prompt` in the scrape's session, opening it on `url` first when there is none. `call()` gives each
   * model call its limits; `signal` (the prompt's time, the client leaving) stops opening and the prompt.
   */
  async prompt(o: { scrapeId: string; keyId: string; url: string; actions?: readonly Action[]; prompt: string; llm: LlmClient; call: () => LlmCall; signal: AbortSignal }): Promise<PromptOutcome> {
    let session = this.sessions.get(o.scrapeId);
    if (session && session.keyId !== o.keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
    if (!session) session = await this.open(o.scrapeId, o.keyId, o.url, o.actions ?? [], o.signal);
    if (session.busy) throw new InteractBusyError();
    session.busy = true;
    clearTimeout(session.idle);
    let outcome: PromptOutcome | undefined;
    try {
      outcome = await runPrompt(o.llm, session.lease.page, session.lease.session, o.prompt, o.call, o.signal);
      session.prompts++;
      // A page that did not answer a step in time is not used again: the next prompt opens a fresh one.
      if (outcome.stuck) this.drop(session);
      return outcome;
    } catch (err) {
      // A typed error (the model's) leaves the session as it is; anything else is the browser failing under it.
      if (err instanceof CrawlboxError) throw err;
      this.drop(session);
      throw new InteractSessionLostError();
    } finally {
      session.busy = false;
      const s = session;
      if (this.sessions.get(s.scrapeId) === s) {
        s.idle = setTimeout(() => void this.close(s.scrapeId, s.keyId), IDLE_MS);
        s.idle.unref?.();
      }
    }
  }

  /** Closes the session: how long it was open and how many prompts it answered; undefined when there was none. */
  close(scrapeId: string, keyId: string): { durationMs: number; prompts: number } | undefined {
    const s = this.sessions.get(scrapeId);
    if (!s || s.keyId !== keyId) return undefined;
    this.forget(s);
    s.lease.release();
    return { durationMs: this.now() - s.openedAt, prompts: s.prompts };
  }

  /** Closes every session and refuses new ones (the server stops). */
  closeAll(): void {
    this.closed = true;
    for (const s of [...this.sessions.values()]) this.close(s.scrapeId, s.keyId);
  }

  private forget(s: Session): void {
    this.sessions.delete(s.scrapeId);
    clearTimeout(s.idle);
    clearTimeout(s.life);
    s.lease.page.off("close", s.onClose);
  }

  /** Forgets a session whose page failed, handing the page back as suspect (the pool probes the browser). */
  private drop(s: Session): void {
    if (this.sessions.get(s.scrapeId) !== s) return;
    this.forget(s);
    s.lease.release({ suspect: true });
  }

  private open(scrapeId: string, keyId: string, url: string, actions: readonly Action[], signal: AbortSignal): Promise<Session> {
    const pending = this.opening.get(scrapeId);
    if (pending) {
      if (pending.keyId !== keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
      return pending.session;
    }
    if (this.closed) throw new CrawlboxError("SERVER_STOPPING", 503, "The server is stopping.");
    const opening = [...this.opening.values()];
    const mine = [...this.sessions.values()].filter((s) => s.keyId === keyId).length + opening.filter((p) => p.keyId === keyId).length;
    if (mine >= MAX_SESSIONS_PER_KEY) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `This key already has ${MAX_SESSIONS_PER_KEY} browser sessions open; stop one (DELETE /v2/scrape/{id}/interact) first.`);
    if (this.sessions.size + opening.length >= this.max) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `The server already has ${this.max} browser sessions open (half its browser's concurrency); try again later.`);
    const session = this.launch(scrapeId, keyId, url, actions, signal).finally(() => this.opening.delete(scrapeId));
    this.opening.set(scrapeId, { keyId, session });
    return session;
  }

  private async launch(scrapeId: string, keyId: string, url: string, actions: readonly Action[], signal: AbortSignal): Promise<Session> {
    await this.check(url);
    const deadline = performance.now() + OPEN_TIMEOUT_MS;
    const lease = await this.pool.acquire({ deadline, signal });
    try {
      await raceAbort(lease.page.goto(url, { waitUntil: "load", timeout: Math.max(1, deadline - performance.now()) }), signal);
    } catch (err) {
      lease.release({ suspect: !signal.aborted });
      if (signal.aborted) throw signal.reason;
      throw new CrawlboxError("INTERACT_OPEN_FAILED", 500, `The scrape's page could not be opened in the browser: ${(err as Error).message.slice(0, 200)}`);
    }
    try {
      // Its own time (the scrape's waits, a little per action), within the prompt's (`signal`).
      await raceAbort(replayActions(lease.page, actions, performance.now() + replayTimeMs(actions), signal), signal);
    } catch (err) {
      lease.release({ suspect: true });
      if (signal.aborted) throw signal.reason;
      throw err; // ReplayFailedError: which of the scrape's actions, and why
    }
    if (this.closed) {
      lease.release();
      throw new CrawlboxError("SERVER_STOPPING", 503, "The server is stopping.");
    }
    const session: Session = {
      scrapeId,
      keyId,
      lease,
      openedAt: this.now(),
      busy: false,
      prompts: 0,
      life: setTimeout(() => void this.close(scrapeId, keyId), MAX_LIFE_MS),
      // A page that closes (a crash, the browser retired or killed) ends its session at once, not at its next prompt.
      onClose: () => this.drop(session),
    };
    session.life.unref?.();
    lease.page.once("close", session.onClose);
    this.sessions.set(scrapeId, session);
    return session;
  }
}
