/**
 * `/v2/monitor` runs and changes: a failing page keeps its last scrape, checks beyond two wait queued, json
 * targets, partial schedules and a revoked key, pausing, updating and deleting.
 * Pages come from a local mutable site (monitor-site.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { Harness } from "../helpers/harness.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import { html, useMonitorSite } from "./monitor-site.ts";

const ctx = useMonitorSite();
let h: Harness;
let app: Firecrawl;
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ h, app, base, llm } = ctx));
const { pages, settled } = ctx;

describe("/v2/monitor", () => {
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

});
