/**
 * @module interact/session-page
 * A session's page, from the browser pool to ready for the session's first prompt or script: leased within
 * {@link OPEN_TIMEOUT_MS}, held to the page limit from its first load on (interact/page-size.ts) and its navigations
 * followed (interact/page-abandon.ts), then prepared: a
 * scrape's page by replaying the scrape (interact/replay.ts, passed in by interact/sessions.ts), a standalone
 * session's by {@link blankPageOpening}, a blank page starting from its profile's cookies and storage, which are saved
 * back when the session is closed. Kept apart from the registry of sessions (interact/sessions.ts), which counts,
 * times and closes sessions: this is what is done to one page before any session holds it.
 */
import type { BrowserPool, Lease } from "../engines/browser/pool.ts";
import { CrawlboxError } from "../errors.ts";
import { InteractSessionLostError } from "./errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { applyProfile, captureProfile } from "../engines/browser/profile.ts";
import type { ProfileStore } from "../storage/profiles.ts";
import { guardSessionPage } from "./page-size.ts";
import { watchNavigation } from "./page-abandon.ts";

/** Longest opening a session may take (waiting for the browser, loading the page), within the prompt's own time. */
const OPEN_TIMEOUT_MS = 30_000;

/**
 * A standalone session's opening (`POST /v2/browser`): `prepare` brings its page to a blank page. With a `profile`
 * (`p`), the page starts from its saved cookies and storage, and (unless `saveChanges` is false) `end` saves what the
 * session changed in them back when it is closed.
 */
export function blankPageOpening(keyId: string, p?: { store: ProfileStore; name: string; saveChanges: boolean }): { prepare: (lease: Lease, signal: AbortSignal) => Promise<void>; end: ((lease: Lease) => () => Promise<void>) | undefined } {
  const snapshot = p?.store.load(keyId, p.name);
  // Set with the session, so that no close (a server stopping) can come between its opening and its saving.
  const end = p && snapshot && p.saveChanges ? (lease: Lease) => async () => void p.store.save(keyId, p.name, snapshot, await captureProfile(lease.context, lease.page, snapshot.state)) : undefined;
  const prepare = async (lease: Lease, signal: AbortSignal) => {
    try {
      if (snapshot) await raceAbort(applyProfile(lease.context, lease.session, snapshot.state), signal);
      await raceAbort(lease.page.goto("about:blank"), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new CrawlboxError("BROWSER_SESSION_OPEN_FAILED", 503, `The browser could not prepare a page for the session (${(err as Error).message.slice(0, 160)}); try again.`, { retryable: true });
    }
  };
  return { prepare, end };
}

/**
 * Leases a page for a session being opened and prepares it with `prepare`; `signal` is the opening's own (aborted
 * once nobody waits for it any more). The page is held to `maxPageBytes`, and its navigations followed, until
 * `unguard` is called; a page that fails to load, crashes or is given up on goes back to the pool here.
 * `proxyServer`: the gate listener chaining to the upstream proxy the page must go out through (a fresh context, as a
 * scrape's through a proxy gets).
 */
export async function leaseSessionPage(pool: BrowserPool, maxPageBytes: number, prepare: (lease: Lease, signal: AbortSignal) => Promise<void>, signal: AbortSignal, proxyServer?: string): Promise<{ lease: Lease; unguard: () => void }> {
  const lease = await pool.acquire({ deadline: performance.now() + OPEN_TIMEOUT_MS, signal, ...(proxyServer ? { proxyServer } : {}) });
  let unguard = () => {};
  try {
    // Held from the first load on: the opening's own page (a scrape's URL) may be past the limit by now.
    const unguardSize = await guardSessionPage(lease.page, lease.session, maxPageBytes);
    unguard = unguardSize;
    // Whether its page navigates, for what a stopped script leaves on it (interact/page-abandon.ts).
    const unwatch = await watchNavigation(lease.session);
    unguard = () => {
      unguardSize();
      unwatch();
    };
    // A page that crashes while it loads (over the memory limit, say) ends the opening at once, saying why.
    await raceAbort(prepare(lease, signal), lease.crashed);
    if (lease.crashed.aborted) throw lease.crashed.reason;
    // Nobody waits for it any more: a session opened now would hold a page that no one knows of until it idles out.
    if (signal.aborted) throw signal.reason;
  } catch (err) {
    unguard();
    // A page that failed to load is probed before reuse; one the caller gave up on is fine.
    lease.release({ suspect: !signal.aborted && !lease.crashed.aborted });
    if (signal.aborted) throw signal.reason;
    if (lease.crashed.aborted) throw new InteractSessionLostError((lease.crashed.reason as Error).message);
    throw err;
  }
  return { lease, unguard };
}
