/**
 * Profile storage (no browser): per key and name, three-way merge of concurrent saves, atomic rows.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.ts";
import { emptyProfile, ProfileStore, type ProfileCookie } from "../../src/storage/profiles.ts";

const dir = mkdtempSync(join(tmpdir(), "crawlbox-profiles-"));
const db = openDatabase(dir);
const store = new ProfileStore(db);
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const cookie = (name: string, value: string): ProfileCookie => ({ name, value, domain: "example.com", path: "/" });

describe("ProfileStore", () => {
  test("a missing profile is empty at version 0; profiles are per key and name", () => {
    expect(store.load("k1", "p")).toEqual({ state: emptyProfile(), version: 0 });
    store.save("k1", "p", store.load("k1", "p"), { ...emptyProfile(), cookies: [cookie("a", "1")] });
    expect(store.load("k1", "p").state.cookies).toHaveLength(1);
    expect(store.load("k2", "p").version).toBe(0);
    expect(store.load("k1", "q").version).toBe(0);
  });

  test("two writers from the same snapshot keep each other's changes (set, change, delete)", () => {
    store.save("k", "shared", store.load("k", "shared"), {
      cookies: [cookie("keep", "1"), cookie("drop", "1")],
      localStorage: { "https://a.test": { x: "1", y: "1" } },
      sessionStorage: {},
    });
    const snapA = store.load("k", "shared");
    const snapB = store.load("k", "shared");
    store.save("k", "shared", snapA, {
      cookies: [cookie("keep", "1"), cookie("drop", "1"), cookie("fromA", "a")],
      localStorage: { "https://a.test": { x: "A", y: "1" } },
      sessionStorage: {},
    });
    store.save("k", "shared", snapB, {
      cookies: [cookie("keep", "1"), cookie("fromB", "b")], // B logged out of "drop"
      localStorage: { "https://a.test": { x: "1" }, "https://b.test": { z: "B" } }, // B deleted y
      sessionStorage: {},
    });
    const { state, version } = store.load("k", "shared");
    expect(version).toBe(3);
    expect(state.cookies.map((c) => c.name).sort()).toEqual(["fromA", "fromB", "keep"]);
    expect(state.localStorage).toEqual({ "https://a.test": { x: "A" }, "https://b.test": { z: "B" } });
  });

  test("many concurrent saves leave a valid row with every writer's cookie", async () => {
    const snaps = Array.from({ length: 20 }, () => store.load("k", "burst"));
    await Promise.all(
      snaps.map(async (s, i) => store.save("k", "burst", s, { ...emptyProfile(), cookies: [cookie(`c${i}`, String(i))] })),
    );
    const { state, version } = store.load("k", "burst");
    expect(version).toBe(20);
    expect(state.cookies).toHaveLength(20);
  });
});
