/**
 * The extract job store's fencing: a job ends once, by the process that owns it, so that its end is announced
 * (webhooks) once, whatever other process ran it too.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import type { ExtractRequest } from "../../src/api/extract.ts";
import { ExtractStore } from "../../src/extract/store.ts";
import { migrate } from "../../src/storage/database.ts";

test("finish: only the owner, only once; the caller learns whether it ended the job", () => {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  const store = new ExtractStore(db);
  const now = Date.now();
  store.create("job-1", "key-1", { urls: ["https://example.com/"], prompt: "x" } as unknown as ExtractRequest, now);
  expect(store.claim("job-1", "first", now)).toBe(1);
  expect(store.claim("job-1", "second", now)).toBe(2); // taken over (the first process looked dead)
  const end = { status: "completed" as const, data: { a: 1 }, tokens: 10, credits: 1 };
  expect(store.finish("job-1", "first", end, now)).toBe(false); // no longer its job: it must not announce
  expect(store.finish("job-1", "second", end, now)).toBe(true);
  expect(store.finish("job-1", "second", { ...end, status: "failed", error: "late" }, now)).toBe(false);
  expect(store.get("job-1", now)).toMatchObject({ status: "completed" });
});

test("releaseOwned: gives back the attempt of the owner's processing jobs only, clears the owner; a crash keeps it counted", () => {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  const store = new ExtractStore(db);
  const now = Date.now();
  const req = { urls: ["https://example.com/"], prompt: "x" } as unknown as ExtractRequest;
  for (const id of ["mine", "theirs", "done"]) store.create(id, "key-1", req, now);
  expect(store.claim("mine", "me", now)).toBe(1);
  expect(store.claim("theirs", "other", now)).toBe(1);
  expect(store.claim("done", "me", now)).toBe(1);
  store.finish("done", "me", { status: "completed", data: {}, tokens: 0, credits: 0 }, now);
  expect(store.releaseOwned("me", now)).toBe(1);
  const row = (id: string) => db.query("SELECT attempts, owner FROM extract_jobs WHERE id = ?").get(id);
  expect(row("mine")).toEqual({ attempts: 0, owner: null });
  expect(row("theirs")).toEqual({ attempts: 1, owner: "other" });
  expect(row("done")).toEqual({ attempts: 1, owner: "me" });
  // Resumed after the graceful stop: its first attempt again. A process that dies releases nothing: the next claim counts on.
  expect(store.claim("mine", "next", now)).toBe(1);
  expect(store.claim("mine", "after-a-crash", now)).toBe(2);
});
