/**
 * `/v2/monitor` (src/monitor) through the official SDK and the API: a monitor's checks find pages new, same,
 * changed (with the diff) and removed; checks are listed and read with their pages; webhooks announce each check;
 * overlapping and unaffordable checks are skipped; a scheduled tick; pausing, updating and deleting; the model's
 * judgment of a change; a check a stopped server left running; refusals. Pages come from a local mutable site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { startFakeSearxng } from "../fixtures/searxng.ts";
import { untilCheckEnds } from "../helpers/monitor-checks.ts";

let site: ReturnType<typeof Bun.serve>;
let hooks: HookReceiver;
let llm: FakeLlm;
let h: Harness;
let app: Firecrawl;
let base: string;
const pages = new Map<string, { html: string; status: number; delayMs?: number; contentType?: string }>();

const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const p = pages.get(new URL(req.url).pathname);
      if (!p) return new Response("not found", { status: 404 });
      if (p.delayMs) await Bun.sleep(p.delayMs);
      return new Response(p.html, { status: p.status, headers: { "content-type": p.contentType ?? "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  hooks = startHookReceiver();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", allowPrivateWebhooks: true });
  app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  hooks.stop();
  llm.stop();
});

/** Polls a check until it has ended (no longer queued or running). */
async function settled(monitorId: string, checkId: string, client = app): Promise<any> {
  return untilCheckEnds(() => client.getMonitorCheck(monitorId, checkId) as Promise<any>);
}

