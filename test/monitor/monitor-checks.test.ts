/**
 * `/v2/monitor` (src/monitor) checks through the official SDK and the API: pages new, same, changed (with the
 * diff) and removed; crawl and search targets; checks listed and read with their pages; overlapping and unaffordable
 * checks skipped; a scheduled tick.
 * Pages come from a local mutable site (monitor-site.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import type { HookReceiver } from "../fixtures/hook-receiver.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import { startFakeSearxng } from "../fixtures/searxng.ts";
import { html, useMonitorSite } from "./monitor-site.ts";

const ctx = useMonitorSite();
let h: Harness;
let app: Firecrawl;
let base: string;
let hooks: HookReceiver;
let llm: FakeLlm;
beforeAll(() => ({ h, app, base, hooks, llm } = ctx));
const { pages, settled } = ctx;

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

});
