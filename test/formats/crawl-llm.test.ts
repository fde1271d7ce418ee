/**
 * LLM formats and change tracking in crawls: hidden visibility in a repeated crawl of the same start URL, json
 * on crawl pages with an LLM failure failing that page only; in batch scrapes, a retried attempt is no baseline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

function linkPage(title: string, links: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>The ${title} page of the fixture site has a paragraph.</p><ul>${links
    .map((l) => `<li><a href="${l}">${l}</a></li>`)
    .join("")}</ul></main></body></html>`;
}

async function crawl(body: Record<string, unknown>): Promise<any> {
  const res = await h.request("/v2/crawl", { method: "POST", json: { sitemap: "skip", ignoreRobotsTxt: true, ...body } });
  const created = (await res.json()) as any;
  expect(res.status).toBe(200);
  for (let i = 0; i < 200; i++) {
    const s = (await (await h.request(`/v2/crawl/${created.id}`)).json()) as any;
    if (s.status !== "scraping") return { ...s, id: created.id };
    await Bun.sleep(50);
  }
  throw new Error("crawl did not finish");
}

const byPath = (docs: any[]) => Object.fromEntries(docs.map((d) => [new URL(d.metadata.url).pathname, d]));

describe("changeTracking in crawls", () => {
  test("pages the previous crawl saw but this one does not link are re-checked as hidden", async () => {
    site.set("/shop/", linkPage("Shop", ["/shop/a", "/shop/b", "/shop/c"]));
    site.set("/shop/a", linkPage("A", []));
    site.set("/shop/b", linkPage("B", []));
    site.set("/shop/c", linkPage("C", []));
    const scrapeOptions = { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }] };
    const first = await crawl({ url: `${site.url}/shop/`, scrapeOptions });
    expect(first.status).toBe("completed");
    const one = byPath(first.data);
    expect(Object.keys(one).sort()).toEqual(["/shop/", "/shop/a", "/shop/b", "/shop/c"]);
    for (const d of first.data) expect(d.changeTracking).toMatchObject({ changeStatus: "new", visibility: "visible" });

    // Second crawl: the shop no longer links b and c; c is gone.
    site.set("/shop/", linkPage("Shop", ["/shop/a"]));
    site.set("/shop/c", page("Gone"), 404);
    const hitsB = site.hits.get("/shop/b")!;
    const second = await crawl({ url: `${site.url}/shop/`, scrapeOptions });
    expect(second.status).toBe("completed");
    const two = byPath(second.data);
    expect(Object.keys(two).sort()).toEqual(["/shop/", "/shop/a", "/shop/b", "/shop/c"]);
    expect(two["/shop/"].changeTracking).toMatchObject({ changeStatus: "changed", visibility: "visible" });
    expect(two["/shop/a"].changeTracking).toMatchObject({ changeStatus: "same", visibility: "visible" });
    expect(two["/shop/b"].changeTracking).toMatchObject({ changeStatus: "same", visibility: "hidden" });
    expect(two["/shop/c"].changeTracking).toMatchObject({ changeStatus: "removed", visibility: "hidden" });
    expect(site.hits.get("/shop/b")).toBe(hitsB + 1);
    expect(second.total).toBe(4);

    // A crawl of another start URL does not re-check the shop's pages.
    site.set("/other/", linkPage("Other", []));
    const other = await crawl({ url: `${site.url}/other/`, scrapeOptions });
    expect(other.data).toHaveLength(1);
  });
});

async function batch(body: Record<string, unknown>): Promise<any> {
  const res = await h.request("/v2/batch/scrape", { method: "POST", json: body });
  const created = (await res.json()) as any;
  expect(res.status).toBe(200);
  for (let i = 0; i < 200; i++) {
    const s = (await (await h.request(`/v2/batch/scrape/${created.id}`)).json()) as any;
    if (s.status !== "scraping") return s;
    await Bun.sleep(50);
  }
  throw new Error("batch did not finish");
}

describe("changeTracking in batch scrapes", () => {
  test("an attempt retried for its status (503) does not become the baseline", async () => {
    site.set("/flaky", page("Flaky", "The flaky page answers the same each time it works."));
    const body = { urls: [`${site.url}/flaky`], proxy: "basic", formats: ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "basic" }] };
    const first = await batch(body);
    expect(first.data[0].changeTracking).toMatchObject({ changeStatus: "new" });
    const hits = site.hits.get("/flaky")!;
    site.failNext("/flaky", 503);
    const startedAt = Date.now();
    const second = await batch(body);
    expect(site.hits.get("/flaky")).toBe(hits + 2);
    expect(second.data[0].metadata.statusCode).toBe(200);
    // Compared with the first batch's page, not with the 503 the retry discarded.
    expect(second.data[0].changeTracking.changeStatus).toBe("same");
    expect(Date.parse(second.data[0].changeTracking.previousScrapeAt)).toBeLessThan(startedAt);
    expect(second.data[0].changeTracking.diff).toBeUndefined();
    // And the kept page is the next baseline.
    const third = await batch(body);
    expect(third.data[0].changeTracking.changeStatus).toBe("same");
  });
});

describe("json on crawl pages", () => {
  test("an LLM failure fails that page only", async () => {
    site.set("/cat/", linkPage("Cat", ["/cat/good", "/cat/bad"]));
    site.set("/cat/good", linkPage("Good", []));
    site.set("/cat/bad", linkPage("Bad", []));
    llm.reset();
    llm.respond = (req) => ({ content: req.messages[1]!.content.includes("Bad page") ? "not json" : '{"title":"ok"}' });
    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    const done = await crawl({ url: `${site.url}/cat/`, scrapeOptions: { formats: [{ type: "json", schema }] } });
    expect(done.status).toBe("completed");
    const pages = byPath(done.data);
    expect(Object.keys(pages).sort()).toEqual(["/cat/", "/cat/good"]);
    expect(pages["/cat/good"].json).toEqual({ title: "ok" });
    expect(pages["/cat/good"].metadata.creditsUsed).toBe(5);
    const errors = (await (await h.request(`/v2/crawl/${done.id}/errors`)).json()) as any;
    expect(errors.errors).toHaveLength(1);
    expect(errors.errors[0].url).toContain("/cat/bad");
    expect(errors.errors[0].code).toBe("LLM_INVALID_ANSWER");
  });
});