describe("/v2/monitor", () => {
  test("checks find pages new, then same and changed (with the diff), then removed; checks are listed newest first", async () => {
    pages.set("/price", { html: html("Kettle", "The kettle costs 25 EUR."), status: 200 });
    pages.set("/about", { html: html("About", "A small shop."), status: 200 });
    const webhook = { url: `http://127.0.0.1:${hooks.port}/hook`, metadata: { who: "test" } };
    const m: any = await app.createMonitor({ name: "Shop", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/price`, `${base}/about`] }], webhook });
    expect(m).toMatchObject({ name: "Shop", status: "active", schedule: { cron: "0 * * * *", text: "hourly", timezone: "UTC" }, retentionDays: 30, judgeEnabled: false, lastCheckSummary: null });
    expect(Date.parse(m.nextRunAt) - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(m.estimatedCreditsPerMonth).toBe(2 * 720);
    expect(m.targets[0]).toMatchObject({ id: "target-1", type: "scrape", urls: [`${base}/price`, `${base}/about`] });

    const first = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(first).toMatchObject({ status: "completed", trigger: "manual", summary: { totalPages: 2, new: 2, same: 0, changed: 0, removed: 0, error: 0 }, actualCredits: 2, billingStatus: "confirmed" });
    expect(first.pages.map((p: any) => [p.url, p.status])).toEqual([[`${base}/price`, "new"], [`${base}/about`, "new"]]);
    expect(first.pages.map((p: any) => [p.previousScrapeId, p.snapshot])).toEqual([[null, null], [null, null]]);

    pages.set("/price", { html: html("Kettle", "The kettle costs 29 EUR."), status: 200 });
    const second = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(second.summary).toMatchObject({ totalPages: 2, changed: 1, same: 1 });
    const changed = second.pages.find((p: any) => p.status === "changed");
    expect(changed.url).toBe(`${base}/price`);
    expect(changed.diff.text).toContain("-The kettle costs 25 EUR.");
    expect(changed.diff.text).toContain("+The kettle costs 29 EUR.");
    expect(changed.currentScrapeId).toEqual(expect.any(String));
    // Each page points at the previous check's scrape of its URL.
    expect(changed.previousScrapeId).toBe(first.pages[0].currentScrapeId);
    expect(second.pages.find((p: any) => p.status === "same").previousScrapeId).toBe(first.pages[1].currentScrapeId);
    // The page's scrape is a stored result like any other.
    expect((await h.request(`/v2/scrape/${changed.currentScrapeId}`)).status).toBe(200);

    pages.delete("/about");
    const third = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(third.summary).toMatchObject({ totalPages: 2, same: 1, removed: 1 });

    // Still gone at the next check: that is no news, so it is "same", not "removed" again.
    const fourth = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(fourth.summary).toMatchObject({ totalPages: 2, same: 2, removed: 0 });
    expect(third.pages.map((p: any) => p.previousScrapeId)).toEqual(second.pages.map((p: any) => p.currentScrapeId));

    const checks: any[] = await app.listMonitorChecks(m.id);
    expect(checks.map((c) => c.id)).toEqual([fourth.id, third.id, second.id, first.id]);
    const again: any = await app.getMonitor(m.id);
    expect(again.lastCheckSummary).toMatchObject({ same: 2, removed: 0 });
    expect(again.currentCheckId).toBeNull();

    await hooks.until((bodies) => bodies.filter((b) => b.type === "monitor.check.completed").length >= 4);
    const done = hooks.bodies.filter((b) => b.type === "monitor.check.completed");
    expect(done).toHaveLength(4);
    expect(done[3].data[0].pages).toEqual([]);
    expect(done[1].data[0]).toMatchObject({ monitorId: m.id, checkId: second.id, status: "completed", pages: [{ url: `${base}/price`, status: "changed" }] });
    expect(done[1].metadata).toEqual({ who: "test" });
    // Deleting the monitor deletes the history it kept for its pages.
    const history = () => (h.services.db.query("SELECT COUNT(*) AS n FROM change_snapshots WHERE tag LIKE ?").get(`monitor:${m.id}:%`) as { n: number }).n;
    expect(history()).toBeGreaterThan(0);
    await app.deleteMonitor(m.id);
    expect(history()).toBe(0);
  });

  test("a crawl target: its crawl is a job of its own; pages new, then changed, and a page gone from the site removed", async () => {
    const site = (links: string[]) => html("Site", links.map((l) => `<a href="${l}">${l}</a>`).join(" "));
    pages.set("/site/", { html: site(["/site/a", "/site/b"]), status: 200 });
    pages.set("/site/a", { html: html("A", "Page A, first version."), status: 200 });
    pages.set("/site/b", { html: html("B", "Page B."), status: 200 });
    const m: any = await app.createMonitor({ name: "Site", schedule: { text: "daily" }, targets: [{ type: "crawl", url: `${base}/site/`, crawlOptions: { limit: 10, sitemap: "skip" } }] });
    expect(m.targets[0]).toMatchObject({ id: "target-1", type: "crawl", url: `${base}/site/`, crawlOptions: { limit: 10, sitemap: "skip" } });
    expect(m.estimatedCreditsPerMonth).toBe(10 * 30);
    const status = (check: any) => Object.fromEntries(check.pages.map((p: any) => [new URL(p.url).pathname, p.status]));

    const first = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(status(first)).toEqual({ "/site/": "new", "/site/a": "new", "/site/b": "new" });
    const crawlId = first.targetResults[0].crawlId;
    expect(first.targetResults).toEqual([{ targetId: "target-1", type: "crawl", crawlId: expect.any(String) }]);
    expect(((await (await h.request(`/v2/crawl/${crawlId}`)).json()) as any).status).toBe("completed");

    pages.set("/site/a", { html: html("A", "Page A, second version."), status: 200 });
    pages.set("/site/", { html: site(["/site/a"]), status: 200 });
    pages.delete("/site/b");
    const second = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(status(second)).toEqual({ "/site/": "changed", "/site/a": "changed", "/site/b": "removed" });
    expect(second.pages.find((p: any) => p.url.endsWith("/site/a")).diff.text).toContain("+Page A, second version.");
    expect(second.targetResults[0].crawlId).not.toBe(crawlId);
    await app.deleteMonitor(m.id);
  }, 30_000);

  test("a search target: results it has not reported before are new, judged against the goal; the searches' credits are the check's", async () => {
    const results = [`${base}/news/1`, `${base}/news/2`];
    const searx = startFakeSearxng(() => results.map((url, i) => ({ url, title: `Kettle news ${i + 1}`, content: i === 0 ? "Kettle prices drop" : "A kettle review" })));
    const withSearch = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", searxngEndpoint: searx.url });
    try {
      llm.reset();
      llm.respond = (req) => {
        const meaningful = req.messages.some((x) => x.content.includes("prices drop"));
        return { content: JSON.stringify({ meaningful, confidence: "high", reason: meaningful ? "About prices." : "Not about prices.", meaningfulChanges: [] }) };
      };
      const client = new Firecrawl({ apiKey: withSearch.key, apiUrl: withSearch.listen() });
      const m: any = await client.createMonitor({ name: "News", schedule: { text: "hourly" }, targets: [{ type: "search", queries: ["kettle"], searchWindow: "24h", maxResults: 5 }], goal: "Kettle price changes", judgeEnabled: true });
      expect(m.estimatedCreditsPerMonth).toBe(2 * 720);
      const first = await settled(m.id, (await client.runMonitor(m.id)).id, client);
      expect(first.pages.map((p: any) => [p.url, p.status])).toEqual([[results[0], "new"], [results[1], "new"]]);
      expect(first.pages[0].judgment).toMatchObject({ meaningful: true, reason: "About prices." });
      expect(first.targetResults[0]).toMatchObject({ targetId: "target-1", type: "search", searchCompleted: true, resultCount: 2, matches: 1, resultsJudged: 2, searchCredits: 2, summary: "2 results, 2 new, 1 matching the goal." });
      expect(first.actualCredits).toBe(2);
      expect(searx.queries[0]).toBe("kettle day");

      results.push(`${base}/news/3`);
      const chatsBefore = llm.chats().length;
      const second = await settled(m.id, (await client.runMonitor(m.id)).id, client);
      expect(second.pages.map((p: any) => p.status)).toEqual(["same", "same", "new"]);
      expect(llm.chats().length - chatsBefore).toBe(1); // only the new result is judged
      await client.deleteMonitor(m.id);
    } finally {
      await withSearch.close();
      searx.stop();
    }
  });

  test("a check's pages page through with next and filter by status", async () => {
    pages.set("/a", { html: html("A", "a"), status: 200 });
    pages.set("/b", { html: html("B", "b"), status: 200 });
    pages.set("/c", { html: html("C", "c"), status: 200 });
    const m: any = await app.createMonitor({ name: "Three", schedule: { cron: "0 9 * * 1", timezone: "Europe/Berlin" }, targets: [{ type: "scrape", urls: ["/a", "/b", "/c"].map((p) => base + p) }] });
    const check = await settled(m.id, (await app.runMonitor(m.id)).id);
    const paged: any = await app.getMonitorCheck(m.id, check.id, { limit: 2, autoPaginate: true });
    expect(paged.pages.map((p: any) => p.url)).toEqual(["/a", "/b", "/c"].map((p) => base + p));
    const first = (await (await h.request(`/v2/monitor/${m.id}/checks/${check.id}?limit=2`)).json()) as any;
    expect(first.data.pages).toHaveLength(2);
    expect(new URL(first.data.next).search).toBe("?skip=2&limit=2");
    const none = (await (await h.request(`/v2/monitor/${m.id}/checks/${check.id}?status=changed`)).json()) as any;
    expect(none.data.pages).toEqual([]);
    expect((await h.request(`/v2/monitor/${m.id}/checks/${check.id}?status=odd`)).status).toBe(400);
    await app.deleteMonitor(m.id);
  });

  test("a check while another runs is skipped_overlap; one the key cannot pay for is skipped_no_credits; a tick is scheduled", async () => {
    pages.set("/slow", { html: html("Slow", "slow"), status: 200, delayMs: 800 });
    const m: any = await app.createMonitor({ name: "Slow", schedule: { text: "daily at 9:00" }, targets: [{ type: "scrape", urls: [`${base}/slow`] }] });
    const running: any = await app.runMonitor(m.id);
    expect(running.status).toBe("running");
    const overlap: any = await app.runMonitor(m.id);
    expect(overlap).toMatchObject({ status: "skipped_overlap", billingStatus: "not_applicable", error: "The previous check of this monitor was still running." });
    await settled(m.id, running.id);
    const ticked = h.services.monitors.tick(m.id, Date.parse("2026-11-23T09:00:00Z"))!;
    expect(ticked.trigger).toBe("scheduled");
    expect(await settled(m.id, ticked.id)).toMatchObject({ status: "completed", scheduledFor: "2026-11-23T09:00:00.000Z" });

    const poor = h.services.keys.create("poor", 1).key;
    const poorApp = new Firecrawl({ apiKey: poor, apiUrl: h.listen() });
    const pm: any = await poorApp.createMonitor({ name: "Poor", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/slow`, `${base}/price`] }] });
    expect(await poorApp.runMonitor(pm.id)).toMatchObject({ status: "skipped_no_credits" });
    await poorApp.deleteMonitor(pm.id);
    await app.deleteMonitor(m.id);
  });

  test("a page that fails keeps pointing at the last scrape of its URL, so the next check's page does too", async () => {
    pages.set("/flip", { html: html("Flip", "first"), status: 200 });
    const m: any = await app.createMonitor({ name: "Flip", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/flip`] }] });
    const first = await settled(m.id, (await app.runMonitor(m.id)).id);
    const firstId = first.pages[0].currentScrapeId;
    pages.set("/flip", { html: "\u0000\u0001binary", status: 200, contentType: "application/octet-stream" });
    const failed = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(failed.pages[0]).toMatchObject({ status: "error", currentScrapeId: null, previousScrapeId: firstId });
    pages.set("/flip", { html: html("Flip", "second"), status: 200 });
    const back = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(back.pages[0]).toMatchObject({ status: "changed", previousScrapeId: firstId });
    await app.deleteMonitor(m.id);
  });

  test("checks beyond the two that run at once wait queued (no startedAt), then run and complete", async () => {
    pages.set("/q", { html: html("Q", "queued"), status: 200, delayMs: 600 });
    const ms: any[] = [];
    for (const name of ["Q1", "Q2", "Q3"]) ms.push(await app.createMonitor({ name, schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/q`] }] }));
    const started: any[] = [];
    for (const m of ms) started.push(await app.runMonitor(m.id));
    expect(started.map((c) => c.status)).toEqual(["running", "running", "queued"]);
    expect(started[2].startedAt).toBeNull();
    expect(started[2].billingStatus).toBe("reserved");
    // A queued check counts as the monitor's open check: a second one is skipped.
    expect(((await app.runMonitor(ms[2].id)) as any).status).toBe("skipped_overlap");
    expect(((await app.getMonitor(ms[2].id)) as any).currentCheckId).toBe(started[2].id);
    const last = await settled(ms[2].id, started[2].id);
    expect(last).toMatchObject({ status: "completed", summary: { new: 1 } });
    expect(Date.parse(last.startedAt)).toBeGreaterThan(Date.parse(last.createdAt));
    for (const [i, m] of ms.entries()) {
      await settled(m.id, started[i].id);
      await app.deleteMonitor(m.id);
    }
  });

  test("a target whose formats ask for json: each page's snapshot is the extraction now", async () => {
    llm.reset();
    let price = 25;
    llm.respond = () => ({ content: JSON.stringify({ price }) });
    pages.set("/json", { html: html("Kettle", "The kettle costs 25 EUR."), status: 200 });
    const schema = { type: "object", properties: { price: { type: "number" } }, required: ["price"] };
    const m: any = await app.createMonitor({ name: "Json", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/json`], scrapeOptions: { formats: [{ type: "json", schema }] } }] });
    const first = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(first.pages[0]).toMatchObject({ status: "new", snapshot: { json: { price: 25 } }, previousScrapeId: null });
    price = 29;
    pages.set("/json", { html: html("Kettle", "The kettle costs 29 EUR."), status: 200 });
    const second = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(second.pages[0]).toMatchObject({ status: "changed", snapshot: { json: { price: 29 } }, previousScrapeId: first.pages[0].currentScrapeId });
    await app.deleteMonitor(m.id);
  });

  test("a partial schedule keeps the rest: a new cron keeps the zone, a new zone keeps the cron; a revoked key's monitor pauses", async () => {
    pages.set("/tz", { html: html("TZ", "tz"), status: 200 });
    const m: any = await app.createMonitor({ name: "Zones", schedule: { cron: "0 9 * * *", timezone: "Europe/Berlin" }, targets: [{ type: "scrape", urls: [`${base}/tz`] }] });
    expect(((await app.updateMonitor(m.id, { schedule: { cron: "0 10 * * *" } })) as any).schedule).toEqual({ cron: "0 10 * * *", timezone: "Europe/Berlin" });
    expect(((await app.updateMonitor(m.id, { schedule: { timezone: "Asia/Tokyo" } })) as any).schedule).toEqual({ cron: "0 10 * * *", timezone: "Asia/Tokyo" });
    await app.deleteMonitor(m.id);

    const { key } = h.services.keys.create("soon revoked");
    const mine = new Firecrawl({ apiKey: key, apiUrl: h.listen() });
    const rm: any = await mine.createMonitor({ name: "Revoked", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/tz`] }] });
    h.services.keys.revoke(h.services.keys.verify(key)!.keyId);
    expect(h.services.monitors.tick(rm.id)).toBeUndefined();
    expect(h.services.monitorStore.get(rm.id)!.status).toBe("paused");
    expect(h.services.monitors.nextRunAt(rm.id)).toBeUndefined();
  });

  test("update: pause (no next run), a new schedule and targets; delete: gone, with its checks", async () => {
    pages.set("/x", { html: html("X", "x"), status: 200 });
    const m: any = await app.createMonitor({ name: "Edit", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/x`] }] });
    const paused: any = await app.updateMonitor(m.id, { status: "paused" });
    expect(paused).toMatchObject({ status: "paused", nextRunAt: null, estimatedCreditsPerMonth: 0 });
    const edited: any = await app.updateMonitor(m.id, { status: "active", schedule: { text: "every 15 minutes" }, name: "Edited", targets: [{ type: "scrape", urls: [`${base}/x`, `${base}/price`] }] });
    expect(edited).toMatchObject({ name: "Edited", schedule: { cron: "*/15 * * * *" } });
    expect(Date.parse(edited.nextRunAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(edited.targets[0].urls).toHaveLength(2);
    const list: any[] = await app.listMonitors();
    expect(list.some((x) => x.id === m.id)).toBe(true);
    const check = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(await app.deleteMonitor(m.id)).toBe(true);
    expect((await h.request(`/v2/monitor/${m.id}`)).status).toBe(404);
    expect((await h.request(`/v2/monitor/${m.id}/checks/${check.id}`)).status).toBe(404);
    expect(h.services.db.query("SELECT COUNT(*) AS n FROM monitor_pages WHERE check_id = ?").get(check.id)).toEqual({ n: 0 });
  });

  test("judgeEnabled: the model says whether a change matters for the goal; the diff is what it is sent", async () => {
    llm.reset();
    llm.respond = (req) => {
      const sent = req.messages.map((x) => x.content).join("\n");
      const meaningful = /\+.*costs \d+ EUR/.test(sent);
      return { content: JSON.stringify({ meaningful, confidence: "high", reason: meaningful ? "The price changed." : "Nothing relevant.", meaningfulChanges: [] }) };
    };
    pages.set("/judge", { html: html("Kettle", "The kettle costs 25 EUR."), status: 200 });
    const m: any = await app.createMonitor({ name: "Judge", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/judge`] }], goal: "Tell me when the price changes", judgeEnabled: true });
    await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(llm.chats()).toHaveLength(0); // a new page has nothing to judge
    pages.set("/judge", { html: html("Kettle", "The kettle costs 30 EUR."), status: 200 });
    const check = await settled(m.id, (await app.runMonitor(m.id)).id);
    expect(check.pages[0].judgment).toMatchObject({ meaningful: true, confidence: "high", reason: "The price changed." });
    const sent = llm.chats()[0]!.messages.map((x) => x.content).join("\n");
    expect(sent).toContain("Tell me when the price changes");
    expect(sent).toMatch(/<<<PAGE_CONTENT id=\w+ \(diff of the page\)>>>[\s\S]*\+The kettle costs 30 EUR\./);
    await app.deleteMonitor(m.id);
  });

  test("a check a stopped server left running is failed at the next start, with what its pages did; other keys' monitors are not found", async () => {
    pages.set("/y", { html: html("Y", "y"), status: 200 });
    const m: any = await app.createMonitor({ name: "Left", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/y`] }], webhook: { url: hooks.url } });
    const now = Date.now();
    h.services.db
      .query("INSERT INTO monitor_checks (id, monitor_id, key_id, status, trigger, credits, summary, created_at, updated_at) VALUES ('left-check', ?, ?, 'running', 'scheduled', 0, ?, ?, ?)")
      .run(m.id, h.services.keys.verify(h.key)!.keyId, JSON.stringify({ totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 }), now, now);
    h.services.monitorStore.addPage("left-check", 0, { id: "left-page", targetId: "target-1", url: `${base}/y`, status: "changed", credits: 1, createdAt: now });
    expect(h.services.monitors.start().failed).toBe(1);
    const left: any = await app.getMonitorCheck(m.id, "left-check");
    expect(left).toMatchObject({ status: "failed", error: "The server stopped during the check.", actualCredits: 1, summary: { totalPages: 1, changed: 1 } });
    await hooks.until((bodies) => bodies.some((b) => b.id === "left-check"));
    expect(hooks.bodies.find((b) => b.id === "left-check")).toMatchObject({ type: "monitor.check.failed", success: false });
    const other = h.services.keys.create("other").key;
    expect((await h.request(`/v2/monitor/${m.id}`, { auth: other })).status).toBe(404);
    expect((await h.request(`/v2/monitor/${m.id}/run`, { method: "POST", auth: other, json: {} })).status).toBe(404);
    await app.deleteMonitor(m.id);
  });

  test("a key has at most 50 monitors: the 51st is a 429 TOO_MANY_MONITORS; deleting one makes room", async () => {
    const { key } = h.services.keys.create("many monitors");
    const create = (i: number) =>
      h.request("/v2/monitor", { method: "POST", auth: key, json: { name: `m${i}`, schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/x`] }] } });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await create(i);
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as any).data.id);
    }
    const over = await create(50);
    expect(over.status).toBe(429);
    // Every 429 says when to come back (reliability.md B6).
    expect(over.headers.get("retry-after")).toBe("5");
    expect(((await over.json()) as any).code).toBe("TOO_MANY_MONITORS");
    expect((await h.request(`/v2/monitor/${ids[0]}`, { method: "DELETE", auth: key })).status).toBe(200);
    const again = await create(51);
    expect(again.status).toBe(200);
    ids[0] = ((await again.json()) as any).data.id;
    for (const id of ids) await h.request(`/v2/monitor/${id}`, { method: "DELETE", auth: key });
  });

  test("refused with a 400 that says why: bad schedules, crawl and search targets, email notifications, a judge without a goal", async () => {
    const post = async (body: Record<string, unknown>) => {
      const res = await h.request("/v2/monitor", { method: "POST", json: { name: "n", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/x`] }], ...body } });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await post({ schedule: { text: "whenever" } })).body.error).toContain("is not understood");
    expect((await post({ schedule: { cron: "*/5 * * * * *" } })).body.error).toContain("five fields");
    expect((await post({ schedule: { cron: "0 9 * * *", timezone: "Mars/Base" } })).body.error).toContain("is not valid");
    expect((await post({ schedule: { cron: "0 9 * * *", timezone: "" } })).body.error).toContain("IANA time zone");
    expect((await post({ schedule: { cron: "*/2 * * * *" } })).body.error).toContain("more often than every 5 minutes");
    expect((await post({ schedule: { text: "every 45 minutes" } })).body.error).toContain("is not understood");
    expect((await post({ schedule: {} })).status).toBe(400);
    const big = await post({ targets: [{ type: "crawl", url: `${base}/`, crawlOptions: { limit: 500 } }] });
    expect(big.status).toBe(400);
    expect(big.body.details).toContainEqual(expect.objectContaining({ path: ["targets", 0, "crawlOptions", "limit"], message: "A monitor's crawl reads at most 100 pages." }));
    const regex = await post({ targets: [{ type: "crawl", url: `${base}/`, crawlOptions: { includePaths: ["(["] } }] });
    expect(regex.status).toBe(400);
    expect(JSON.stringify(regex.body.details)).toContain('"targets",0,"crawlOptions","includePaths"');
    expect((await post({ targets: [{ type: "crawl", url: `${base}/`, crawlOptions: { noSuchOption: 1 } }] })).status).toBe(400);
    const search = await post({ targets: [{ type: "search", queries: ["kettle"] }] });
    expect(search.status).toBe(400);
    expect(search.body.code).toBe("SEARCH_NOT_CONFIGURED"); // this server has no SearXNG
    expect((await post({ targets: [{ type: "search", queries: ["kettle"], maxResults: 500 }] })).status).toBe(400);
    expect(JSON.stringify((await post({ notification: { email: { enabled: true, recipients: ["a@b.c"] } } })).body.details)).toContain("no mail relay configured (CRAWLBOX_SMTP_URL)");
    expect((await post({ judgeEnabled: true })).status).toBe(400);
    expect((await post({ targets: [{ type: "scrape", urls: [`${base}/x`], scrapeOptions: { formats: ["screenshot"] } }] })).status).toBeLessThan(500);
    expect((await h.request("/v2/monitor?limit=0")).status).toBe(400);
    expect((await h.request("/v2/monitor/nope", { method: "PATCH", json: { name: "x" } })).status).toBe(404);
    const noLlm = await createHarness();
    try {
      const res = await noLlm.request("/v2/monitor", { method: "POST", json: { name: "n", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/x`] }], goal: "g", judgeEnabled: true } });
      expect(((await res.json()) as any).code).toBe("LLM_NOT_CONFIGURED");
    } finally {
      await noLlm.close();
    }
  });
});
