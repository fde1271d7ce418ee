/**
 * A target given without an id keeps its id across updates (docs/monitor.md "A check"): a monitor keeps each page's
 * history under its target's id, so removing or reordering targets in a PATCH must not rename the targets left
 * (`target-2` becoming `target-1`), or their unchanged pages come back `new`. A new target gets an id no target had.
 */
import { describe, expect, test } from "bun:test";
import type { MonitorTarget } from "../../src/api/monitor-targets.ts";
import { carryTargetIds } from "../../src/monitor/target-ids.ts";
import { monitorTestbed, untilCheckEnds } from "../helpers/monitor-checks.ts";

// Each path answers a page of its own that never changes.
const bed = monitorTestbed((path) => `<html><body><main><p>Page ${path}.</p></main></body></html>`);
const { json } = bed;
const scrape = (path: string) => ({ type: "scrape", urls: [`${bed.base}${path}`] });

/** Runs a check now and answers it once it has ended. */
async function check(monitorId: string): Promise<any> {
  const checkId = (await json(`/v2/monitor/${monitorId}/run`, { method: "POST", json: {} })).id;
  return untilCheckEnds(() => json(`/v2/monitor/${monitorId}/checks/${checkId}`));
}

/** A check's pages as `path → [targetId, status]`. */
const byPath = (c: any) => Object.fromEntries(c.pages.map((p: any) => [new URL(p.url).pathname, [p.targetId, p.status]]));

async function patch(monitorId: string, targets: unknown[]): Promise<any> {
  const res = await bed.h.request(`/v2/monitor/${monitorId}`, { method: "PATCH", json: { targets } });
  const body = (await res.json()) as any;
  expect(res.status).toBe(200);
  return body.data;
}

