/**
 * The guard against a model that dropped a page's content (clean-content/cleaner.ts), through the API with the fake
 * LLM: an article whose model keeps only its related-links list is kept whole, with a warning, as one that keeps a
 * line of it is; a page whose content is links (an index, a download list, a gallery) is cleaned as usual. Before,
 * the labels of the kept links passed for content on any page: an article of 1,300 characters of prose came back
 * as its "Related" list alone (875 of its 2,188 characters), with no warning.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startPageSite, type PageSite } from "../formats/pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";

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

/** A model that drops every block but those whose preview matches `keep`. */
function keeping(keep: RegExp) {
  return (req: LlmRequestLog) => {
    const user = req.messages.find((m) => m.role === "user")!.content;
    const blocks = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
    return { content: JSON.stringify({ remove: blocks.filter((b) => !keep.test(b.text)).map((b) => b.n) }) };
  };
}

/** A model that drops the blocks whose preview matches `drop`. */
function dropping(drop: RegExp) {
  return (req: LlmRequestLog) => {
    const user = req.messages.find((m) => m.role === "user")!.content;
    const blocks = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
    return { content: JSON.stringify({ remove: blocks.filter((b) => drop.test(b.text)).map((b) => b.n) }) };
  };
}

const PARAGRAPHS = [
  "The river authority opened the new flood barrier on Monday, three years after the storm that put half of the old town under water and closed the station, the market and both schools for most of a month.",
  "Its twelve steel gates close within forty minutes when the gauge upstream passes the warning level, and they can be worked by hand if the power fails, as it did on the night of the storm three years ago.",
  "Engineers tested the barrier through the winter with water pumped in from the harbour, and the gates held at twice the height of the flood, the authority said in a report published on its website last week.",
  "Shop owners along the quay, who lost stock twice in a decade, said they would now insure their ground floors again for the first time, though premiums are still higher than they were before the storm.",
  "The barrier cost less than planned because the old bridge piers were reused as its footings, which saved a year of work in the river and spared the fishing season that the first plan would have cut short.",
  "A footpath runs along its top, and the authority will open a small museum of the town's floods in the old pump house next spring, with the gauge records kept since the river was first measured.",
];
const RELATED = Array.from({ length: 8 }, (_, i) => `<li><a href="/news/${i}">Related story number ${i}: the harbour, the council and the new ferry timetable</a></li>`).join("");
const ARTICLE = `<html><body><h1>New flood barrier opens</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}<h2>Related</h2><ul>${RELATED}</ul></body></html>`;

describe("the cleaning guard", () => {
  test("an article whose model keeps only its related-links list is kept whole, with a warning", async () => {
    site.set("/article", ARTICLE);
    const plain = (await scrape("/article", false)).body.data.markdown as string;
    llm.reset();
    llm.respond = keeping(/^## Related|^- \[Related story/);
    const r = await scrape("/article", true);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toBe(plain);
    expect(r.body.data.markdown).toContain(PARAGRAPHS[3]);
    expect(r.body.data.warning).toMatch(/^onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but 2 of 9 blocks \(10 of its 1\d{3} characters of prose outside links, under 10 % and under 300\) as boilerplate\.$/);
    expect(r.body.data.metadata.creditsUsed).toBe(2);
    // Keeping the article and dropping the list is cleaning as usual.
    llm.respond = dropping(/^## Related|^- \[Related story/);
    const cleaned = await scrape("/article", true);
    expect(cleaned.body.data.warning).toBeUndefined();
    expect(cleaned.body.data.markdown).toBe(`# New flood barrier opens\n\n${PARAGRAPHS.join("\n\n")}`);
  });

  test("an article on a site with a big menu whose model keeps only the related list: kept whole, with a warning", async () => {
    const sections = ["News", "World", "Business", "Tech", "Science", "Health", "Sport", "Culture", "Travel", "Opinion"];
    const menu = sections.map((s) => `<h3>${s}</h3><ul>${Array.from({ length: 14 }, (_, i) => `<li><a href="/${s}/${i}">${s} topic number ${i} long label</a></li>`).join("")}</ul>`).join("");
    site.set("/menu-article", `<html><body>${menu}${ARTICLE.slice("<html><body>".length)}`);
    llm.reset();
    llm.respond = keeping(/^## Related|^- \[Related story/);
    const r = await scrape("/menu-article", true);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain(PARAGRAPHS[3]);
    expect(r.body.data.markdown).toContain("Opinion topic number 13");
    expect(r.body.data.warning).toMatch(/^onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but 2 of \d+ blocks \(10 of its \d+ characters of prose outside links, under 10 % and under 300, and on a page mostly of links \d+ of its \d+ characters of text, under 25 %\) as boilerplate\.$/);
  });

  test("an index, a download list and a gallery, whose content is links, are cleaned as usual", async () => {
    const banner = "<p>We use cookies to improve your experience. By continuing to browse you agree to our use of cookies. Read our cookie policy for details.</p>";
    const footer = "<p>Newsletter: get the weekly digest in your inbox every Monday. Sign up now, it is free.</p><p>© 2026 Example Media Group. All rights reserved. Registered in England and Wales.</p>";
    const pages = {
      "/downloads": `<h1>Downloads</h1><ul>${Array.from({ length: 12 }, (_, i) => `<li><a href="/files/tool-${i}.zip">Tool release 2.${i} for Linux, macOS and Windows (zip)</a></li>`).join("")}</ul>`,
      "/gallery": `<h1>Photos</h1>${Array.from({ length: 16 }, (_, i) => `<p><a href="/photo/${i}"><img src="/img/${i}.jpg" alt="The old harbour at dawn, photo ${i} of the series"></a></p>`).join("")}`,
      "/articles": `<h1>All articles</h1><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/a/${i}">Article number ${i}: a headline about something that happened this week</a></li>`).join("")}</ul>`,
    };
    for (const [path, content] of Object.entries(pages)) {
      site.set(path, `<html><body>${banner}${content}${footer}</body></html>`);
      llm.reset();
      llm.respond = dropping(/cookies|Newsletter|©/);
      const r = await scrape(path, true);
      expect(r.status).toBe(200);
      expect(r.body.data.warning).toBeUndefined();
      expect(r.body.data.markdown).toStartWith("# ");
      expect(r.body.data.markdown).not.toMatch(/cookies|Newsletter|©/);
    }
  });
});
