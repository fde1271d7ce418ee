/**
 * @module storage/profiles
 * Browser profiles (`profile: {name, saveChanges}`): cookies, localStorage and sessionStorage kept per API key
 * and profile name, so a later scrape with the same name starts logged in, with the same consent choices, etc.
 *
 * Concurrent scrapes may use one profile. Each scrape loads a snapshot, and saving applies only what that scrape
 * changed relative to its snapshot (set or deleted cookies and storage keys) to the stored state, inside one
 * `BEGIN IMMEDIATE` transaction: two writers never lose each other's changes and never leave half a state.
 *
 * Bounds: a saved state keeps at most MAX_PROFILE_STATE_BYTES, the least recently written origins' storage going
 * first (storage/profile-bounds.ts); a profile not used (loaded or saved) for `CRAWLBOX_PROFILE_RETENTION_DAYS` is
 * deleted by the server's upkeep ({@link ProfileStore.prune}). Its `updated_at` is when it was last used.
 */
import type { Database } from "bun:sqlite";
import { immediate } from "./database.ts";
import { boundProfile, recentLast } from "./profile-bounds.ts";

/** A cookie as the browser reports it (only the fields needed to restore it). */
export interface ProfileCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
}

/** Web storage per origin: `{ "https://example.com": { key: value } }`. */
export type OriginStorage = Record<string, Record<string, string>>;

/** Everything a profile holds. */
export interface ProfileState {
  cookies: ProfileCookie[];
  localStorage: OriginStorage;
  sessionStorage: OriginStorage;
}

/** A loaded profile: the state and the version it was read at. */
export interface ProfileSnapshot {
  state: ProfileState;
  version: number;
}

/**
 * How stale a profile's `updated_at` may get before a load records the use: a write per profile per day at most,
 * not per scrape, which is plenty for a retention counted in days.
 */
const USE_RECORD_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** Longest profile name; names are opaque otherwise. */
export const MAX_PROFILE_NAME = 128;

/** An empty profile. */
export function emptyProfile(): ProfileState {
  return { cookies: [], localStorage: {}, sessionStorage: {} };
}

const cookieKey = (c: ProfileCookie) => `${c.name}\u0000${c.domain}\u0000${c.path}`;

/** Applies the changes from `base` to `next` onto `current` (three-way merge). */
export function mergeProfile(current: ProfileState, base: ProfileState, next: ProfileState): ProfileState {
  const cookies = new Map(current.cookies.map((c) => [cookieKey(c), c]));
  const baseCookies = new Map(base.cookies.map((c) => [cookieKey(c), c]));
  const nextCookies = new Map(next.cookies.map((c) => [cookieKey(c), c]));
  for (const [k, c] of nextCookies) {
    const b = baseCookies.get(k);
    if (!b || JSON.stringify(b) !== JSON.stringify(c)) cookies.set(k, c);
  }
  for (const k of baseCookies.keys()) if (!nextCookies.has(k)) cookies.delete(k);
  return {
    cookies: [...cookies.values()],
    localStorage: mergeStorage(current.localStorage, base.localStorage, next.localStorage),
    sessionStorage: mergeStorage(current.sessionStorage, base.sessionStorage, next.sessionStorage),
  };
}

function mergeStorage(current: OriginStorage, base: OriginStorage, next: OriginStorage): OriginStorage {
  const out: OriginStorage = {};
  for (const [o, kv] of Object.entries(current)) out[o] = { ...kv };
  for (const origin of new Set([...Object.keys(base), ...Object.keys(next)])) {
    const b = base[origin] ?? {};
    const n = next[origin];
    if (n === undefined) continue; // this scrape did not see the origin: nothing changed there
    const target = (out[origin] ??= {});
    for (const [k, v] of Object.entries(n)) if (b[k] !== v) target[k] = v;
    for (const k of Object.keys(b)) if (!(k in n)) delete target[k];
    if (Object.keys(target).length === 0) delete out[origin];
  }
  return out;
}

/** Profiles in SQLite. */
export class ProfileStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The profile `name` of `keyId`; an empty state at version 0 when it does not exist yet. A load is a use: it keeps
   * the profile from {@link prune} (a scrape with `saveChanges: false` never saves it).
   */
  load(keyId: string, name: string): ProfileSnapshot {
    const { snapshot, usedAt } = this.read(keyId, name);
    const now = this.now();
    if (usedAt !== undefined && usedAt < now - USE_RECORD_INTERVAL_MS) {
      this.db.query("UPDATE browser_profiles SET updated_at = ? WHERE key_id = ? AND name = ? AND updated_at < ?").run(now, keyId, name, now - USE_RECORD_INTERVAL_MS);
    }
    return snapshot;
  }

  /** The stored profile and when it was last used (undefined when there is none). */
  private read(keyId: string, name: string): { snapshot: ProfileSnapshot; usedAt?: number } {
    const row = this.db
      .query<{ state: string; version: number; updated_at: number }, [string, string]>("SELECT state, version, updated_at FROM browser_profiles WHERE key_id = ? AND name = ?")
      .get(keyId, name);
    if (!row) return { snapshot: { state: emptyProfile(), version: 0 } };
    return { snapshot: { state: { ...emptyProfile(), ...(JSON.parse(row.state) as Partial<ProfileState>) }, version: row.version }, usedAt: row.updated_at };
  }

  /**
   * Saves what changed between `snapshot` (as loaded) and `next` (as the scrape left it), merged with whatever
   * other scrapes saved meanwhile, within MAX_PROFILE_STATE_BYTES (storage/profile-bounds.ts). Returns the new
   * version.
   */
  save(keyId: string, name: string, snapshot: ProfileSnapshot, next: ProfileState): number {
    return immediate(this.db, () => {
      const current = this.read(keyId, name).snapshot;
      const now = this.now();
      const merged = current.version === snapshot.version ? next : mergeProfile(current.state, snapshot.state, next);
      const { json } = boundProfile(recentLast(merged, current.state, snapshot.state, next, now));
      const version = current.version + 1;
      this.db
        .query(
          `INSERT INTO browser_profiles (key_id, name, state, version, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (key_id, name) DO UPDATE SET state = excluded.state, version = excluded.version, updated_at = excluded.updated_at`,
        )
        .run(keyId, name, json, version, now);
      return version;
    });
  }

  /** Deletes the profiles last used (loaded or saved) before `usedBeforeMs`; returns how many. */
  prune(usedBeforeMs: number): number {
    return this.db.query("DELETE FROM browser_profiles WHERE updated_at < ?").run(usedBeforeMs).changes;
  }

  /** Deletes a profile; true when it existed. */
  delete(keyId: string, name: string): boolean {
    return this.db.query("DELETE FROM browser_profiles WHERE key_id = ? AND name = ?").run(keyId, name).changes > 0;
  }
}
