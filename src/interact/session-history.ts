/**
 * @module interact/session-history
 * The sessions that ended while this server ran, as `GET /v2/browser?status=destroyed|error` lists them and as the
 * routes of a standalone session that is gone answer (410 "Browser session has been destroyed.", where an id never
 * known is a 404). A session closed (DELETE, `agent-browser close`, its times, the server stopping) ended
 * `destroyed`; one dropped because its page crashed, closed under it or got stuck ended in `error`, as upstream's
 * list names a session that failed. Kept in memory, the server's last {@link ENDED_KEPT} (all keys together, newest
 * first), until it restarts. Kept apart from the registry of open sessions (interact/sessions.ts): it needs none of
 * its state.
 */
import { CrawlboxError } from "../errors.ts";
import { sessionInfo, type Session, type SessionInfo, type SessionKind } from "./session-record.ts";

/** Ended sessions remembered: the server's last ones, all keys together (in memory, newest first). */
export const ENDED_KEPT = 1_000;

/** How a session ended: closed, or dropped with its page (crashed, closed under it, stuck). */
export type EndedStatus = "destroyed" | "error";

/** 410: the standalone session existed and has ended; upstream's words. */
export class BrowserSessionDestroyedError extends CrawlboxError {
  constructor(status: EndedStatus) {
    super("BROWSER_SESSION_DESTROYED", 410, "Browser session has been destroyed.", { details: { status } });
  }
}

/** 404: a session the key never had, or one no longer remembered (every browser route answers it in these words). */
export class BrowserSessionNotFoundError extends CrawlboxError {
  constructor() {
    super("NOT_FOUND", 404, "Browser session not found.");
  }
}

interface Ended {
  kind: SessionKind;
  keyId: string;
  info: SessionInfo;
}

/** The sessions that ended while the server ran (see the module comment). */
export class SessionHistory {
  private readonly ended: Ended[] = [];

  constructor(private readonly kept = ENDED_KEPT) {}

  /** Notes that `s` ended at `endedAt`, `status` saying how. */
  record(s: Session, status: EndedStatus, endedAt: number): void {
    const { liveTokens: _dead, ...info } = sessionInfo(s);
    this.ended.unshift({ kind: s.kind, keyId: s.keyId, info: { ...info, status, endedAt } });
    this.ended.length = Math.min(this.ended.length, this.kept);
  }

  /**
   * The key's ended sessions, newest first, one per session: an interact session closed or dropped more than once (its
   * scrape's route opens it again) is its last end, and none while `open(kind, id)` says it is open again (the list
   * shows it as it is now). With `status`, only those that ended so.
   */
  list(keyId: string, open: (kind: SessionKind, id: string) => boolean, status?: EndedStatus): SessionInfo[] {
    const seen = new Set<string>();
    const out: SessionInfo[] = [];
    for (const e of this.ended) {
      if (e.keyId !== keyId) continue;
      const key = `${e.kind}:${e.info.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (open(e.kind, e.info.id) || (status !== undefined && e.info.status !== status)) continue;
      out.push(e.info);
    }
    return out;
  }

  /** The key's ended session `id` of `kind`, if it is still remembered. */
  find(kind: SessionKind, id: string, keyId: string): SessionInfo | undefined {
    return this.ended.find((e) => e.kind === kind && e.info.id === id && e.keyId === keyId)?.info;
  }
}