describe("target ids across updates", () => {
  test("removing the first target keeps the second one's id and history: its page is same, not new", async () => {
    const m = await json("/v2/monitor", { method: "POST", json: { name: "two", schedule: { text: "daily" }, targets: [scrape("/a"), scrape("/b")] } });
    expect(m.targets.map((t: any) => t.id)).toEqual(["target-1", "target-2"]);
    expect(byPath(await check(m.id))).toEqual({ "/a": ["target-1", "new"], "/b": ["target-2", "new"] });

    const edited = await patch(m.id, [scrape("/b")]);
    const after = await check(m.id);
    expect(after.summary).toMatchObject({ totalPages: 1, same: 1, new: 0 });
    expect(byPath(after)).toEqual({ "/b": ["target-2", "same"] });
    expect(edited.targets.map((t: any) => t.id)).toEqual(["target-2"]);
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("reordered targets keep their ids; a new target at a dropped one's place is that target edited", async () => {
    const m = await json("/v2/monitor", { method: "POST", json: { name: "order", schedule: { text: "daily" }, targets: [scrape("/a"), scrape("/b")] } });
    await check(m.id);

    // C's place is 3, and target-3 is free: it takes it.
    const reordered = await patch(m.id, [scrape("/b"), scrape("/a"), scrape("/c")]);
    expect(reordered.targets.map((t: any) => t.id)).toEqual(["target-2", "target-1", "target-3"]);
    expect(byPath(await check(m.id))).toEqual({ "/b": ["target-2", "same"], "/a": ["target-1", "same"], "/c": ["target-3", "new"] });

    // D reads what no target read; its place (1) gives target-1, A's, a scrape target's, dropped now: D takes it as A
    // edited (only the pages the two share would keep their history: none, so /d is new).
    const replaced = await patch(m.id, [scrape("/d"), scrape("/b")]);
    expect(replaced.targets.map((t: any) => t.id)).toEqual(["target-1", "target-2"]);
    expect(byPath(await check(m.id))).toEqual({ "/d": ["target-1", "new"], "/b": ["target-2", "same"] });
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("an id the body gives wins over a carried one, and an id-less target may not clash with it", async () => {
    const m = await json("/v2/monitor", { method: "POST", json: { name: "given", schedule: { text: "daily" }, targets: [scrape("/a"), scrape("/b")] } });
    await check(m.id);
    // target-1 is given to C: B (first, id-less) keeps target-2 rather than clash with it; A cannot carry target-1
    // over and gets a fresh id.
    const edited = await patch(m.id, [scrape("/b"), { id: "target-1", ...scrape("/c") }, scrape("/a")]);
    expect(edited.targets.map((t: any) => t.id)).toEqual(["target-2", "target-1", "target-3"]);
    // Ids the body gives must still differ.
    const twice = await bed.h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { targets: [{ id: "x", ...scrape("/a") }, { id: "x", ...scrape("/b") }] } });
    expect(twice.status).toBe(400);
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("creating a monitor names targets by their place, as before", async () => {
    const m = await json("/v2/monitor", { method: "POST", json: { name: "create", schedule: { text: "daily" }, targets: [scrape("/a"), { id: "mine", ...scrape("/b") }, scrape("/c")] } });
    expect(m.targets.map((t: any) => t.id)).toEqual(["target-1", "mine", "target-3"]);
    const clash = await bed.h.request("/v2/monitor", { method: "POST", json: { name: "clash", schedule: { text: "daily" }, targets: [scrape("/a"), { id: "target-1", ...scrape("/b") }] } });
    expect(clash.status).toBe(400);
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });
});

describe("carryTargetIds", () => {
  const crawl = (id: string, url: string): MonitorTarget => ({ id, type: "crawl", url, crawlOptions: { limit: 10 }, scrapeOptions: {} as any });
  const search = (id: string, queries: string[]): MonitorTarget => ({ id, type: "search", queries, maxResults: 10 });
  const page = (id: string, urls: string[]): Extract<MonitorTarget, { type: "scrape" }> => ({ id, type: "scrape", urls, scrapeOptions: {} as any });

  test("crawl targets match by start URL, search targets by their queries (in any order), each only within its type", () => {
    const existing = [crawl("site", "https://a.example/"), search("news", ["kettle", "toaster"]), page("pages", ["https://a.example/"])];
    const next = [search("target-1", ["toaster", "kettle"]), page("target-2", ["https://a.example/"]), crawl("target-3", "https://a.example/")];
    expect(carryTargetIds(next, [false, false, false], existing).map((t) => t.id)).toEqual(["news", "pages", "site"]);
  });

  test("look-alikes (same URLs, other options) keep their ids in order, and an unchanged one its own wherever it moves", () => {
    const desktop = page("target-1", ["https://a.example/"]);
    const phone = { ...page("target-2", ["https://a.example/"]), scrapeOptions: { mobile: true } as any };
    const unchanged = carryTargetIds([desktop, phone], [false, false], [desktop, phone]);
    expect(unchanged.map((t) => t.id)).toEqual(["target-1", "target-2"]);
    const swapped = carryTargetIds([{ ...phone, id: "target-1" }, { ...desktop, id: "target-2" }], [false, false], [desktop, phone]);
    expect(swapped.map((t) => t.id)).toEqual(["target-2", "target-1"]);
    // The same options in another key order are the same target.
    const slow = { ...desktop, scrapeOptions: { mobile: false, waitFor: 1 } as any };
    const fast = { ...phone, scrapeOptions: { mobile: true, waitFor: 5 } as any };
    const moved = [{ ...fast, id: "target-1", scrapeOptions: { waitFor: 5, mobile: true } as any }, { ...slow, id: "target-2", scrapeOptions: { waitFor: 1, mobile: false } as any }];
    expect(carryTargetIds(moved, [false, false], [slow, fast]).map((t) => t.id)).toEqual(["target-2", "target-1"]);
    // Options changed on both: matched by URLs, in order.
    const edited = carryTargetIds([{ ...desktop, scrapeOptions: { waitFor: 5 } as any }, { ...phone, scrapeOptions: { mobile: false } as any }], [false, false], [desktop, phone]);
    expect(edited.map((t) => t.id)).toEqual(["target-1", "target-2"]);
    // A second copy of one target: a fresh id.
    expect(carryTargetIds([desktop, { ...desktop, id: "target-2" }], [false, false], [page("one", ["https://a.example/"])]).map((t) => t.id)).toEqual(["one", "target-2"]);
  });

  test("a target edited in place keeps the id of its place when the target there had its type; otherwise a fresh id, never a dropped one", () => {
    const existing = [page("target-1", ["https://a.example/"]), search("target-2", ["kettle"])];
    // More URLs at place 1: the same target, edited (its kept URL keeps its history).
    const more = carryTargetIds([page("target-1", ["https://a.example/", "https://b.example/"])], [false], existing);
    expect(more.map((t) => t.id)).toEqual(["target-1"]);
    // A scrape target at place 2, where a search target was: a new target, and not target-2 (the search's, dropped).
    const other = carryTargetIds([page("target-1", ["https://a.example/"]), page("target-2", ["https://c.example/"])], [false, false], existing);
    expect(other.map((t) => t.id)).toEqual(["target-1", "target-3"]);
  });
});
