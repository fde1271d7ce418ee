/**
 * @module storage/profile-bounds
 * Keeps a browser profile's stored state bounded. Every scrape with a profile loads the whole state and, saving,
 * rewrites it in one write transaction; a profile that gathered the storage of every origin it visited reached 70 MB
 * (2 MB of localStorage × 39 origins), and each scrape with it then took 7–9.5 s instead of 0.35 s. So a saved
 * state holds at most {@link MAX_PROFILE_STATE_BYTES} of JSON. Past it, what was written least recently goes first:
 *
 * 1. the storage (local and session) of the origins written least recently, this save's own origins last;
 * 2. then the oldest cookies, this save's new or changed ones last.
 *
 * Recency is the order of the stored JSON (what a save wrote moves to the end: {@link recentLast}), so nothing
 * besides the state is stored. Expired cookies are dropped at every save (a browser would not send them).
 */
import type { OriginStorage, ProfileCookie, ProfileState } from "./profiles.ts";

/**
 * Largest state a profile keeps (bytes of its JSON). Room for a few heavy sites (Chromium holds up to 10 MiB of
 * storage per origin, rarely used) and thousands of cookies; small enough that loading and rewriting it stays
 * well under a second.
 */
export const MAX_PROFILE_STATE_BYTES = 8 * 1024 * 1024;

const cookieKey = (c: ProfileCookie) => `${c.name}\u0000${c.domain}\u0000${c.path}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The origins whose storage `next` changed from `base`. */
function written(base: OriginStorage, next: OriginStorage): Set<string> {
  const out = new Set<string>();
  for (const [o, kv] of Object.entries(next)) if (!same(base[o], kv)) out.add(o);
  return out;
}

/** `storage` with the origins in `recent` moved to the end (in their order), the others in their order. */
function withLast(storage: OriginStorage, recent: Set<string>): OriginStorage {
  const out: OriginStorage = {};
  for (const [o, kv] of Object.entries(storage)) if (!recent.has(o)) out[o] = kv;
  for (const [o, kv] of Object.entries(storage)) if (recent.has(o)) out[o] = kv;
  return out;
}

/**
 * `merged` (what a save stores) in recency order: cookies and origins this save wrote (changed from `base`, its
 * snapshot, in `next`, what the scrape left) last; the rest in `stored`'s order (the stored state before the save),
 * since a scrape's own list comes in the browser's order. Cookies expired at `nowMs` are left out.
 */
export function recentLast(merged: ProfileState, stored: ProfileState, base: ProfileState, next: ProfileState, nowMs: number): ProfileState {
  const baseCookies = new Map(base.cookies.map((c) => [cookieKey(c), c]));
  const writtenCookies = new Set(next.cookies.filter((c) => !same(baseCookies.get(cookieKey(c)), c)).map(cookieKey));
  const rank = new Map(stored.cookies.map((c, i) => [cookieKey(c), i]));
  const live = merged.cookies.filter((c) => c.expires === undefined || c.expires <= 0 || c.expires * 1000 > nowMs);
  const older = live.filter((c) => !writtenCookies.has(cookieKey(c)) && rank.has(cookieKey(c)));
  older.sort((a, b) => rank.get(cookieKey(a))! - rank.get(cookieKey(b))!);
  const newer = live.filter((c) => writtenCookies.has(cookieKey(c)) || !rank.has(cookieKey(c)));
  const storedOrder = (s: OriginStorage, order: OriginStorage): OriginStorage => {
    const out: OriginStorage = {};
    for (const o of Object.keys(order)) if (o in s) out[o] = s[o]!;
    for (const [o, kv] of Object.entries(s)) if (!(o in out)) out[o] = kv;
    return out;
  };
  return {
    cookies: [...older, ...newer],
    localStorage: withLast(storedOrder(merged.localStorage, stored.localStorage), written(base.localStorage, next.localStorage)),
    sessionStorage: withLast(storedOrder(merged.sessionStorage, stored.sessionStorage), written(base.sessionStorage, next.sessionStorage)),
  };
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/**
 * `state` (in recency order, {@link recentLast}) within `maxBytes` of JSON, with its JSON: whole origins' storage
 * dropped oldest first, then the oldest cookies.
 */
export function boundProfile(state: ProfileState, maxBytes = MAX_PROFILE_STATE_BYTES): { state: ProfileState; json: string } {
  let json = JSON.stringify(state);
  let total = Buffer.byteLength(json);
  if (total <= maxBytes) return { state, json };
  const local = { ...state.localStorage };
  const session = { ...state.sessionStorage };
  // Each origin's two storages go together, in the localStorage order, then origins with sessionStorage only.
  const origins = [...new Set([...Object.keys(local), ...Object.keys(session)])];
  for (const o of origins) {
    if (total <= maxBytes) break;
    for (const s of [local, session]) {
      if (!(o in s)) continue;
      // The entry as it sits in its object: `"origin":{…}` and a comma (an upper bound for the last one).
      total -= bytes(o) + bytes(s[o]) + 2;
      delete s[o];
    }
  }
  const cookies = [...state.cookies];
  let first = 0;
  while (total > maxBytes && first < cookies.length) total -= bytes(cookies[first++]) + 1;
  const bounded: ProfileState = { cookies: cookies.slice(first), localStorage: local, sessionStorage: session };
  json = JSON.stringify(bounded);
  // The sizes above may be off by a separator or two: once more if that left it just over.
  const left = cookies.length - first + Object.keys(local).length + Object.keys(session).length;
  return Buffer.byteLength(json) > maxBytes && left > 0 ? boundProfile(bounded, maxBytes) : { state: bounded, json };
}
