/**
 * A monitored page's `previousScrapeId` names the scrape its changeTracking compared with, the one its
 * `previousScrapeAt` dates (GET /v2/scrape/{currentScrapeId}): both null at a first sight, the same earlier check
 * otherwise. After an error answer (503) the page's return is compared with the last good version, two checks back:
 * `previousScrapeId` named the 503 in between, while `previousScrapeAt` dated the good version.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type Firecrawl from "@mendable/firecrawl-js";
import { Database } from "bun:sqlite";
import { errorAnswerStatusSql, isErrorAnswerStatus } from "../../src/change-tracking/answer-status.ts";
import type { Harness } from "../helpers/harness.ts";
import { html, useMonitorSite, type SitePage } from "./monitor-site.ts";

const ctx = useMonitorSite();
let h: Harness;
let app: Firecrawl;
let base: string;
beforeAll(() => ({ h, app, base } = ctx));
const { pages, settled } = ctx;

const good = (body: string): SitePage => ({ html: html("Shop", body), status: 200 });
const down: SitePage = { html: html("Maintenance", "We are down for maintenance."), status: 503 };
const gone: SitePage = { html: "gone", status: 404 };
/** An answer the scrape cannot use (binary): the page fails, nothing is compared or recorded. */
const broken: SitePage = { html: "\u0000\u0001binary", status: 200, contentType: "application/octet-stream" };

/** The page's changeTracking as its stored scrape answers it. */
async function tracking(scrapeId: string): Promise<{ previousScrapeAt: string | null; changeStatus: string }> {
  const res = await h.request(`/v2/scrape/${scrapeId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data.changeTracking;
}

/**
 * Runs one check per answer of `/path` and checks, at each, that the page's `previousScrapeId` is the scrape of the
 * check whose time window holds its `previousScrapeAt` (null with null). Answers the pages' statuses and the index of
 * the check each `previousScrapeId` names (-1: null).
 */
async function run(path: string, answers: SitePage[], scrapeOptions?: Record<string, unknown>): Promise<{ statuses: string[]; previous: number[] }> {
  const m: any = await app.createMonitor({ name: path, schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}${path}`], ...(scrapeOptions ? { scrapeOptions } : {}) }] } as any);
  const checks: { started: number; finished: number; page: any }[] = [];
  const statuses: string[] = [];
  const previous: number[] = [];
  for (const answer of answers) {
    pages.set(path, answer);
    const started = Date.now();
    const c = await settled(m.id, (await app.runMonitor(m.id)).id);
    checks.push({ started, finished: Date.now(), page: c.pages[0] });
    const page = c.pages[0];
    statuses.push(page.status);
    const named = page.previousScrapeId === null ? -1 : checks.findIndex((k) => k.page.currentScrapeId === page.previousScrapeId);
    previous.push(named);
    if (page.currentScrapeId === null) continue; // failed: no comparison made
    const at = (await tracking(page.currentScrapeId)).previousScrapeAt;
    const dated = at === null ? -1 : checks.findIndex((k) => k.started <= Date.parse(at) && Date.parse(at) <= k.finished);
    expect({ check: checks.length - 1, previousScrapeId: named }).toEqual({ check: checks.length - 1, previousScrapeId: dated });
    // Dated within the window, a timestamp by itself, so that `dated` is a check's index whenever `at` is not null.
    if (at !== null) expect(dated).toBeGreaterThanOrEqual(0);
  }
  await app.deleteMonitor(m.id);
  return { statuses, previous };
}

describe("previousScrapeId names the scrape previousScrapeAt dates", () => {
  test("first sight, then the latest check", async () => {
    expect(await run("/p-first", [good("a"), good("b"), good("b")])).toEqual({ statuses: ["new", "changed", "same"], previous: [-1, 0, 1] });
  });

  test("after an error answer: the return is compared with the last good version, two checks back (previousScrapeId named the 503)", async () => {
    expect(await run("/p-outage", [good("a"), down, down, good("a")])).toEqual({ statuses: ["new", "changed", "same", "same"], previous: [-1, 0, 1, 0] });
  });

  test("an error answer after a failed check: the latest answer; a good one after both: the last good version", async () => {
    expect(await run("/p-mixed", [good("a"), down, broken, down, good("b")])).toEqual({ statuses: ["new", "changed", "error", "same", "changed"], previous: [-1, 0, 1, 1, 0] });
  });

  test("a first answer that is an error: the good answer after it has no good version to compare with, so it compares with the error", async () => {
    expect(await run("/p-down-first", [down, good("a"), good("a")])).toEqual({ statuses: ["new", "changed", "same"], previous: [-1, 0, 1] });
  });

  test("after a removed page (404, a version like any other)", async () => {
    expect(await run("/p-gone", [good("a"), gone, gone, good("a")])).toEqual({ statuses: ["new", "removed", "same", "changed"], previous: [-1, 0, 1, 2] });
  });

  test("a first sight that is a 404: both null", async () => {
    expect(await run("/p-gone-first", [gone, good("a")])).toEqual({ statuses: ["removed", "changed"], previous: [-1, 0] });
  });

  test("with the target's own changeTracking tag (the monitor's tag replaces it) and an outage", async () => {
    const scrapeOptions = { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "mine" }] };
    expect(await run("/p-tag", [good("a"), down, good("a")], scrapeOptions)).toEqual({ statuses: ["new", "changed", "same"], previous: [-1, 0, 0] });
  });
});

