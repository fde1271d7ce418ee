/**
 * What the enhanced mode costs (docs/credits.md: +4, 5 in all) when the cache and quotas are involved: a basic
 * request served a copy that another key's enhanced request cached is billed the basic price (and fits a quota of
 * less than 5), and an explicit enhanced request on a key with fewer than 5 credits left is refused before the page
 * is fetched, not after a browser rendered it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, htmlPage } from "./helpers.ts";

let site: FixtureServer;
let h: Harness;

beforeAll(async () => {
  site = startCountingServer(() => htmlPage("<main><h1>Kettles</h1><p>The blue kettle holds 1.7 litres of water.</p></main>"));
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  await site.stop();
});

async function scrapeAs(key: string, body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", auth: key, json: body });
  return { status: res.status, body: (await res.json()) as any };
}

const remaining = async (key: string) => ((await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any).data.remainingCredits as number;

describe("the enhanced mode's credits", () => {
  test("a basic request served another key's enhanced copy from the cache pays the basic price", async () => {
    const rich = h.services.keys.create("rich").key;
    const enhanced = await scrapeAs(rich, { url: `${site.url}/shared`, proxy: "enhanced" });
    expect([enhanced.status, enhanced.body.data.metadata.proxyUsed, enhanced.body.data.metadata.creditsUsed]).toEqual([200, "stealth", 5]);

    // Four credits: enough for a basic scrape, not for the enhanced price.
    const poor = h.services.keys.create("poor", 4).key;
    const basic = await scrapeAs(poor, { url: `${site.url}/shared`, proxy: "basic" });
    expect(basic.status).toBe(200);
    expect(basic.body.data.metadata.cacheState).toBe("hit");
    expect(basic.body.data.markdown).toContain("blue kettle");
    expect(basic.body.data.metadata.creditsUsed).toBe(1);
    expect(await remaining(poor)).toBe(3);
  });

  test("an enhanced request is refused with 402 before anything is fetched when fewer than 5 credits are left", async () => {
    const key = h.services.keys.create("three", 3).key;
    const hits = site.hits;
    const r = await scrapeAs(key, { url: `${site.url}/fresh`, proxy: "enhanced", maxAge: 0 });
    expect([r.status, r.body.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(site.hits).toBe(hits);
    expect(await remaining(key)).toBe(3);
    // A basic scrape of the same page still fits.
    const basic = await scrapeAs(key, { url: `${site.url}/fresh`, maxAge: 0 });
    expect([basic.status, basic.body.data.metadata.creditsUsed]).toEqual([200, 1]);
  });
});
