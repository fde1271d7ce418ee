/**
 * The guard against a model that dropped a page's content (clean-content/cleaner.ts), through the API with the fake
 * LLM: an article whose model keeps only its related-links list, or only the site's menu, is kept whole, with a
 * warning, as one that keeps a line of it is; a page whose content is links (an index, a download list, a gallery,
 * a docs site's API reference behind a menu of 140 links) is cleaned as usual, and so are a blog post with an
 * archive sidebar and a product page with a long legal footer. Link-dense blocks (menus, link lists) are measured
 * apart from the page's prose: once, the labels of a kept "Related" list passed for the article; then a big menu
 * made every page one of links, so an API reference came back whole with a warning (9,835 characters) and an
 * article whose model kept only the menu came back as that menu (8,594 characters), with no warning.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startPageSite, type PageSite } from "../formats/pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import * as P from "./guard-pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;
beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

async function scrape(path: string, onlyCleanContent: boolean) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, maxAge: 0, onlyMainContent: false, formats: ["markdown"], onlyCleanContent } });
  return { status: res.status, body: (await res.json()) as any };
}

/** The warning of a page kept whole because of its prose: `kept` of its prose outside links. */
const proseWarning = (kept: number, blocks: string) =>
  new RegExp(`^onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but ${blocks} blocks \\(${kept} of its 1\\d{3} characters of prose outside links, under 10 % and under 300\\) as boilerplate\\.$`);