describe("URLs with a fragment: one page to the change history", () => {
  /**
   * Runs one check of the target `frag` per step, its URLs `path#x` then `path#y` (the target keeps its id, and so its
   * history: `#…` never names another page), and answers, for the last check, its page's `previousScrapeId` as the
   * index of the check it names (-1: null) and the index of the check its `previousScrapeAt` dates.
   */
  async function fragments(path: string, steps: { fragment: string; answer: SitePage }[]): Promise<{ named: number; dated: number; statuses: string[] }> {
    const target = (fragment: string) => [{ type: "scrape", id: "frag", urls: [`${base}${path}#${fragment}`] }];
    const m: any = await app.createMonitor({ name: path, schedule: { text: "daily" }, targets: target(steps[0]!.fragment) } as any);
    const checks: { started: number; finished: number; page: any }[] = [];
    for (const step of steps) {
      await app.updateMonitor(m.id, { targets: target(step.fragment) } as any);
      pages.set(path, step.answer);
      const started = Date.now();
      const c = await settled(m.id, (await app.runMonitor(m.id)).id);
      checks.push({ started, finished: Date.now(), page: c.pages[0] });
    }
    const last = checks[checks.length - 1]!.page;
    const at = (await tracking(last.currentScrapeId)).previousScrapeAt;
    await app.deleteMonitor(m.id);
    return {
      named: last.previousScrapeId === null ? -1 : checks.findIndex((k) => k.page.currentScrapeId === last.previousScrapeId),
      dated: at === null ? -1 : checks.findIndex((k) => k.started <= Date.parse(at) && Date.parse(at) <= k.finished),
      statuses: checks.map((k) => k.page.status),
    };
  }

  test("#x, then #y: the second is compared with the first (it was named null: the SQL matched the whole URL)", async () => {
    expect(await fragments("/p-frag", [{ fragment: "x", answer: good("a") }, { fragment: "y", answer: good("a") }])).toEqual({ named: 0, dated: 0, statuses: ["new", "same"] });
  });

  test("#x good, #x 503, then #y good: compared with the last good version, two checks back", async () => {
    const steps = [{ fragment: "x", answer: good("a") }, { fragment: "x", answer: down }, { fragment: "y", answer: good("a") }];
    expect(await fragments("/p-frag-outage", steps)).toEqual({ named: 0, dated: 0, statuses: ["new", "changed", "same"] });
  });
});

describe("when the check that made it is gone", () => {
  test("the last good version's check deleted (retentionDays): null, not the 503 after it that was not compared with", async () => {
    const m: any = await app.createMonitor({ name: "pruned", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/p-pruned`] }] });
    pages.set("/p-pruned", good("a"));
    const first = await settled(m.id, (await app.runMonitor(m.id)).id);
    pages.set("/p-pruned", down);
    await settled(m.id, (await app.runMonitor(m.id)).id);
    // What the hourly prune does to a check older than the retention: its pages go; the change history stays.
    h.services.db.query("DELETE FROM monitor_pages WHERE check_id = ?").run(first.id);
    h.services.db.query("DELETE FROM monitor_checks WHERE id = ?").run(first.id);
    pages.set("/p-pruned", good("a"));
    const back = (await settled(m.id, (await app.runMonitor(m.id)).id)).pages[0];
    expect(back.status).toBe("same");
    expect((await tracking(back.currentScrapeId)).previousScrapeAt).toBeString();
    expect(back.previousScrapeId).toBeNull();
    await app.deleteMonitor(m.id);
  });
});

test("errorAnswerStatusSql classes every status code as isErrorAnswerStatus does", () => {
  const db = new Database(":memory:");
  const differ: number[] = [];
  for (let code = 0; code < 1_000; code++) {
    const row = db.query<{ e: number }, [number]>(`SELECT ${errorAnswerStatusSql("?1")} AS e`).get(code)!;
    if ((row.e === 1) !== isErrorAnswerStatus(code)) differ.push(code);
  }
  expect(differ).toEqual([]);
  db.close();
});
