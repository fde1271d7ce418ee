/**
 * @module engines/browser/profile
 * Moves a stored profile (storage/profiles.ts) into a fresh browser context before navigation, and reads the
 * context's state back after the scrape.
 *
 * - Cookies: set on the context (they then go only to their own sites, as in a real browser).
 * - localStorage / sessionStorage: a script registered before any page script fills the origin's storage once
 *   per tab (a marker in sessionStorage prevents a later navigation in the same scrape from undoing the page's
 *   own changes).
 * - Capture: every cookie of the context, plus both storages of the page's final origin. The storages are read in
 *   crawlbox's isolated world (page-reads.ts), through Chromium's own `Storage` (a page that redefined
 *   `Storage.prototype.getItem` in its world could otherwise hand the saved profile anything), and bounded there:
 *   at most {@link MAX_STORAGE_CHARS} characters of each storage, its origin at most {@link MAX_ORIGIN_CHARS}.
 */
import type { BrowserContext, CDPSession, CookieData, Page } from "puppeteer-core";
import type { ProfileCookie, ProfileState } from "../../storage/profiles.ts";
import { isolatedRealm } from "./page-reads.ts";

const APPLIED_MARKER = "__crawlbox_profile_applied";

/**
 * Characters (keys and values) captured of one storage of one origin. Chromium holds each to 10 MiB (about 5.2
 * million UTF-16 characters), so a page's real storage always fits; past it (a storage Chromium would not hold), the
 * entries that do not fit are left out.
 */
export const MAX_STORAGE_CHARS = 10 * 1024 * 1024;
/** Longest origin captured (a URL's scheme, host and port; DNS names stop at 253 characters). */
export const MAX_ORIGIN_CHARS = 1_024;

/** Restores `state` into a context whose page has not navigated yet. */
export async function applyProfile(context: BrowserContext, session: CDPSession, state: ProfileState): Promise<void> {
  const sends: Promise<unknown>[] = [];
  if (state.cookies.length > 0) {
    const cookies: CookieData[] = state.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      ...(c.expires !== undefined && c.expires > 0 ? { expires: c.expires } : {}),
      ...(c.httpOnly !== undefined ? { httpOnly: c.httpOnly } : {}),
      ...(c.secure !== undefined ? { secure: c.secure } : {}),
      ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    }));
    sends.push(context.setCookie(...cookies));
  }
  if (Object.keys(state.localStorage).length > 0 || Object.keys(state.sessionStorage).length > 0) {
    const source = `(() => {
  try {
    const local = ${JSON.stringify(state.localStorage)}[location.origin];
    const session = ${JSON.stringify(state.sessionStorage)}[location.origin];
    if (sessionStorage.getItem(${JSON.stringify(APPLIED_MARKER)}) !== null) return;
    if (local) for (const [k, v] of Object.entries(local)) localStorage.setItem(k, v);
    if (session) for (const [k, v] of Object.entries(session)) sessionStorage.setItem(k, v);
    sessionStorage.setItem(${JSON.stringify(APPLIED_MARKER)}, "1");
  } catch {}
})();`;
    sends.push(session.send("Page.addScriptToEvaluateOnNewDocument", { source }));
  }
  await Promise.all(sends);
}

/** Reads the context's cookies and the final page's storages into a state based on `base`. */
export async function captureProfile(context: BrowserContext, page: Page, base: ProfileState): Promise<ProfileState> {
  const cookies: ProfileCookie[] = (await context.cookies()).map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    ...(c.expires > 0 ? { expires: c.expires } : {}),
    httpOnly: c.httpOnly,
    secure: c.secure,
    ...(c.sameSite === "Strict" || c.sameSite === "Lax" || c.sameSite === "None" ? { sameSite: c.sameSite } : {}),
  }));
  const storage = await isolatedRealm(page)
    .evaluate(
      (marker: string, maxChars: number, maxOrigin: number) => {
        const dump = (s: Storage) => {
          const o: Record<string, string> = {};
          let chars = 0;
          const count = s.length;
          for (let i = 0; i < count; i++) {
            const k = s.key(i);
            if (k === null || k === marker) continue;
            const v = s.getItem(k) ?? "";
            if (chars + k.length + v.length > maxChars) continue;
            chars += k.length + v.length;
            o[k] = v;
          }
          return o;
        };
        try {
          const origin = location.origin;
          if (origin.length > maxOrigin) return undefined;
          return { origin, local: dump(localStorage), session: dump(sessionStorage) };
        } catch {
          return undefined;
        }
      },
      APPLIED_MARKER,
      MAX_STORAGE_CHARS,
      MAX_ORIGIN_CHARS,
    )
    .catch(() => undefined);
  const next: ProfileState = { cookies, localStorage: { ...base.localStorage }, sessionStorage: { ...base.sessionStorage } };
  if (storage && storage.origin && storage.origin !== "null") {
    next.localStorage[storage.origin] = storage.local;
    next.sessionStorage[storage.origin] = storage.session;
  }
  return next;
}
