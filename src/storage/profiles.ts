/**
 * @module storage/profiles
 * Browser profiles (`profile: {name, saveChanges}`): cookies, localStorage and sessionStorage kept per API key
 * and profile name, so a later scrape with the same name starts logged in, with the same consent choices, etc.
 *
 * Concurrent scrapes may use one profile. Each scrape loads a snapshot, and saving applies only what that scrape
 * changed relative to its snapshot (set or deleted cookies and storage keys) to the stored state, inside one
 * `BEGIN IMMEDIATE` transaction: two writers never lose each other's changes and never leave half a state.
 */
import type { Database } from "bun:sqlite";
import { immediate } from "./database.ts";

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

  /** The profile `name` of `keyId`; an empty state at version 0 when it does not exist yet. */
  load(keyId: string, name: string): ProfileSnapshot {
    const row = this.db
      .query<{ state: string; version: number }, [string, string]>("SELECT state, version FROM browser_profiles WHERE key_id = ? AND name = ?")
      .get(keyId, name);
    if (!row) return { state: emptyProfile(), version: 0 };
    return { state: { ...emptyProfile(), ...(JSON.parse(row.state) as Partial<ProfileState>) }, version: row.version };
  }

  /**
   * Saves what changed between `snapshot` (as loaded) and `next` (as the scrape left it), merged with whatever
   * other scrapes saved meanwhile. Returns the new version.
   */
  save(keyId: string, name: string, snapshot: ProfileSnapshot, next: ProfileState): number {
    return immediate(this.db, () => {
      const current = this.load(keyId, name);
      const merged = current.version === snapshot.version ? next : mergeProfile(current.state, snapshot.state, next);
      const version = current.version + 1;
      this.db
        .query(
          `INSERT INTO browser_profiles (key_id, name, state, version, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (key_id, name) DO UPDATE SET state = excluded.state, version = excluded.version, updated_at = excluded.updated_at`,
        )
        .run(keyId, name, JSON.stringify(merged), version, this.now());
      return version;
    });
  }

  /** Deletes a profile; true when it existed. */
  delete(keyId: string, name: string): boolean {
    return this.db.query("DELETE FROM browser_profiles WHERE key_id = ? AND name = ?").run(keyId, name).changes > 0;
  }
}
