/**
 * Limits of stored browser profiles (storage/profiles.ts, storage/profile-bounds.ts): a profile's state stays within
 * MAX_PROFILE_STATE_BYTES (the least recently written origins' storage goes first, then the oldest cookies; expired
 * cookies are not kept), and profiles unused for the retention are pruned (a load counts as a use).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.ts";
import { MAX_PROFILE_STATE_BYTES } from "../../src/storage/profile-bounds.ts";
import { emptyProfile, ProfileStore, type ProfileCookie, type ProfileState } from "../../src/storage/profiles.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const dir = mkdtempSync(join(tmpdir(), "crawlbox-profile-limits-"));
const db = openDatabase(dir);
let clock = Date.UTC(2030, 0, 1);
const store = new ProfileStore(db, () => clock);
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const storedBytes = (keyId: string, name: string) =>
  (db.query("SELECT length(CAST(state AS BLOB)) AS n FROM browser_profiles WHERE key_id = ? AND name = ?").get(keyId, name) as { n: number }).n;

/** What a scrape of `origin` saves: the stored state, plus the origin's storage as the page left it (captureProfile). */
const scrapeOf = (base: ProfileState, origin: string, kv: Record<string, string>, cookies = base.cookies): ProfileState => ({
  cookies,
  localStorage: { ...base.localStorage, [origin]: kv },
  sessionStorage: { ...base.sessionStorage },
});

describe("profile size", () => {
  test("origins written one after another: the state stays under the cap, the latest origins are kept", () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const origins = Array.from({ length: 8 }, (_, i) => `https://site${i}.test`);
    for (const o of origins) {
      const snap = store.load("k", "grow");
      store.save("k", "grow", snap, scrapeOf(snap.state, o, { blob: big }, [...snap.state.cookies, { name: o, value: "1", domain: o.slice(8), path: "/" }]));
      expect(storedBytes("k", "grow")).toBeLessThanOrEqual(MAX_PROFILE_STATE_BYTES);
    }
    const { state } = store.load("k", "grow");
    const kept = Object.keys(state.localStorage);
    expect(kept.length).toBeGreaterThan(1);
    // The most recently written ones, the last of all included.
    expect(kept).toEqual(origins.slice(origins.length - kept.length));
    // Small cookies stay while storage can go instead.
    expect(state.cookies).toHaveLength(origins.length);
  });

  test("writing an old origin again makes it recent: it outlives origins written after it first", () => {
    const big = "y".repeat(2 * 1024 * 1024);
    const write = (o: string, v: string) => {
      const snap = store.load("k", "again");
      store.save("k", "again", snap, scrapeOf(snap.state, o, { blob: big + v }));
    };
    write("https://a.test", "1");
    write("https://b.test", "1");
    write("https://c.test", "1");
    write("https://a.test", "2"); // a written again
    write("https://d.test", "1");
    write("https://e.test", "1");
    const kept = Object.keys(store.load("k", "again").state.localStorage);
    expect(kept).toContain("https://a.test");
    expect(kept).not.toContain("https://b.test");
    expect(kept.at(-1)).toBe("https://e.test");
  });

  test("cookies count: past the cap the oldest go; expired cookies are not kept", () => {
    const cookie = (i: number, extra: Partial<ProfileCookie> = {}): ProfileCookie => ({ name: `c${i}`, value: "v".repeat(4000), domain: `d${i}.test`, path: "/", ...extra });
    const many = Array.from({ length: 3000 }, (_, i) => cookie(i)); // ~12 MB of cookies
    store.save("k", "cookies", store.load("k", "cookies"), { ...emptyProfile(), cookies: many });
    expect(storedBytes("k", "cookies")).toBeLessThanOrEqual(MAX_PROFILE_STATE_BYTES);
    const names = store.load("k", "cookies").state.cookies.map((c) => c.name);
    expect(names.length).toBeGreaterThan(1000);
    expect(names.at(-1)).toBe("c2999");
    expect(names).not.toContain("c0");

    const snap = store.load("k", "expiry");
    store.save("k", "expiry", snap, { ...emptyProfile(), cookies: [cookie(1, { expires: clock / 1000 + 60 }), cookie(2, { expires: clock / 1000 + 3600 }), cookie(3)] });
    clock += 120_000;
    const later = store.load("k", "expiry");
    store.save("k", "expiry", later, { ...later.state, localStorage: { "https://x.test": { k: "v" } } });
    expect(store.load("k", "expiry").state.cookies.map((c) => c.name)).toEqual(["c2", "c3"]);
  });
});

describe("profile retention", () => {
  test("profiles unused for the retention are pruned; a load keeps one alive", () => {
    const retentionMs = 30 * DAY_MS;
    for (const name of ["old", "loaded", "saved"]) store.save("r", name, store.load("r", name), { ...emptyProfile(), cookies: [{ name: "s", value: "1", domain: "a.test", path: "/" }] });
    clock += 20 * DAY_MS;
    store.load("r", "loaded"); // a scrape with saveChanges: false
    const snap = store.load("r", "saved");
    store.save("r", "saved", snap, { ...snap.state, localStorage: { "https://a.test": { k: "v" } } });
    clock += 15 * DAY_MS;
    const names = () => (db.query("SELECT name FROM browser_profiles WHERE key_id = 'r' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(names()).toEqual(["loaded", "old", "saved"]);
    expect(store.prune(clock - retentionMs)).toBeGreaterThanOrEqual(1);
    expect(names()).toEqual(["loaded", "saved"]);
    expect(store.load("r", "old").version).toBe(0);
    expect(store.load("r", "loaded").version).toBe(1);
    expect(store.load("r", "saved").version).toBe(2);
  });
});
