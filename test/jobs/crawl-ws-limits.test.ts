/**
 * Limits of the job WebSocket (server/routes/crawl-ws.ts): open watchers per API key and per job are capped (extras
 * close 1013 with a reason and no error message, so the SDK's watcher falls back to polling), one key's sockets do
 * not crowd out another's, a closed socket frees its place, and the sockets of one job share one poll.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { MAX_WATCHERS_PER_JOB, JobWatchers } from "../../src/server/routes/job-watchers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const PER_KEY = 3;
let h: Harness;
let apiUrl: string;
let site: ReturnType<typeof Bun.serve>;
let base: string;
/** Pages under /hold/ answer once this resolves: their crawls stay `scraping` until then. */
let release!: () => void;
let held = new Promise<void>((r) => (release = r));

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const p = new URL(req.url).pathname;
      if (p.startsWith("/hold/")) await held;
      return new Response(`<html><body><main><h1>${p}</h1><p>A page.</p></main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ maxWatchersPerKey: PER_KEY });
  apiUrl = h.listen();
});
afterAll(async () => {
  release();
  await h.close();
  site.stop(true);
});

const startCrawl = async (path: string, key = h.key) => {
  const res = await h.request("/v2/crawl", { method: "POST", json: { url: `${base}${path}`, limit: 1 }, auth: key });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
};

interface Opened {
  ws: WebSocket;
  first: Promise<{ kind: "message"; type: string } | { kind: "close"; code: number; reason: string }>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket on a job; `first` is its first message or its close, whichever comes first. */
const open = (id: string, key = h.key): Opened => {
  const ws = new WebSocket(`${apiUrl.replace("http", "ws")}/v2/crawl/${id}`, key);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })));
  const first = new Promise<any>((resolve) => {
    ws.addEventListener("message", (m) => resolve({ kind: "message", type: JSON.parse(String(m.data)).type }), { once: true });
    void closed.then((c) => resolve({ kind: "close", ...c }));
  });
  return { ws, first, closed };
};

const closeAll = async (sockets: Opened[]) => {
  for (const s of sockets) s.ws.close();
  await Promise.all(sockets.map((s) => s.closed));
};

describe("job WebSocket limits", () => {
  test("a key's watchers beyond its cap close 1013 with a reason and no error message; another key is unaffected", async () => {
    const a1 = await startCrawl("/hold/a1");
    const a2 = await startCrawl("/hold/a2");
    const admitted = [open(a1), open(a1), open(a2)];
    for (const s of admitted) expect(await s.first).toEqual({ kind: "message", type: "catchup" });

    const extra = open(a2);
    const refused = await extra.first;
    expect(refused.kind).toBe("close");
    expect(refused).toMatchObject({ code: 1013 });
    expect((refused as { reason: string }).reason).toContain(`${PER_KEY}`);

    const other = h.services.keys.create("b").key;
    const b = open(await startCrawl("/hold/b", other), other);
    expect(await b.first).toEqual({ kind: "message", type: "catchup" });

    // A closed socket frees its place.
    admitted[0]!.ws.close();
    await admitted[0]!.closed;
    const again = open(a1);
    expect(await again.first).toEqual({ kind: "message", type: "catchup" });
    await closeAll([...admitted.slice(1), again, b]);
  });

  test("the SDK's watcher refused a socket falls back to polling and still ends with the job", async () => {
    const id = await startCrawl("/hold/sdk");
    const holding = [open(id), open(id), open(id)];
    for (const s of holding) expect(await s.first).toMatchObject({ type: "catchup" });
    const watcher = new Firecrawl({ apiKey: h.key, apiUrl }).watcher(id, { kind: "crawl", pollInterval: 1 });
    let done: any;
    let error: any;
    watcher.on("done", (d: any) => (done = d));
    watcher.on("error", (e: any) => (error = e));
    const finished = watcher.start();
    await Bun.sleep(300);
    release();
    await finished;
    held = new Promise<void>((r) => (release = r));
    expect(error).toBeUndefined();
    expect(done?.status).toBe("completed");
    // The held sockets end with the job too.
    for (const s of holding) expect((await s.closed).code).toBe(1000);
  }, 20_000);
});

describe("JobWatchers", () => {
  test("one job's watchers are capped on their own; each job has one poll however many watch it", async () => {
    let statusReads = 0;
    let pageReads = 0;
    const watchers = new JobWatchers(
      {
        status: () => (statusReads++, { status: "scraping" }),
        page: () => (pageReads++, { data: [], consumed: 0, finished: 0 }),
      },
      { perKey: 100, perJob: MAX_WATCHERS_PER_JOB },
      20,
    );
    const sub = (jobId: string) => ({ keyId: "k", jobId, position: 0, send: () => {}, end: () => {} });
    const subs = [];
    for (let i = 0; i < MAX_WATCHERS_PER_JOB; i++) {
      expect(watchers.refusal("k", "j1")).toBeUndefined();
      subs.push(watchers.add(sub("j1")));
    }
    expect(watchers.refusal("k", "j1")).toContain(`${MAX_WATCHERS_PER_JOB}`);
    expect(watchers.refusal("k", "j2")).toBeUndefined();
    await Bun.sleep(210);
    // About ten ticks of one poll, not ten per socket.
    expect(statusReads).toBeGreaterThan(3);
    expect(statusReads).toBeLessThan(20);
    expect(pageReads).toBeLessThan(20);
    for (const s of subs) watchers.remove(s);
    const after = statusReads;
    await Bun.sleep(60);
    expect(statusReads).toBe(after);
    expect(watchers.refusal("k", "j1")).toBeUndefined();
  });
});