describe("the cleaning guard", () => {
  test("an article whose model keeps only its related-links list is kept whole, with a warning", async () => {
    site.set("/article", P.ARTICLE);
    const plain = (await scrape("/article", false)).body.data.markdown as string;
    llm.reset();
    llm.respond = P.keeping(P.RELATED_BLOCKS);
    const r = await scrape("/article", true);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toBe(plain);
    expect(r.body.data.markdown).toContain(P.PARAGRAPHS[3]);
    expect(r.body.data.warning).toMatch(proseWarning(0, "2 of 9"));
    expect(r.body.data.metadata.creditsUsed).toBe(2);
    // Keeping the article and dropping the list is cleaning as usual.
    llm.respond = P.dropping(P.RELATED_BLOCKS);
    const cleaned = await scrape("/article", true);
    expect(cleaned.body.data.warning).toBeUndefined();
    expect(cleaned.body.data.markdown).toBe(`# New flood barrier opens\n\n${P.PARAGRAPHS.join("\n\n")}`);
  });

  test("an article on a site with a big menu whose model keeps only the related list: kept whole, with a warning", async () => {
    site.set("/menu-article", `<html><body>${P.NEWS_MENU}${P.ARTICLE_BODY}</body></html>`);
    llm.reset();
    llm.respond = P.keeping(P.RELATED_BLOCKS);
    const r = await scrape("/menu-article", true);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain(P.PARAGRAPHS[3]);
    expect(r.body.data.markdown).toContain("Opinion topic number 13");
    expect(r.body.data.warning).toMatch(proseWarning(0, "2 of 29"));
  });

  test("an article whose model keeps only the site's menu of 140 links is kept whole, with a warning", async () => {
    site.set("/nav-article", P.NAV_ARTICLE);
    llm.reset();
    llm.respond = P.keeping(P.DOCS_NAV_BLOCKS);
    const r = await scrape("/nav-article", true);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain(P.PARAGRAPHS[3]);
    expect(r.body.data.markdown).toContain("Changelog page 13 title");
    expect(r.body.data.warning).toMatch(proseWarning(0, "20 of 28"));
    // Dropping the menu and the footer of the same page is cleaning as usual.
    llm.respond = P.dropping(new RegExp(`${P.DOCS_NAV_BLOCKS.source}|©`));
    const cleaned = await scrape("/nav-article", true);
    expect(cleaned.body.data.warning).toBeUndefined();
    expect(cleaned.body.data.markdown).toBe(`# New flood barrier opens\n\n${P.PARAGRAPHS.join("\n\n")}`);
  });

  test("a docs site's API reference, a list of links behind a menu of 140, is cleaned as usual", async () => {
    site.set("/api-reference", P.API_REFERENCE);
    llm.reset();
    llm.respond = P.dropping(new RegExp(`${P.DOCS_NAV_BLOCKS.source}|©`));
    const r = await scrape("/api-reference", true);
    expect(r.status).toBe(200);
    expect(r.body.data.warning).toBeUndefined();
    expect(r.body.data.markdown).toStartWith("# API reference\n\n- [endpoint 0: list things](");
    expect(r.body.data.markdown).toContain("- [endpoint 19: list things](");
    expect(r.body.data.markdown).not.toMatch(/page \d+ title|©/);
  });

  test("an index, a download list and a gallery, whose content is links, are cleaned as usual", async () => {
    for (const [path, html] of Object.entries(P.LINK_PAGES)) {
      site.set(path, html);
      llm.reset();
      llm.respond = P.dropping(P.LINK_PAGE_CHROME);
      const r = await scrape(path, true);
      expect(r.status).toBe(200);
      expect(r.body.data.warning).toBeUndefined();
      expect(r.body.data.markdown).toStartWith("# ");
      expect(r.body.data.markdown).not.toMatch(P.LINK_PAGE_CHROME);
    }
  });

  test("a blog post with an archive sidebar and a product page with a long legal footer are cleaned as usual", async () => {
    const pages = [
      { path: "/blog", html: P.BLOG_POST, chrome: P.BLOG_CHROME, starts: "# A year of self-hosting the shop\n\nPosted by Sam" },
      { path: "/product", html: P.PRODUCT_PAGE, chrome: P.PRODUCT_CHROME, starts: "# Trail runner 2 shoe\n\n€129.00" },
    ];
    for (const { path, html, chrome, starts } of pages) {
      site.set(path, html);
      llm.reset();
      llm.respond = P.dropping(chrome);
      const r = await scrape(path, true);
      expect(r.status).toBe(200);
      expect(r.body.data.warning).toBeUndefined();
      expect(r.body.data.markdown).toStartWith(starts);
      expect(r.body.data.markdown).not.toMatch(chrome);
    }
    expect((await scrape("/product", true)).body.data.markdown).toContain("- [Black](");
    // The blog's model that keeps only the sidebar dropped the post: kept whole, with a warning.
    llm.respond = P.keeping(/^### Archive|^- \[\w+ \d{4} \(/);
    const sidebar = await scrape("/blog", true);
    expect(sidebar.body.data.markdown).toContain("Would I do it again?");
    expect(sidebar.body.data.warning).toMatch(/\(0 of its 880 characters of prose outside links, under 10 % and under 300\)/);
  });
  test("a short recipe whose model keeps only its \"More recipes\" list: kept whole, with a warning", async () => {
    site.set("/recipe", P.RECIPE);
    const plain = (await scrape("/recipe", false)).body.data.markdown as string;
    llm.reset();
    llm.respond = P.keeping(P.MORE_RECIPES_BLOCKS);
    const r = await scrape("/recipe", true);
    // Its prose (under 600 characters) makes it a page judged on its lists too: the 12 links kept are 400 of the page's
    // 5,415 characters of list text (the menu's 140 links): over 300, they passed as its content.
    expect(r.body.data.markdown).toBe(plain);
    expect(r.body.data.warning).toMatch(/^onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but 2 of 26 blocks \(0 of its 476 characters of prose outside links, under 10 % and under 300, and 400 of its 5415 characters of link lists, under 10 %\) as boilerplate\.$/);
    llm.respond = P.dropping(/^### |^- \[.*topic number|^## More recipes|^- \[Another summer drink/);
    const cleaned = await scrape("/recipe", true);
    expect(cleaned.body.data.warning).toBeUndefined();
    expect(cleaned.body.data.markdown).toContain("Strain the liquid");
  });
});
