/**
 * changeTracking's hidden re-checks in repeated crawls obey the crawl's rules (api-v2.md §5.7: upstream passes the
 * previous crawl's unvisited URLs through the crawl's filterLinks and caps them at `limit − done`): the limit,
 * include/exclude patterns, robots.txt, and where a re-checked page redirects. And a re-checked page stays in the
 * crawl's recorded URL set, so a later crawl re-checks it again and reports it `removed` when it goes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

interface Route {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** Answers after this long. */
  delayMs?: number;
}

/** A fixture site whose routes (status, body, headers) tests change between crawls; counts hits per path. */
const routes = new Map<string, Route>();
const hits = new Map<string, number>();
let site: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const r = routes.get(path);
      if (r?.delayMs) await Bun.sleep(r.delayMs);
      if (!r) return new Response("<html><body><h1>Not found</h1><p>Nothing lives at this address.</p></body></html>", { status: 404, headers: { "content-type": "text/html" } });
      return new Response(r.body, { status: r.status, headers: { "content-type": "text/html; charset=utf-8", ...r.headers } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

function linkPage(title: string, links: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>The ${title} page of the fixture site has a paragraph.</p><ul>${links
    .map((l) => `<li><a href="${l}">${l}</a></li>`)
    .join("")}</ul></main></body></html>`;
}
const setPage = (path: string, links: string[] = [], status = 200) => routes.set(path, { status, body: linkPage(path, links) });

async function start(body: Record<string, unknown>): Promise<string> {
  const res = await h.request("/v2/crawl", { method: "POST", json: { sitemap: "skip", ignoreRobotsTxt: true, ...body } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).id;
}

async function crawl(body: Record<string, unknown>): Promise<any> {
  return finished(await start(body));
}

async function finished(id: string): Promise<any> {
  const created = { id };
  for (let i = 0; i < 400; i++) {
    const s = (await (await h.request(`/v2/crawl/${created.id}`)).json()) as any;
    if (s.status !== "scraping") return { ...s, id: created.id };
    await Bun.sleep(25);
  }
  throw new Error("crawl did not finish");
}

const tracking = (tag: string) => ({ formats: ["markdown", { type: "changeTracking", tag }] });
const byPath = (docs: any[]) => Object.fromEntries(docs.map((d) => [new URL(d.metadata.url).pathname, d]));
/** The section `dir` of eight pages p0…p7 linked from its index. */
function section(dir: string): string[] {
  const pages = Array.from({ length: 8 }, (_, i) => `/${dir}/p${i}`);
  setPage(`/${dir}/`, pages);
  for (const p of pages) setPage(p);
  return pages;
}

describe("hidden re-checks obey the crawl's rules", () => {
  test("the limit caps them: a second crawl with limit 2 has 2 pages, not 9 (was 9 pages, 9 credits)", async () => {
    section("lim");
    const first = await crawl({ url: `${base}/lim/`, limit: 20, scrapeOptions: tracking("lim") });
    expect(first.data).toHaveLength(9);
    const second = await crawl({ url: `${base}/lim/`, limit: 2, scrapeOptions: tracking("lim") });
    expect(second.status).toBe("completed");
    expect(second.total).toBe(2);
    expect(second.creditsUsed).toBe(2);
    expect(second.data.map((d: any) => d.changeTracking.visibility)).toEqual(["visible", "visible"]);
  });

  test("the room the limit leaves is filled with re-checks, and no more", async () => {
    section("room");
    await crawl({ url: `${base}/room/`, scrapeOptions: tracking("room") });
    setPage("/room/", ["/room/p0"]); // the index now links one page: 2 visible, 7 left to re-check
    const second = await crawl({ url: `${base}/room/`, limit: 5, scrapeOptions: tracking("room") });
    expect(second.total).toBe(5);
    const hidden = second.data.filter((d: any) => d.changeTracking.visibility === "hidden");
    expect(hidden).toHaveLength(3);
  });

  test("excludePaths: an excluded page is not re-checked (p0 was fetched hidden)", async () => {
    const pages = section("ex");
    await crawl({ url: `${base}/ex/`, scrapeOptions: tracking("ex") });
    const before = pages.map((p) => hits.get(p));
    const second = await crawl({ url: `${base}/ex/`, excludePaths: ["p[0-5]"], scrapeOptions: tracking("ex") });
    expect(Object.keys(byPath(second.data)).sort()).toEqual(["/ex/", "/ex/p6", "/ex/p7"]);
    expect(pages.slice(0, 6).map((p) => hits.get(p))).toEqual(before.slice(0, 6));
    expect(second.total).toBe(3);
  });

  test("narrower includePaths or limit: a page gone from outside the new scope is neither fetched nor reported removed", async () => {
    for (const [name, narrow] of [["inc", { includePaths: ["^/inc/a/.*"] }], ["lm", { limit: 3 }]] as const) {
      setPage(`/${name}/`, [`/${name}/a/`, `/${name}/b/`]);
      for (const dir of ["a", "b"]) {
        setPage(`/${name}/${dir}/`, [`/${name}/${dir}/1`, `/${name}/${dir}/2`]);
        setPage(`/${name}/${dir}/1`);
        setPage(`/${name}/${dir}/2`);
      }
      await crawl({ url: `${base}/${name}/`, scrapeOptions: tracking(name) });
      routes.delete(`/${name}/b/2`); // now 404, and outside the next crawl's scope (its path, or past its limit)
      const hitsB2 = hits.get(`/${name}/b/2`);
      const second = await crawl({ url: `${base}/${name}/`, ...narrow, scrapeOptions: tracking(name) });
      expect(second.data.filter((d: any) => d.changeTracking.changeStatus === "removed")).toEqual([]);
      expect(second.data.filter((d: any) => d.changeTracking.visibility === "hidden")).toEqual([]);
      expect(hits.get(`/${name}/b/2`)).toBe(hitsB2);
    }
  });

  test("robots.txt: a page it disallows now is not re-checked, and is listed as robots-blocked", async () => {
    section("rb");
    await crawl({ url: `${base}/rb/`, scrapeOptions: tracking("rb") });
    routes.set("/robots.txt", { status: 200, body: "User-agent: *\nDisallow: /rb/p3\n", headers: { "content-type": "text/plain" } });
    try {
      setPage("/rb/", ["/rb/p0"]);
      const hitsP3 = hits.get("/rb/p3");
      const second = await crawl({ url: `${base}/rb/`, ignoreRobotsTxt: false, scrapeOptions: tracking("rb") });
      expect(second.status).toBe("completed");
      expect(hits.get("/rb/p3")).toBe(hitsP3);
      const paths = Object.keys(byPath(second.data));
      expect(paths).not.toContain("/rb/p3");
      expect(paths.sort()).toEqual(["/rb/", "/rb/p0", "/rb/p1", "/rb/p2", "/rb/p4", "/rb/p5", "/rb/p6", "/rb/p7"]);
      const errors = (await (await h.request(`/v2/crawl/${second.id}/errors`)).json()) as any;
      expect(errors.robotsBlocked).toEqual([`${base}/rb/p3`]);
      expect(second.creditsUsed).toBe(8);
    } finally {
      routes.delete("/robots.txt");
    }
  });

  test("a re-checked page that now redirects out of the crawl's rules fails as a crawl page would (was kept)", async () => {
    setPage("/rd/", ["/rd/a", "/rd/b"]);
    setPage("/rd/a");
    setPage("/rd/b");
    await crawl({ url: `${base}/rd/`, scrapeOptions: tracking("rd") });
    setPage("/rd/", []);
    routes.set("/rd/a", { status: 301, body: "", headers: { location: "/rd/private/a" } });
    setPage("/rd/private/a");
    const second = await crawl({ url: `${base}/rd/`, excludePaths: ["private"], scrapeOptions: tracking("rd") });
    const paths = Object.keys(byPath(second.data)).sort();
    expect(paths).toEqual(["/rd/", "/rd/b"]);
    const errors = (await (await h.request(`/v2/crawl/${second.id}/errors`)).json()) as any;
    expect(errors.errors).toHaveLength(1);
    expect(errors.errors[0].url).toBe(`${base}/rd/a`);
    // No page of this crawl any more: dropped from its record like a removed page, so the next crawl neither fetches
    // it again nor lists the same error (it did, at every later crawl).
    const hitsA = hits.get("/rd/a");
    const third = await crawl({ url: `${base}/rd/`, excludePaths: ["private"], scrapeOptions: tracking("rd") });
    expect(Object.keys(byPath(third.data)).sort()).toEqual(["/rd/", "/rd/b"]);
    expect(hits.get("/rd/a")).toBe(hitsA);
    expect(((await (await h.request(`/v2/crawl/${third.id}/errors`)).json()) as any).errors).toEqual([]);
  });
});

describe("re-checked pages stay in the crawl's URL set", () => {
  test("a page dropped from the links is re-checked by every later crawl, reported removed when it goes, then dropped", async () => {
    setPage("/gone/", ["/gone/a", "/gone/b"]);
    setPage("/gone/a");
    setPage("/gone/b");
    await crawl({ url: `${base}/gone/`, scrapeOptions: tracking("gone") });
    setPage("/gone/", ["/gone/a"]);
    const second = await crawl({ url: `${base}/gone/`, scrapeOptions: tracking("gone") });
    expect(byPath(second.data)["/gone/b"].changeTracking).toMatchObject({ changeStatus: "same", visibility: "hidden" });

    routes.delete("/gone/b"); // now 404
    const third = await crawl({ url: `${base}/gone/`, scrapeOptions: tracking("gone") });
    expect(byPath(third.data)["/gone/b"]?.changeTracking).toMatchObject({ changeStatus: "removed", visibility: "hidden" });

    // Reported removed once: a fourth crawl does not pay to report it again.
    const hitsB = hits.get("/gone/b");
    const fourth = await crawl({ url: `${base}/gone/`, scrapeOptions: tracking("gone") });
    expect(Object.keys(byPath(fourth.data)).sort()).toEqual(["/gone/", "/gone/a"]);
    expect(hits.get("/gone/b")).toBe(hitsB);
  });
});

describe("two crawls of the same site at once", () => {
  test("the second takes the latest complete crawl as its previous one, not the first still running its re-checks", async () => {
    setPage("/cc/", ["/cc/a", "/cc/b"]);
    setPage("/cc/a");
    setPage("/cc/b");
    await crawl({ url: `${base}/cc/`, scrapeOptions: tracking("cc") });
    setPage("/cc/", []);
    // The re-check of /cc/a takes a while: the first crawl below records its URLs, then runs it.
    routes.set("/cc/a", { status: 200, body: linkPage("/cc/a", []), delayMs: 1_500 });
    const running = await start({ url: `${base}/cc/`, scrapeOptions: tracking("cc") });
    const recorded = () => h.services.db.query<{ n: number }, [string]>("SELECT 1 AS n FROM change_crawls WHERE job_id = ?").get(running);
    for (let i = 0; i < 200 && !recorded(); i++) await Bun.sleep(10);
    expect(recorded()).toBeTruthy();
    const second = await crawl({ url: `${base}/cc/`, scrapeOptions: tracking("cc") });
    const first = await finished(running);
    const hidden = (c: any) => c.data.filter((d: any) => d.changeTracking.visibility === "hidden").map((d: any) => new URL(d.metadata.url).pathname).sort();
    expect(hidden(first)).toEqual(["/cc/a", "/cc/b"]);
    // It re-checked nothing: the running crawl's record then held /cc/ alone.
    expect(hidden(second)).toEqual(["/cc/a", "/cc/b"]);
  }, 30_000);
});

describe("zero data retention", () => {
  test("a crawl under zero data retention keeps no URL list and re-checks nothing (its URLs were kept for a year)", async () => {
    setPage("/zdr/", ["/zdr/a", "/zdr/b"]);
    setPage("/zdr/a");
    setPage("/zdr/b");
    const first = await crawl({ url: `${base}/zdr/`, zeroDataRetention: true, scrapeOptions: tracking("zdr") });
    expect(first.data).toHaveLength(3);
    const kept = h.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM change_crawls WHERE start_url = ?").get(`${base}/zdr/`);
    expect(kept!.n).toBe(0);
    setPage("/zdr/", []);
    const second = await crawl({ url: `${base}/zdr/`, zeroDataRetention: true, scrapeOptions: tracking("zdr") });
    expect(Object.keys(byPath(second.data))).toEqual(["/zdr/"]);
  });
});
