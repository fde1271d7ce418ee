/**
 * `existingSessionId` on `POST /v2/scrape/{id}/interact`, as upstream's route takes it: when the scrape has no
 * session, the key's open standalone session (`POST /v2/browser`) becomes the scrape's, as it is (nothing replayed),
 * and the scrape's requests run in it until it ends or `DELETE /v2/scrape/{id}/interact` ends it. An id that is not
 * the key's open session is passed over (a session opens on the scrape's page, as upstream's), and a scrape's own
 * open session comes first. Before, the field was refused with a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;

const page = (title: string) => new Response(`<html><head><title>${title}</title></head><body><p>${title}</p></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => page(new URL(req.url).pathname === "/shop" ? "Shop" : "Elsewhere") });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const scrape = async (origin = base) => (await json(await h.request("/v2/scrape", { method: "POST", json: { url: `${origin}/shop`, formats: ["markdown"], maxAge: 0 } }))).body.data.metadata.scrapeId as string;
const openBrowser = async (auth?: string) => (await json(await h.request("/v2/browser", { method: "POST", json: {}, ...(auth ? { auth } : {}) }))).body.id as string;
const interact = (scrapeId: string, code: string, extra: Record<string, unknown> = {}) => h.request(`/v2/scrape/${scrapeId}/interact`, { method: "POST", json: { code, language: "bash", ...extra } }).then(json);
const active = async () => (await json(await h.request("/v2/browser?status=active"))).body.sessions as any[];

describe("existingSessionId", () => {
  test("the key's open standalone session becomes the scrape's: the scrape's requests run in it, as it is, until DELETE ends it", async () => {
    const sid = await openBrowser();
    expect((await json(await h.request(`/v2/browser/${sid}/execute`, { method: "POST", json: { code: `agent-browser open ${base}/elsewhere`, language: "bash" } }))).body).toMatchObject({ exitCode: 0 });
    const scrapeId = await scrape();
    const first = await interact(scrapeId, "agent-browser get url", { existingSessionId: sid });
    expect(first.status).toBe(200);
    // Run in the standalone session, on the page it was left on: no session opened on the scrape's page.
    expect(first.body).toMatchObject({ success: true, exitCode: 0, stdout: `${base}/elsewhere\n`, liveViewUrl: expect.any(String) });
    expect(await active()).toEqual([expect.objectContaining({ id: sid, status: "active", scrapeId })]);
    // Later requests on the scrape find it without the field.
    expect((await interact(scrapeId, "agent-browser get title")).body).toMatchObject({ exitCode: 0, stdout: "Elsewhere\n" });
    // The scrape's route ends it; it is the standalone session that ended.
    expect((await json(await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" }))).body).toMatchObject({ success: true, status: "closed", creditsBilled: 3 });
    expect((await json(await h.request(`/v2/browser/${sid}`))).body).toMatchObject({ id: sid, status: "destroyed", scrapeId });
    // The next request opens a session of the scrape's own, on its page.
    expect((await interact(scrapeId, "agent-browser get url")).body).toMatchObject({ exitCode: 0, stdout: `${base}/shop\n` });
    await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
  }, 60_000);

  test("an id that is not the key's open session is passed over: a session opens on the scrape's page", async () => {
    const other = h.services.keys.create("other").key;
    const theirs = await openBrowser(other);
    const ended = await openBrowser();
    await h.request(`/v2/browser/${ended}`, { method: "DELETE" });
    for (const existingSessionId of [theirs, ended, "no-such-session"]) {
      const scrapeId = await scrape();
      const ran = await interact(scrapeId, "agent-browser get url", { existingSessionId });
      expect(ran).toMatchObject({ status: 200, body: { exitCode: 0, stdout: `${base}/shop\n` } });
      await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
    }
    // The other key's session was not touched.
    expect((await json(await h.request(`/v2/browser/${theirs}`, { auth: other }))).body).toMatchObject({ status: "active" });
    expect((await json(await h.request(`/v2/browser/${theirs}`, { auth: other }))).body.scrapeId).toBeUndefined();
    await h.request(`/v2/browser/${theirs}`, { method: "DELETE", auth: other });
  }, 60_000);

  test("the scrape's own open session comes first", async () => {
    const scrapeId = await scrape();
    expect((await interact(scrapeId, `agent-browser get title`)).body).toMatchObject({ exitCode: 0, stdout: "Shop\n" });
    const sid = await openBrowser();
    try {
      const ran = await interact(scrapeId, "agent-browser get url", { existingSessionId: sid });
      expect(ran.body).toMatchObject({ exitCode: 0, stdout: `${base}/shop\n` });
      expect((await active()).find((s) => s.id === sid)?.scrapeId).toBeUndefined();
    } finally {
      await h.request(`/v2/browser/${sid}`, { method: "DELETE" });
      await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
    }
  }, 60_000);

  test("a request naming it while the scrape's own session is being asked for: one session for the scrape, whatever the order", async () => {
    for (const delayMs of [0, 0.2, 0.5, 1, 3]) {
      const sid = await openBrowser();
      // Through a name: the egress check of the opening looks it up, the time the second request came in during.
      const scrapeId = await scrape(`http://localhost:${site.port}`);
      const a = interact(scrapeId, "agent-browser get url");
      await Bun.sleep(delayMs);
      const b = interact(scrapeId, "agent-browser get url", { existingSessionId: sid });
      const [ra, rb] = await Promise.all([a, b]);
      const ran = [ra, rb].filter((r) => r.status === 200);
      expect(ran.length).toBeGreaterThan(0);
      // Every request that ran ran in the same page, and the scrape has one session: the attached one or its own.
      expect(new Set(ran.map((r) => r.body.stdout)).size).toBe(1);
      expect((await active()).filter((s) => s.scrapeId === scrapeId).length).toBe(1);
      await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
      await h.request(`/v2/browser/${sid}`, { method: "DELETE" });
    }
  }, 90_000);

  test("a busy session is not attached: 409, and the scrape is left as it was", async () => {
    const sid = await openBrowser();
    const scrapeId = await scrape();
    try {
      const busy = h.request(`/v2/browser/${sid}/execute`, { method: "POST", json: { code: "agent-browser wait 2000", language: "bash" } });
      await Bun.sleep(500);
      const refused = await interact(scrapeId, "agent-browser get url", { existingSessionId: sid });
      expect(refused).toMatchObject({ status: 409, body: { code: "INTERACT_SESSION_BUSY" } });
      await busy;
      expect((await json(await h.request(`/v2/browser/${sid}`))).body.scrapeId).toBeUndefined();
      // The scrape has no session: its next request opens one on its page.
      expect((await interact(scrapeId, "agent-browser get url")).body).toMatchObject({ exitCode: 0, stdout: `${base}/shop\n` });
    } finally {
      await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
      await h.request(`/v2/browser/${sid}`, { method: "DELETE" });
    }
  }, 60_000);

  test("not a string, or empty: a 400", async () => {
    const scrapeId = await scrape();
    for (const existingSessionId of [5, ""]) expect((await interact(scrapeId, "agent-browser get url", { existingSessionId })).status).toBe(400);
  }, 30_000);
});
