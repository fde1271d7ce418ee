/**
 * The browser session routes as upstream's clients see them (api-v2.md §1.2, upstream's controllers/v2/browser.ts
 * and scrape-browser.ts), with real Chromium and a local site: the bodies the SDKs send (`recordSession`, interact's
 * `ttl`/`activityTtl`), `error` on a failed or stopped run, `node` as the default language, 410 for a session that
 * ended, `GET /v2/browser/{id}` and `/replay`, `?status=error`; JavaScript's `result` (never its stdout, and flagged
 * when cut); interact sessions in the list and in the 429's words; and an ended session's last activity. Then: a
 * listed interact session runs code by its id under `/v2/browser/{id}/execute` too (it was a 404 there while GET and
 * DELETE took the id), a scrape's session dropped and opened again is listed once, as it is now (it was listed twice),
 * and every browser route's 404 says the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response("<html><head><title>Plain</title></head><body><p>Plain page</p></body></html>", { headers: { "content-type": "text/html" } }),
  });
  base = `http://127.0.0.1:${site.port}`;
  // Four browser pages: two sessions at once (half), two per key, and a sandbox page beside them.
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const post = async (path: string, json: unknown, auth?: string) => {
  const res = await h.request(path, { method: "POST", json, ...(auth ? { auth } : {}) });
  return { status: res.status, body: (await res.json()) as any };
};
const get = async (path: string, auth?: string) => {
  const res = await h.request(path, auth ? { auth } : {});
  return { status: res.status, body: (await res.json()) as any };
};
const del = (path: string, auth?: string) => h.request(path, { method: "DELETE", ...(auth ? { auth } : {}) });
/** A scrape of the site by `auth`'s key: its id. */
const scrape = async (auth?: string) => (await post("/v2/scrape", { url: `${base}/plain`, formats: ["markdown"], maxAge: 0 }, auth)).body.data.metadata.scrapeId as string;

describe("bodies the SDKs send", () => {
  test("POST /v2/browser takes recordSession (and integration, origin); unknown keys are still a 400", async () => {
    const opened = await post("/v2/browser", { recordSession: true, integration: "x", origin: "js-sdk@4.0" });
    expect(opened.status).toBe(200);
    await del(`/v2/browser/${opened.body.id}`);
    expect((await post("/v2/browser", { recordSession: "yes" })).status).toBe(400);
    expect((await post("/v2/browser", { recordSessions: true })).status).toBe(400);
  }, 30_000);

  test("interact takes ttl and activityTtl (upstream's bounds): the session it opens has them", async () => {
    const id = await scrape();
    const ran = await post(`/v2/scrape/${id}/interact`, { code: "agent-browser get title", language: "bash", ttl: 45, activityTtl: 20 });
    expect(ran.body).toMatchObject({ success: true, exitCode: 0, stdout: "Plain\n" });
    const listed = (await get("/v2/browser?status=active")).body.sessions.find((s: any) => s.scrapeId === id);
    expect(Date.parse(listed.expiresAt) - Date.parse(listed.createdAt)).toBe(45_000);
    await del(`/v2/scrape/${id}/interact`);
    for (const json of [{ ttl: 10 }, { activityTtl: 5 }, { ttl: 4000 }]) expect((await post(`/v2/scrape/${id}/interact`, { code: "agent-browser get title", language: "bash", ...json })).status).toBe(400);
  }, 60_000);
});

