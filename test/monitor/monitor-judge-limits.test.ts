/**
 * `/v2/monitor`: the model's judgment of a change, a check a stopped server left running, the 50-monitor limit,
 * and the 400s that say why a monitor is refused.
 * Pages come from a local mutable site (monitor-site.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import type { HookReceiver } from "../fixtures/hook-receiver.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
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

  test("judgeEnabled: a change whose diff shows no hunk (a paragraph longer than the diff holds changed) is not judged: the model got an empty diff", async () => {
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ meaningful: true, confidence: "low", reason: "?", meaningfulChanges: [] }) });
    const paragraph = `The kettle ${"boils ".repeat(200_000)}`;
    pages.set("/judge-long", { html: html("Kettle", `${paragraph}at 25 EUR.`), status: 200 });
    const m: any = await app.createMonitor({ name: "Long", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/judge-long`] }], goal: "Tell me when the price changes", judgeEnabled: true });
    await settled(m.id, (await app.runMonitor(m.id)).id);
    pages.set("/judge-long", { html: html("Kettle", `${paragraph}at 30 EUR.`), status: 200 });
    const page = (await settled(m.id, (await app.runMonitor(m.id)).id)).pages[0];
    expect(page.status).toBe("changed");
    expect(page.diff.text).not.toMatch(/^@@ /m);
    expect(page.judgment).toBeNull();
    expect(llm.chats()).toHaveLength(0);
    // Its scrape's warning says why the diff is empty: the changed line alone is too long for it.
    const scrape: any = await (await h.request(`/v2/scrape/${page.currentScrapeId}`)).json();
    expect(scrape.data.warning).toContain("shows none of its");
    expect(scrape.data.warning).toContain("too long for the diff by itself");
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
