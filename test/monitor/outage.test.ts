/**
 * A monitored page through an outage: one alert when it starts, none while it lasts, none when the page comes back as
 * it was (changeTracking stores error answers apart from the page's versions: plugins/formats/change-tracking.ts).
 * It alerted on every check of the outage (200, 503, 503, 503, 200 gave new, changed, changed, changed, same), and a
 * page that always answers 403 was `new` at every check.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type Firecrawl from "@mendable/firecrawl-js";
import type { HookReceiver } from "../fixtures/hook-receiver.ts";
import { html, useMonitorSite } from "./monitor-site.ts";

const ctx = useMonitorSite();
let app: Firecrawl;
let base: string;
let hooks: HookReceiver;
beforeAll(() => ({ app, base, hooks } = ctx));
const { pages, settled } = ctx;

/** Runs a check of `m` and answers it. */
const check = async (m: any) => settled(m.id, (await app.runMonitor(m.id)).id);

describe("monitors through an outage", () => {
  test("200, 503, 503, 503, 200: new, changed, same, same, same; one alert for the outage, none for the return", async () => {
    const shop = { html: html("Shop", "The shop sells kettles."), status: 200 };
    const down = { html: html("Maintenance", "We are down for maintenance."), status: 503 };
    pages.set("/shop", shop);
    const webhook = { url: `http://127.0.0.1:${hooks.port}/outage`, metadata: { test: "outage" } };
    const m: any = await app.createMonitor({ name: "Outage", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/shop`] }], webhook });
    const checks: any[] = [];
    for (const answer of [shop, down, down, down, shop]) {
      pages.set("/shop", answer);
      checks.push(await check(m));
    }
    expect(checks.map((c) => c.pages[0].status)).toEqual(["new", "changed", "same", "same", "same"]);
    expect(checks.map((c) => c.pages[0].statusCode)).toEqual([200, 503, 503, 503, 200]);
    expect(checks[1].pages[0].diff.text).toContain("+We are down for maintenance.");
    // What the webhook announces as news: the first sight and the outage, nothing after.
    await hooks.until((bodies) => bodies.filter((b) => b.type === "monitor.check.completed" && b.metadata?.test === "outage").length >= 5);
    const news = hooks.bodies.filter((b) => b.type === "monitor.check.completed" && b.metadata?.test === "outage").map((b) => b.data[0].pages.map((p: any) => p.status));
    expect(news).toEqual([["new"], ["changed"], [], [], []]);
    await app.deleteMonitor(m.id);
  }, 30_000);

  test("a page that always answers 403 is new once, then same; one that moves behind a 401 for good is changed once", async () => {
    pages.set("/walled", { html: html("Access denied", "Please verify you are human."), status: 403 });
    pages.set("/members", { html: html("Members", "The members' news."), status: 200 });
    const m: any = await app.createMonitor({ name: "Gates", schedule: { text: "hourly" }, targets: [{ type: "scrape", urls: [`${base}/walled`, `${base}/members`] }] });
    const statuses: string[][] = [];
    for (let i = 0; i < 4; i++) {
      if (i === 1) pages.set("/members", { html: html("Sign in", "Sign in to read the members' news."), status: 401 });
      statuses.push((await check(m)).pages.map((p: any) => p.status));
    }
    expect(statuses).toEqual([
      ["new", "new"],
      ["same", "changed"],
      ["same", "same"],
      ["same", "same"],
    ]);
    await app.deleteMonitor(m.id);
  }, 30_000);
});
