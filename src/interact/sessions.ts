/**
 * @module interact/sessions
 * Interactive browser sessions (`/v2/scrape/{id}/interact`): one per scrape, opened on the scrape's page by its first
 * prompt and kept for the next ones (what a prompt clicked stays clicked), in a browser context of its own from the
 * pool. A session holds one of the pool's pages, so few may be open: at most half the browser's concurrency (at
 * least one) in all and {@link MAX_SESSIONS_PER_KEY} per key. A session idle for {@link IDLE_MS} or open for
 * {@link MAX_LIFE_MS} is closed; so is every session when the server stops. One prompt at a time per session.
 */
import type { BrowserPool, Lease } from "../engines/browser/pool.ts";
import { CrawlboxError, SITE_ERROR_STATUS, TooManyRequestsError } from "../errors.ts";
import { runPrompt, type PromptOutcome } from "./driver.ts";
import type { LlmCall, LlmClient } from "../llm/client.ts";

/** A session closes after this long without a prompt. */
export const IDLE_MS = 5 * 60 * 1000;
/** And after this long in all. */
export const MAX_LIFE_MS = 30 * 60 * 1000;
/** Sessions one key may have open. */
export const MAX_SESSIONS_PER_KEY = 2;
/** How long opening a session may wait for the browser and the page. */
const OPEN_TIMEOUT_MS = 30_000;

interface Session {
  scrapeId: string;
  keyId: string;
  lease: Lease;
  openedAt: number;
  idle?: ReturnType<typeof setTimeout>;
  life: ReturnType<typeof setTimeout>;
  busy: boolean;
  /** Prompts carried out (what the session was billed). */
  prompts: number;
}

/** 409: the session is carrying out another prompt. */
export class InteractBusyError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_BUSY", 409, "This scrape's browser session is carrying out another prompt; send the next one when it answers.");
  }
}

/** Open sessions by scrape id. */
export class InteractSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly max: number;

  constructor(
    private readonly pool: BrowserPool,
    concurrency: number,
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
   * model call its limits; `signal` stops the prompt (the session stays).
   */
  async prompt(o: { scrapeId: string; keyId: string; url: string; prompt: string; llm: LlmClient; call: () => LlmCall; signal: AbortSignal }): Promise<PromptOutcome> {
    let session = this.sessions.get(o.scrapeId);
    if (session && session.keyId !== o.keyId) throw new CrawlboxError("NOT_FOUND", 404, "Scrape not found.");
    if (!session) session = await this.open(o.scrapeId, o.keyId, o.url);
    if (session.busy) throw new InteractBusyError();
    session.busy = true;
    clearTimeout(session.idle);
    try {
      session.prompts++;
      return await runPrompt(o.llm, session.lease.page, o.prompt, o.call, o.signal);
    } catch (err) {
      // A typed error (the model's, an abort) leaves the session as it is; anything else is the browser failing
      // under it (the page or browser closed, crashed, was retired): the session is dropped, and the caller told.
      if (err instanceof CrawlboxError || o.signal.aborted) throw err;
      this.drop(session);
      throw new CrawlboxError("INTERACT_SESSION_LOST", 410, `The browser session was lost (${(err as Error).message.slice(0, 200)}); send the prompt again to open a new one.`);
    } finally {
      session.busy = false;
      const s = session;
      if (this.sessions.get(s.scrapeId) === s) {
        s.idle = setTimeout(() => void this.close(s.scrapeId, s.keyId), IDLE_MS);
        s.idle.unref?.();
      }
    }
  }

  /** Closes the session: how long it was open and how many prompts it carried out; undefined when there was none. */
  close(scrapeId: string, keyId: string): { durationMs: number; prompts: number } | undefined {
    const s = this.sessions.get(scrapeId);
    if (!s || s.keyId !== keyId) return undefined;
    this.sessions.delete(scrapeId);
    clearTimeout(s.idle);
    clearTimeout(s.life);
    s.lease.release();
    return { durationMs: this.now() - s.openedAt, prompts: s.prompts };
  }

  /** Forgets a session whose page failed, handing its page back as suspect (the pool probes the browser). */
  private drop(s: Session): void {
    if (this.sessions.get(s.scrapeId) !== s) return;
    this.sessions.delete(s.scrapeId);
    clearTimeout(s.idle);
    clearTimeout(s.life);
    s.lease.release({ suspect: true });
  }

  /** Closes every session (the server stops). */
  closeAll(): void {
    for (const s of [...this.sessions.values()]) this.close(s.scrapeId, s.keyId);
  }

  private async open(scrapeId: string, keyId: string, url: string): Promise<Session> {
    const mine = [...this.sessions.values()].filter((s) => s.keyId === keyId).length;
    if (mine >= MAX_SESSIONS_PER_KEY) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `This key already has ${MAX_SESSIONS_PER_KEY} browser sessions open; stop one (DELETE /v2/scrape/{id}/interact) first.`);
    if (this.sessions.size >= this.max) throw new TooManyRequestsError("TOO_MANY_INTERACT_SESSIONS", `The server already has ${this.max} browser sessions open (half its browser's concurrency); try again later.`);
    const lease = await this.pool.acquire({ deadline: performance.now() + OPEN_TIMEOUT_MS });
    try {
      await lease.page.goto(url, { waitUntil: "load", timeout: OPEN_TIMEOUT_MS });
    } catch (err) {
      lease.release({ suspect: true });
      throw new CrawlboxError("INTERACT_OPEN_FAILED", SITE_ERROR_STATUS, `The scrape's page could not be opened in the browser: ${(err as Error).message.slice(0, 200)}`);
    }
    // Another prompt may have opened a session for this scrape meanwhile: one session per scrape.
    const raced = this.sessions.get(scrapeId);
    if (raced) {
      lease.release();
      return raced;
    }
    const session: Session = { scrapeId, keyId, lease, openedAt: this.now(), busy: false, prompts: 0, life: setTimeout(() => void this.close(scrapeId, keyId), MAX_LIFE_MS) };
    session.life.unref?.();
    this.sessions.set(scrapeId, session);
    return session;
  }
}
