/**
 * The crawl planner's link bookkeeping: links are judged once per depth, and a page found again from another
 * depth is not handed to the job store a second time (the store would only ignore the duplicate).
 */
import { describe, expect, test } from "bun:test";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createCrawlFilter } from "../../src/crawl/filter.ts";
import { createCrawlPlanner } from "../../src/jobs/crawl-planner.ts";
import type { Job, Task } from "../../src/jobs/types.ts";
import { silentLogger } from "../../src/log.ts";

const engine = {
  fetch: async () => {
    throw new Error("the planner must not fetch anything when robots.txt is ignored");
  },
};

function setup(crawlerOptions: Record<string, unknown>) {
  const planner = createCrawlPlanner({ engine, robots: new RobotsCache({ engine }), log: silentLogger });
  const job = { id: crypto.randomUUID(), url: "http://site.test/", options: { crawlerOptions: { ignoreRobotsTxt: true, crawlEntireDomain: true, ...crawlerOptions } } } as unknown as Job;
  const at = (depth: number, attempts: number, url = "http://site.test/", id: string = crypto.randomUUID()) => ({ id, depth, url, attempts }) as Task;
  const signal = new AbortController().signal;
  return {
    discover: (links: string[], depth: number, attempts = 1, id?: string) => planner.discover(job, at(depth, attempts, "http://site.test/", id), links, signal),
  };
}

describe("crawl planner", () => {
  test("a page linked from several depths is enqueued once", async () => {
    const p = setup({});
    const first = await p.discover(["/a", "/b", "http://elsewhere.test/x"], 0);
    expect(first.discovered.map((t) => [t.url, t.depth])).toEqual([
      ["http://site.test/a", 1],
      ["http://site.test/b", 1],
    ]);
    // The same pages (one spelled differently) from a deeper page, plus a new one: only the new one is handed on.
    const again = await p.discover(["/a", "http://site.test/b#", "/c"], 1);
    expect(again.discovered.map((t) => [t.url, t.depth])).toEqual([["http://site.test/c", 2]]);
  });

  test("a page running again (its completion was not stored: a full disk, a lost lease) hands on its links again", async () => {
    const p = setup({});
    expect((await p.discover(["/a", "/b"], 0)).discovered.map((t) => t.url)).toEqual(["http://site.test/a", "http://site.test/b"]);
    // Its second attempt: the memory says "already handed over", but that was never committed.
    expect((await p.discover(["/a", "/b"], 0, 2)).discovered.map((t) => t.url)).toEqual(["http://site.test/a", "http://site.test/b"]);
    // Other pages still skip what was handed over.
    expect((await p.discover(["/a", "/c"], 0)).discovered.map((t) => t.url)).toEqual(["http://site.test/c"]);
  });

  test("a page running again on its first attempt (the attempt was given back after its completion was lost) hands on its links again", async () => {
    const p = setup({});
    const id = crypto.randomUUID();
    expect((await p.discover(["/a", "/b"], 0, 1, id)).discovered.map((t) => t.url)).toEqual(["http://site.test/a", "http://site.test/b"]);
    // A locked database failed the completion; release() gave the attempt back, so this run is attempt 1 again.
    expect((await p.discover(["/a", "/b"], 0, 1, id)).discovered.map((t) => t.url)).toEqual(["http://site.test/a", "http://site.test/b"]);
    expect((await p.discover(["/a", "/b"], 0, 1)).discovered).toEqual([]); // another page: already handed over
  });

  test("a start URL the patterns refuse is still keyed like its variants, so its link to /docs/ is not a second page", async () => {
    const planner = createCrawlPlanner({ engine, robots: new RobotsCache({ engine }), log: silentLogger });
    const options = { ignoreRobotsTxt: true, includePaths: ["^/docs/"] };
    const start = planner.initialTasks("http://site.test/docs", options).find((t) => t.kind === "page")!;
    const linked = createCrawlFilter("http://site.test/docs", options).check("/docs/", { depth: 0 });
    expect(linked.ok).toBe(true);
    expect(start.dedupKey).toBe(linked.ok ? linked.key : "");
    const home = planner.initialTasks("http://site.test/", { ignoreRobotsTxt: true, excludePaths: ["^/$"] }).find((t) => t.kind === "page")!;
    const index = createCrawlFilter("http://site.test/", { ignoreRobotsTxt: true }).check("/index.html", { depth: 0 });
    expect(home.dedupKey).toBe(index.ok ? index.key : "");
  });

  test("a link refused at one depth is judged again at a shallower one (maxDiscoveryDepth)", async () => {
    const p = setup({ maxDiscoveryDepth: 2 });
    expect((await p.discover(["/deep"], 2)).discovered).toEqual([]);
    expect((await p.discover(["/deep"], 1)).discovered.map((t) => t.url)).toEqual(["http://site.test/deep"]);
  });
});