describe("answers", () => {
  test("execute defaults to node, as upstream's (the SDK's browserExecute sends bash itself)", async () => {
    const { id } = (await post("/v2/browser", {})).body;
    try {
      expect((await post(`/v2/browser/${id}/execute`, { code: "return 1 + 1" })).body).toMatchObject({ exitCode: 0, result: "2", stderr: "" });
    } finally {
      await del(`/v2/browser/${id}`);
    }
  }, 60_000);

  test("a failed or stopped run carries `error` (its stderr, or Execution failed), a good one none", async () => {
    const { id } = (await post("/v2/browser", {})).body;
    try {
      expect((await post(`/v2/browser/${id}/execute`, { code: "return 1", language: "node" })).body.error).toBeUndefined();
      const thrown = (await post(`/v2/browser/${id}/execute`, { code: 'throw new Error("boom")', language: "node" })).body;
      expect(thrown).toMatchObject({ success: true, exitCode: 1 });
      expect(thrown.error).toBe(thrown.stderr);
      expect(thrown.error).toContain("boom");
      expect((await post(`/v2/browser/${id}/execute`, { code: "false", language: "bash" })).body).toMatchObject({ exitCode: 1, stderr: "", error: "Execution failed" });
      const stopped = (await post(`/v2/browser/${id}/execute`, { code: "sleep 10", language: "bash", timeout: 1 })).body;
      expect(stopped).toMatchObject({ killed: true, exitCode: 124, error: "Stopped after 1 s.\n" });
    } finally {
      await del(`/v2/browser/${id}`);
    }
  }, 60_000);

  test("interact's code answers carry `error` too (success stays true: the SDK reads the answer either way)", async () => {
    const id = await scrape();
    try {
      const failed = await post(`/v2/scrape/${id}/interact`, { code: "agent-browser click '#missing'", language: "bash" });
      expect(failed.body).toMatchObject({ success: true, exitCode: 1 });
      expect(failed.body.error).toStartWith("✗ ");
    } finally {
      await del(`/v2/scrape/${id}/interact`);
    }
  }, 60_000);

  test("JavaScript's result is its value only, never its stdout (after a throw, or a busy loop stopped)", async () => {
    const { id } = (await post("/v2/browser", {})).body;
    try {
      const thrown = (await post(`/v2/browser/${id}/execute`, { code: 'console.log("before"); throw new Error("x")', language: "node" })).body;
      expect([thrown.stdout, thrown.result]).toEqual(["before\n", ""]);
      const spun = (await post(`/v2/browser/${id}/execute`, { code: 'console.log("before"); while (true) {}', language: "node", timeout: 2 })).body;
      expect([spun.killed, spun.stdout, spun.result]).toEqual([true, "before\n", ""]);
      // Bash's result is its stdout, as before.
      expect((await post(`/v2/browser/${id}/execute`, { code: "echo hi", language: "bash" })).body.result).toBe("hi\n");
    } finally {
      await del(`/v2/browser/${id}`);
    }
  }, 60_000);

  test("a result cut at 1,000,000 characters is flagged resultTruncated (stdout's own flag stays unset)", async () => {
    const { id } = (await post("/v2/browser", {})).body;
    try {
      const long = (await post(`/v2/browser/${id}/execute`, { code: "return 'y'.repeat(3000000)", language: "node" })).body;
      expect([long.resultTruncated, long.truncated, long.result.length < 1_000_100]).toEqual([true, undefined, true]);
      expect((await post(`/v2/browser/${id}/execute`, { code: "return 'short'", language: "node" })).body.resultTruncated).toBeUndefined();
    } finally {
      await del(`/v2/browser/${id}`);
    }
  }, 60_000);
});

