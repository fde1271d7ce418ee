/**
 * `DELETE /v2/browser/{id}` of a session opened with a `profile` to save says whether the profile was written
 * (`profileSaved`): a client that keeps a persistent profile needs to know whether its state was. Before, the answer
 * was the same whether the save happened or was given up (the close already knew which). A session without a
 * profile to save (none, or `saveChanges: false`) has no such field.
 *
 * And a page navigating on its own when its session is closed (a navigation its server never answers) no longer costs
 * the profile: Chromium holds the question crawlbox asks the page, and the profile's reads, until the navigation
 * ends, so the close took 7.5 s and gave the save up; the close now stops the page's loads (nothing of the page's is
 * left to go on after it) and saves the profile.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;
const held: Array<() => void> = [];

const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html", ...headers } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      const p = url.pathname;
      if (p === "/setcookie") return html(`<html><head><title>Set</title></head><body><p>Cookie set</p></body></html>`, { "set-cookie": `sid=${url.searchParams.get("v")}; Path=/` });
      if (p === "/showcookie") return html(`<html><head><title>Show</title></head><body><p id="c">${req.headers.get("cookie") ?? "nobody"}</p></body></html>`);
      if (p === "/never") return new Promise<Response>((resolve) => held.push(() => resolve(html("<p>late</p>"))));
      // Sets its cookie, then sends itself elsewhere, to a server that never answers.
      if (p === "/wander") return html(`<html><head><title>Wander</title></head><body><p>Wander</p><script>setTimeout(() => { location.href = "/never"; }, 200);</script></body></html>`, { "set-cookie": `sid=${url.searchParams.get("v")}; Path=/` });
      return html(`<html><head><title>Plain</title></head><body><p>Plain</p></body></html>`);
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  for (const release of held) release();
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const open = async (json: Record<string, unknown> = {}) => ((await (await h.request("/v2/browser", { method: "POST", json })).json()) as any).id as string;
const run = async (id: string, code: string) => ((await (await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code, language: "bash" } })).json()) as any);
const close = async (id: string) => {
  const res = await h.request(`/v2/browser/${id}`, { method: "DELETE" });
  return { status: res.status, body: (await res.json()) as any };
};
/** The cookie a session started from `profile` finds. */
const cookieSeenBy = async (profile: string) => {
  const id = await open({ profile: { name: profile, saveChanges: false } });
  try {
    return (await run(id, `agent-browser open ${base}/showcookie && agent-browser get text '#c'`)).stdout.trim().split("\n").at(-1);
  } finally {
    await close(id);
  }
};

describe("DELETE /v2/browser/{id} says whether the session's profile was saved", () => {
  test("a profile session: profileSaved true, and the next session finds what it changed", async () => {
    const id = await open({ profile: { name: "kept" } });
    expect(await run(id, `agent-browser open ${base}/setcookie?v=KEPT`)).toMatchObject({ exitCode: 0 });
    const closed = await close(id);
    expect(closed).toEqual({ status: 200, body: { success: true, status: "destroyed", sessionDurationMs: expect.any(Number), creditsBilled: 1, profileSaved: true } });
    expect(await cookieSeenBy("kept")).toBe("sid=KEPT");
  }, 60_000);

  test("no profile, or one not to save (saveChanges: false): no profileSaved", async () => {
    for (const json of [{}, { profile: { name: "readonly", saveChanges: false } }]) {
      const id = await open(json);
      const closed = await close(id);
      expect(closed.status).toBe(200);
      expect(closed.body).toEqual({ success: true, status: "destroyed", sessionDurationMs: expect.any(Number), creditsBilled: 0 });
    }
  }, 60_000);

  test("a page navigating on its own at the close (its server never answers): the close is prompt and the profile saved", async () => {
    const id = await open({ profile: { name: "wander" } });
    expect(await run(id, `agent-browser open ${base}/wander?v=WANDERED`)).toMatchObject({ exitCode: 0 });
    // Its own navigation to /never is under way now.
    await Bun.sleep(800);
    expect(held.length).toBeGreaterThan(0);
    const t0 = performance.now();
    const closed = await close(id);
    const tookMs = performance.now() - t0;
    expect(closed.body).toMatchObject({ success: true, status: "destroyed", profileSaved: true });
    // It was 7.5 s, the save given up.
    expect(tookMs).toBeLessThan(4_000);
    expect(await cookieSeenBy("wander")).toBe("sid=WANDERED");
  }, 60_000);

  test("attached to a scrape (existingSessionId), closed by DELETE /v2/scrape/{id}/interact: profileSaved too", async () => {
    const id = await open({ profile: { name: "attached" } });
    expect(await run(id, `agent-browser open ${base}/setcookie?v=ATTACHED`)).toMatchObject({ exitCode: 0 });
    const scrapeId = ((await (await h.request("/v2/scrape", { method: "POST", json: { url: `${base}/showcookie`, formats: ["markdown"], maxAge: 0 } })).json()) as any).data.metadata.scrapeId as string;
    const ran = await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "POST", json: { code: "agent-browser get url", language: "bash", existingSessionId: id } });
    expect(((await ran.json()) as any).stdout).toBe(`${base}/setcookie?v=ATTACHED\n`);
    const res = await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
    expect(await res.json()).toEqual({ success: true, status: "closed", sessionDurationMs: expect.any(Number), creditsBilled: 2, profileSaved: true });
    expect(await cookieSeenBy("attached")).toBe("sid=ATTACHED");
  }, 60_000);
});
