/**
 * A crawl at its `limit` and the places its failed pages give back (jobs/spare-tasks.ts), and `maxConcurrency`
 * counting pages, not the kickoff (jobs/running-work.ts). A local site: `/bad/n` redirect off the crawl's host (each is
 * a CRAWL_DENIAL, a failed page), `/p/0` is slow and links the same `/p/n` the start page does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCrawl } from "../helpers/crawl-run.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
/** When the start page was asked for, and when the sitemap answered (epoch ms). */
let startAskedAt = 0;
let sitemapMs = 0;

const page = (title: string, links: string[]) =>
  new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Text of ${title} about tomatoes.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</main></body></html>`, {
    headers: { "content-type": "text/html" },
  });
const pages = Array.from({ length: 8 }, (_, i) => `/p/${i}`);

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === "/many/") return page("Many", pages);
      if (pathname === "/" || pathname === "/slow-sitemap/") {
        startAskedAt = Date.now();
        return page("Home", [...["/bad/0", "/bad/1", "/bad/2"], ...pages]);
      }
      if (pathname === "/sitemap.xml") {
        await Bun.sleep(sitemapMs);
        return new Response("not here", { status: 404 });
      }
      if (pathname.startsWith("/bad/")) return new Response(null, { status: 302, headers: { location: `http://localhost:${site.port}/elsewhere` } });
      if (pathname === "/p/0") {
        await Bun.sleep(400);
        return page("P0", pages.slice(1));
      }
      if (pages.includes(pathname)) return page(pathname, []);
      return new Response("no", { status: 404 });
    },
  });
  h = await createHarness({ retryBaseDelayMs: 20, jobConcurrency: 8, perHostConcurrency: 8 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

async function crawl(body: Record<string, unknown>) {
  const status = await runCrawl(h, { url: `http://127.0.0.1:${site.port}/`, ...body });
  expect(status.status).toBe("completed");
  const errors = (await (await h.request(`/v2/crawl/${status.id}/errors`)).json()) as any;
  return { status, paths: status.data.map((d: any) => new URL(d.metadata.sourceURL).pathname).sort(), errors };
}

describe("a crawl at its limit", () => {
  test("places given back by failed pages go to pages found while the crawl was full, though no page links them again", async () => {
    // The start page fills the limit of 5 with itself, three off-host redirects and /p/0; /p/1–7 are turned away.
    // The redirects fail (CRAWL_DENIAL) and give their places back; /p/0 links /p/1–7 again, but they were already
    // handed over once. Before, the crawl ended with 2 results; the site has 9 pages.
    const { status, paths, errors } = await crawl({ limit: 5, sitemap: "skip" });
    expect(errors.errors.filter((e: any) => e.code === "CRAWL_DENIAL")).toHaveLength(3);
    expect(paths).toHaveLength(5);
    expect(paths.slice(0, 2)).toEqual(["/", "/p/0"]);
    expect(status.completed).toBe(status.total);
    expect(status.total).toBe(8);
  });

  test("maxConcurrency counts pages: the start page does not wait for the kickoff's slow sitemap", async () => {
    sitemapMs = 1500;
    try {
      const asked = Date.now();
      const { paths } = await crawl({ url: `http://127.0.0.1:${site.port}/slow-sitemap/`, limit: 2, maxConcurrency: 1, ignoreRobotsTxt: true, crawlEntireDomain: true });
      // Before, the kickoff held the one slot and the start page waited the 1.5 s for the sitemap.
      expect(startAskedAt - asked).toBeLessThan(1000);
      expect(paths).toHaveLength(2);
    } finally {
      sitemapMs = 0;
    }
  });
});

describe("spare pages", () => {
  test("kept in the order found, once each, pages only, at most MAX_SPARE_TASKS_PER_JOB; a failing host's stay kept; a budget bounds what is taken", async () => {
    const { SpareTasks, MAX_SPARE_TASKS_PER_JOB, refillBudget } = await import("../../src/jobs/spare-tasks.ts");
    const spares = new SpareTasks();
    const task = (url: string, kind: "page" | "kickoff" = "page") => ({ kind, url, dedupKey: url, depth: 1 });
    const urls = (ts: { url: string }[]) => ts.map((t) => t.url);
    // Up to `max` pages, one take at a time, as the store refills one freed place at a time.
    const take = (jobId: string, unwelcome: Set<string>, max: number, budget: number) => {
      const out: NonNullable<ReturnType<typeof spares.take>>[] = [];
      for (let t; out.length < max && (t = spares.take(jobId, unwelcome, budget)); ) out.push(t);
      return out;
    };
    spares.keep("j", [task("http://a.test/1"), task("http://b.test/1"), task("http://a.test/x", "kickoff"), task("http://a.test/1"), task("http://a.test/2")]);
    expect(urls(take("j", new Set(["b.test"]), 10, 100))).toEqual(["http://a.test/1", "http://a.test/2"]);
    // Given back: first again.
    spares.giveBack("j", task("http://a.test/2"));
    expect(urls(take("j", new Set(), 1, 100))).toEqual(["http://a.test/2"]);
    expect(urls(take("j", new Set(), 10, 100))).toEqual(["http://b.test/1"]);
    expect(spares.has("j")).toBe(false);
    spares.keep("k", Array.from({ length: MAX_SPARE_TASKS_PER_JOB + 5 }, (_, i) => task(`http://a.test/${i}`)));
    expect(take("k", new Set(), 5000, 5000)).toHaveLength(MAX_SPARE_TASKS_PER_JOB);
    // The budget counts every page a job enqueued: 3 of a budget of 10 left after 7.
    spares.keep("m", Array.from({ length: 20 }, (_, i) => task(`http://a.test/${i}`)));
    expect(take("m", new Set(), 7, 10)).toHaveLength(7);
    expect(take("m", new Set(), 20, 10)).toHaveLength(3);
    expect(take("m", new Set(), 20, 10)).toHaveLength(0);
    expect(take("other", new Set(), 1, 10)).toEqual([]);
    expect([refillBudget(3), refillBudget(500), refillBudget(1e9)]).toEqual([10, 500, MAX_SPARE_TASKS_PER_JOB]);
  });

  test("a page refused for the key's credits gives its place to no spare page: the next would be refused alike", async () => {
    // 5 credits a page (redaction), 12 left: the start page and one more are paid, the third page is refused. Before,
    // each refusal freed a place for the next spare page, which was refused in turn: 9 pages for a limit of 3.
    const { key } = h.services.keys.create("twelve", 12);
    const body = { url: `http://127.0.0.1:${site.port}/many/`, limit: 3, sitemap: "skip", crawlEntireDomain: true, scrapeOptions: { redactPII: { mode: "fast" } } };
    const status = await runCrawl(h, body, { auth: key });
    expect(status).toMatchObject({ status: "completed", total: 3, completed: 3, creditsUsed: 10 });
    const errors = (await (await h.request(`/v2/crawl/${status.id}/errors`, { auth: key })).json()) as any;
    expect(errors.errors.map((e: any) => e.code)).toEqual(["INSUFFICIENT_CREDITS"]);
  });
});