describe("a session's record and its end", () => {
  test("GET /v2/browser/{id}; /replay is a 404 saying no recording is kept; an ended session is a 410, an unknown one a 404", async () => {
    const { id } = (await post("/v2/browser", {})).body;
    const record = await get(`/v2/browser/${id}`);
    expect(record).toMatchObject({ status: 200, body: { success: true, id, status: "active", cdpUrl: "", streamWebView: true } });
    expect(record.body.liveViewUrl).toMatch(/\/v2\/live\//);
    for (const path of [`/v2/browser/${id}/replay`, `/v2/interact/${id}/replay/0`]) {
      const replay = await get(path);
      expect([replay.status, replay.body.success, replay.body.code]).toEqual([404, false, "BROWSER_REPLAY_NOT_FOUND"]);
      expect(replay.body.error).toContain("no recording is kept");
    }
    expect((await del(`/v2/browser/${id}`)).status).toBe(200);
    expect((await get(`/v2/browser/${id}`)).body).toMatchObject({ success: true, id, status: "destroyed", liveViewUrl: "", endedAt: expect.any(String) });
    const ran = await post(`/v2/browser/${id}/execute`, { code: "return 1", language: "node" });
    expect(ran).toEqual({ status: 410, body: { success: false, code: "BROWSER_SESSION_DESTROYED", error: "Browser session has been destroyed.", details: { status: "destroyed" } } });
    expect((await del(`/v2/browser/${id}`)).status).toBe(410);
    const unknown = crypto.randomUUID();
    expect((await post(`/v2/browser/${unknown}/execute`, { code: "return 1", language: "node" })).status).toBe(404);
    expect((await get(`/v2/browser/${unknown}`)).status).toBe(404);
    expect((await get(`/v2/browser/${unknown}/replay`)).body.code).toBe("NOT_FOUND");
    // Another key's session is not its to see.
    const other = h.services.keys.create("other-record").key;
    expect((await get(`/v2/browser/${id}`, other)).status).toBe(404);
    expect((await get("/v2/browser?status=error")).status).toBe(200);
    expect((await get("/v2/browser?status=gone")).status).toBe(400);
  }, 60_000);

  test("a session closed by its time while a script runs is remembered with the script's activity, not its opening time", async () => {
    const keyId = h.services.keys.verify(h.key)!.keyId;
    const s = await h.services.interact!.create({ keyId, lifeMs: 2_000, idleMs: 60_000, liveView: false, signal: new AbortController().signal });
    const ran = await post(`/v2/browser/${s.id}/execute`, { code: "sleep 20", language: "bash" });
    expect(ran.body).toMatchObject({ killed: true, stderr: "Stopped: the session was closed.\n" });
    const ended = (await get("/v2/browser?status=destroyed")).body.sessions.find((e: any) => e.id === s.id);
    expect(ended.status).toBe("destroyed");
    expect(Date.parse(ended.lastActivity) - Date.parse(ended.createdAt)).toBeGreaterThanOrEqual(1_500);
  }, 30_000);
});

describe("interact sessions count in the limits, and show", () => {
  test("GET /v2/browser lists a scrape's interact session with its scrapeId; the 429 names it; DELETE /v2/browser/{id} ends it", async () => {
    const key = h.services.keys.create("limits").key;
    const id = await scrape(key);
    expect((await post(`/v2/scrape/${id}/interact`, { code: "agent-browser get title", language: "bash" }, key)).body.exitCode).toBe(0);
    const standalone = (await post("/v2/browser", {}, key)).body.id;
    const listed = (await get("/v2/browser", key)).body.sessions;
    expect(listed).toHaveLength(2);
    expect(listed).toContainEqual(expect.objectContaining({ id, scrapeId: id, status: "active" }));
    expect(listed).toContainEqual(expect.objectContaining({ id: standalone, status: "active" }));
    const refused = await post("/v2/browser", {}, key);
    expect([refused.status, refused.body.code]).toEqual([429, "TOO_MANY_INTERACT_SESSIONS"]);
    expect(refused.body.error).toContain(`standalone ${standalone} (DELETE /v2/browser/{id})`);
    expect(refused.body.error).toContain(`interact on scrape ${id} (DELETE /v2/scrape/{id}/interact)`);
    expect((await del(`/v2/browser/${id}`, key)).status).toBe(200);
    expect(h.services.interact!.has(id, h.services.keys.verify(key)!.keyId)).toBe(false);
    expect((await get("/v2/browser?status=destroyed", key)).body.sessions).toEqual([expect.objectContaining({ id, scrapeId: id, status: "destroyed" })]);
    await del(`/v2/browser/${standalone}`, key);
  }, 60_000);
});

describe("an interact session by its id under /v2/browser", () => {
  test("execute runs code in a listed interact session (by its scrape's id), as /v2/scrape/{id}/interact does; agent-browser close ends it", async () => {
    const key = h.services.keys.create("execute-listed").key;
    const keyId = h.services.keys.verify(key)!.keyId;
    const id = await scrape(key);
    expect((await post(`/v2/scrape/${id}/interact`, { code: "agent-browser get title", language: "bash" }, key)).body.exitCode).toBe(0);
    const ran = await post(`/v2/browser/${id}/execute`, { code: "return await page.title()" }, key);
    expect(ran).toMatchObject({ status: 200, body: { success: true, exitCode: 0, result: "Plain" } });
    expect(ran.body.liveViewUrl).toMatch(/\/v2\/live\//);
    // Another key's session is not its to run.
    expect((await post(`/v2/browser/${id}/execute`, { code: "return 1" })).status).toBe(404);
    const closed = await post(`/v2/browser/${id}/execute`, { code: "agent-browser close", language: "bash" }, key);
    expect(closed.body.exitCode).toBe(0);
    expect(h.services.interact!.has(id, keyId)).toBe(false);
    const after = await post(`/v2/browser/${id}/execute`, { code: "return 1" }, key);
    expect([after.status, after.body.code]).toEqual([410, "BROWSER_SESSION_DESTROYED"]);
  }, 60_000);

  test("a scrape's session dropped with its page and opened again is listed once, as it is now", async () => {
    const key = h.services.keys.create("reopened").key;
    const id = await scrape(key);
    const stuck = await post(`/v2/scrape/${id}/interact`, { code: "agent-browser eval 'while (true) {}'", language: "bash", timeout: 2 }, key);
    expect(stuck.body.stderr).toContain("The session was closed");
    expect((await get("/v2/browser", key)).body.sessions).toEqual([expect.objectContaining({ id, status: "error" })]);
    expect((await post(`/v2/scrape/${id}/interact`, { code: "agent-browser get title", language: "bash" }, key)).body.exitCode).toBe(0);
    expect((await get("/v2/browser", key)).body.sessions).toEqual([expect.objectContaining({ id, scrapeId: id, status: "active" })]);
    expect((await get("/v2/browser?status=error", key)).body.sessions).toEqual([]);
    expect((await get(`/v2/browser/${id}`, key)).body).toMatchObject({ id, status: "active" });
    expect((await del(`/v2/browser/${id}`, key)).status).toBe(200);
    expect((await get("/v2/browser", key)).body.sessions).toEqual([expect.objectContaining({ id, status: "destroyed" })]);
  }, 60_000);

  test("every browser route's 404 says the same", async () => {
    const unknown = crypto.randomUUID();
    const answers = [await post(`/v2/browser/${unknown}/execute`, { code: "return 1" }), await get(`/v2/browser/${unknown}`), { status: 404, body: await (await del(`/v2/browser/${unknown}`)).json() }];
    expect(answers.map((a) => [a.status, (a.body as any).error])).toEqual(Array(3).fill([404, "Browser session not found."]));
  }, 30_000);
});
