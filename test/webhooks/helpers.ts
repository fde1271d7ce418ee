/**
 * Webhook test helpers: a local receiver (`Bun.serve({port: 0})`) that records every request with its raw body,
 * and answers from a script; a temporary migrated database; a manual clock.
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.ts";
import type { WebhookEventInput } from "../../src/webhooks/index.ts";

/** One request the receiver saw. */
export interface Received {
  path: string;
  method: string;
  headers: Headers;
  body: string;
  at: number;
}

/** How the receiver answers one request. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** Answer for the next requests, in order; when empty, `fallback` is used. */
  script: Answer[];
  fallback: Answer;
  /** Only requests to `path`. */
  to(path: string): Received[];
  stop(): void;
}

export function startReceiver(fallback: Answer = { status: 200 }): Receiver {
  const r: Omit<Receiver, "url" | "stop"> = {
    received: [],
    script: [],
    fallback,
    to: (path) => r.received.filter((x) => x.path === path),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = await req.text();
      r.received.push({ path: new URL(req.url).pathname, method: req.method, headers: req.headers, body, at: Date.now() });
      const answer = r.script.shift() ?? r.fallback;
      if (answer.delayMs) await Bun.sleep(answer.delayMs);
      return new Response("ok", { status: answer.status, headers: answer.headers });
    },
  });
  return Object.assign(r, { url: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) });
}

/** A migrated database in a fresh folder; `reopen` simulates a new process on the same file. */
export interface TempDb {
  dir: string;
  db: Database;
  reopen(): Database;
  cleanup(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-webhooks-"));
  const handles: Database[] = [];
  const open = () => {
    const db = openDatabase(dir);
    handles.push(db);
    return db;
  };
  const t: TempDb = {
    dir,
    db: open(),
    reopen() {
      t.db = open();
      return t.db;
    },
    cleanup() {
      for (const h of handles) h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/** A clock the test moves by hand; starts near real time so signatures look sane. */
export interface Clock {
  now: () => number;
  t: number;
  advance(ms: number): void;
}

export function manualClock(start = Date.now()): Clock {
  const c: Clock = {
    t: start,
    now: () => c.t,
    advance(ms) {
      c.t += ms;
    },
  };
  return c;
}

/** An event input with sensible defaults. */
export function eventInput(url: string, over: Partial<WebhookEventInput> = {}): WebhookEventInput {
  return {
    jobId: "job-1",
    keyId: "key-1",
    jobKind: "crawl",
    event: "started",
    success: true,
    data: [],
    webhook: { url, headers: {}, metadata: {}, events: [] },
    ...over,
  };
}

export const MINUTE = 60_000;
