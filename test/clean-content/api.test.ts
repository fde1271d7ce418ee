/**
 * `onlyCleanContent` through the API (clean-content/cleaner.ts) against a local page and the fake LLM: the blocks
 * the model names are dropped and every other block comes back exactly as converted; the model sees numbered
 * previews, not the page; formats built from the markdown read the cleaned copy; one more credit when the pass
 * runs, none when it cannot or need not; without an LLM, a 400 naming the option.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let llm: FakeLlm;
let withLlm: Harness;
let smallContext: Harness;
let without: Harness;

const LONG_PARAGRAPH =
  "The widget installs in three steps, and each of them is reversible: you download the package, you run its " +
  "initialisation command in the folder of your project, and you add the two lines it prints to your configuration. " +
  "Nothing else on the machine changes, and removing the folder removes the widget. This paragraph is long on purpose.";

const GUIDE = `<!doctype html><html><head><title>Installing the widget</title></head><body>
<p>We use cookies to improve your experience. <a href="/cookies">Accept all cookies</a></p>
<h1>Installing the widget</h1>
<p>${LONG_PARAGRAPH}</p>
<table><tr><th>Step</th><th>Command</th></tr><tr><td>1</td><td>download</td></tr><tr><td>2</td><td>init</td></tr></table>
<pre><code class="language-bash">npm install widget

widget init</code></pre>
<p>Share this article: <a href="https://social.example/share">Post it</a></p>
<p>Subscribe to our newsletter for weekly tips.</p>
<h2>Related articles</h2>
<p><a href="/other">Another guide you may like</a></p>
</body></html>`;

const BOILERPLATE = /cookies|Share this|Subscribe|Related articles|Another guide/;

/** The `[n] preview` lines of a cleaning request. */
function blockLines(req: LlmRequestLog): { n: number; text: string }[] {
  const user = req.messages.find((m) => m.role === "user")!.content;
  return [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
}

const isCleaning = (req: LlmRequestLog) => req.messages.some((m) => m.role === "system" && m.content.includes("boilerplate"));

/** A model that does the job: the blocks that look like boilerplate. */
function sensibleModel(req: LlmRequestLog) {
  if (!isCleaning(req)) return { content: JSON.stringify({ title: "Installing the widget" }) };
  return { content: JSON.stringify({ remove: blockLines(req).filter((b) => BOILERPLATE.test(b.text)).map((b) => b.n) }) };
}

beforeAll(async () => {
  site = startPageSite();
  site.set("/guide", GUIDE);
  site.set("/long", `<html><body>${Array.from({ length: 400 }, (_, i) => `<p>Paragraph ${i} of a very long page.</p>`).join("")}</body></html>`);
  llm = startFakeLlm();
  withLlm = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  smallContext = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", llmContextTokens: 1024 });
  without = await createHarness();
});
afterAll(async () => {
  await withLlm.close();
  await smallContext.close();
  await without.close();
  site.stop();
  llm.stop();
});

async function scrape(h: Harness, body: Record<string, unknown>, path = "/guide") {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, maxAge: 0, onlyMainContent: false, ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

describe("onlyCleanContent", () => {
  test("the blocks the model names are dropped; the rest is the converted markdown, unchanged; 1 + 1 credits", async () => {
    llm.reset();
    const plain = await scrape(withLlm, { formats: ["markdown"] });
    expect(plain.body.data.markdown).toMatch(BOILERPLATE); // there is boilerplate to remove
    expect(llm.chats()).toHaveLength(0);

    llm.respond = sensibleModel;
    const r = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true });
    expect(r.status).toBe(200);
    const md: string = r.body.data.markdown;
    expect(md).not.toMatch(BOILERPLATE);
    // Everything else, character for character: the heading, the long paragraph, the table, the code with its blank line.
    const kept = (plain.body.data.markdown as string).split("\n\n").filter((b) => !BOILERPLATE.test(b));
    expect(md).toBe(kept.join("\n\n"));
    expect(md).toContain("# Installing the widget");
    expect(md).toContain(LONG_PARAGRAPH);
    expect(md).toContain("npm install widget\n\nwidget init");
    expect(md).toMatch(/\| 2 +\| init +\|/);
    expect(r.body.data.metadata.creditsUsed).toBe(2);
    expect(r.body.data.warning).toBeUndefined();

    // One call; the model saw numbered previews, not the page: the long paragraph is cut.
    expect(llm.chats()).toHaveLength(1);
    const sent = llm.chats()[0]!;
    expect(sent.schema).toMatchObject({ type: "object", required: ["remove"] });
    expect(blockLines(sent).length).toBeGreaterThan(5);
    expect(sent.messages.map((m) => m.content).join("\n")).not.toContain(LONG_PARAGRAPH);

    // The stored copy is the cleaned one.
    const stored = (await (await withLlm.request(`/v2/scrape/${r.body.data.metadata.scrapeId}`)).json()) as any;
    expect(stored.data.markdown).toBe(md);
  });

  test("formats built from the markdown read the cleaned copy; html keeps the page as served", async () => {
    llm.reset();
    llm.respond = sensibleModel;
    const r = await scrape(withLlm, { formats: ["json", "html"], onlyCleanContent: true });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ title: "Installing the widget" });
    expect(r.body.data.html).toContain("Subscribe to our newsletter");
    const extraction = llm.chats().find((c) => !isCleaning(c))!;
    const content = extraction.messages.map((m) => m.content).join("\n");
    expect(content).toContain("Installing the widget");
    expect(content).not.toMatch(BOILERPLATE);
  });

  test("formats that read no markdown: no model call and no extra credit", async () => {
    llm.reset();
    llm.respond = sensibleModel;
    const r = await scrape(withLlm, { formats: ["html", "links"], onlyCleanContent: true });
    expect(r.status).toBe(200);
    expect(llm.chats()).toHaveLength(0);
    expect(r.body.data.metadata.creditsUsed).toBe(1);
  });

  test("a model that marks every block, or names blocks it was not shown: the markdown stays whole", async () => {
    llm.reset();
    const plain = (await scrape(withLlm, { formats: ["markdown"] })).body.data.markdown as string;
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).map((b) => b.n) }) });
    const all = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true });
    expect(all.body.data.markdown).toBe(plain);
    expect(all.body.data.warning).toBe("onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it as boilerplate.");
    expect(all.body.data.metadata.creditsUsed).toBe(2); // the model did read the page

    llm.respond = () => ({ content: JSON.stringify({ remove: [-1, 999] }) });
    const stray = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true });
    expect(stray.body.data.markdown).toBe(plain);
    expect(stray.body.data.warning).toBeUndefined();
  });

  test("a model that would keep only a sliver of the page's prose (under 10 % and 300 characters): the markdown stays whole, with a warning", async () => {
    llm.reset();
    const para = "The widget installs in three steps, and each of them is reversible: you download the package, you run its initialisation command in the folder of your project, and you add the two lines it prints.";
    site.set("/sliver", `<html><body><p>We use cookies.</p><h1>Guide</h1><p>${para}</p><p>${para} Again.</p><p>Share this article</p></body></html>`);
    const plain = (await scrape(withLlm, { formats: ["markdown"] }, "/sliver")).body.data.markdown as string;
    // All but the last block, "Share this article": 18 of ~430 characters.
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).filter((b) => b.text !== "Share this article").map((b) => b.n) }) });
    const r = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true }, "/sliver");
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toBe(plain);
    expect(r.body.data.warning).toMatch(/^onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but 1 of 5 blocks \(18 of its \d+ characters of prose outside links, under 10 % and under 300\) as boilerplate\.$/);
    expect(r.body.data.metadata.creditsUsed).toBe(2); // the model did read the page

    // Dropping the banner and the share prompt from the same page is cleaning as usual.
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).filter((b) => /cookies|Share this/.test(b.text)).map((b) => b.n) }) });
    const cleaned = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true }, "/sliver");
    expect(cleaned.body.data.markdown).toBe(`# Guide\n\n${para}\n\n${para} Again.`);
    expect(cleaned.body.data.warning).toBeUndefined();
  });

  test("a short article on a site with a big menu and footer is cleaned: link labels are not prose", async () => {
    llm.reset();
    const sections = ["News", "World", "Business", "Tech", "Science", "Health", "Sport", "Culture", "Travel", "Opinion"];
    const menu = (from: number, to: number) =>
      sections
        .slice(from, to)
        .map((s) => `<h3>${s}</h3><ul>${Array.from({ length: 14 }, (_, i) => `<li><a href="/${s.toLowerCase()}/${i}">${s} topic number ${i} long label</a></li>`).join("")}</ul>`)
        .join("");
    const article = [
      "The city council voted 7-2 on Tuesday to add protected bike lanes along Main Street, with construction to begin next spring.",
      "The plan, which costs an estimated 2.4 million, removes 40 parking spaces. Supporters said the lanes would cut accidents; opponents worried about local shops.",
    ];
    const related = Array.from({ length: 8 }, (_, i) => `<li><a href="/r/${i}">Another city story headline number ${i} about local politics and traffic</a></li>`).join("");
    site.set(
      "/brief",
      `<html><body><p>We use cookies to improve your experience. By continuing to browse you agree to our use of cookies.</p>${menu(0, 5)}<h1>Council approves new bike lanes</h1><p>${article[0]}</p><p>${article[1]}</p>${menu(5, 10)}<h2>Related stories</h2><ul>${related}</ul><p>© 2026 News Example Media Group. All rights reserved.</p></body></html>`,
    );
    // A perfect answer: everything but the article's three blocks.
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).filter((b) => !/^# Council|^The city council|^The plan/.test(b.text)).map((b) => b.n) }) });
    const r = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true }, "/brief");
    expect(r.status).toBe(200);
    expect(r.body.data.warning).toBeUndefined();
    expect(r.body.data.markdown).toBe(`# Council approves new bike lanes\n\n${article[0]}\n\n${article[1]}`);
  });

  test("a page whose content is a list of links is cleaned: its labels are its text, though not prose", async () => {
    llm.reset();
    const items = Array.from({ length: 40 }, (_, i) => `<li><a href="/a/${i}">Article number ${i}: a headline about something that happened this week</a></li>`).join("");
    site.set(
      "/index",
      `<html><body><p>We use cookies to improve your experience. By continuing to browse you agree to our use of cookies. Read our cookie policy for details.</p><h1>All articles</h1><ul>${items}</ul><p>Newsletter: get the weekly digest in your inbox every Monday. Sign up now, it is free.</p><p>© 2026 Example Media Group. All rights reserved. Registered in England and Wales.</p></body></html>`,
    );
    // A perfect answer: the heading and the list stay. Before, the kept prose (the heading alone, 12 characters) made
    // the guard keep the whole page, with a warning, and charge for it.
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).filter((b) => /cookies|Newsletter|©/.test(b.text)).map((b) => b.n) }) });
    const r = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true }, "/index");
    expect(r.status).toBe(200);
    expect(r.body.data.warning).toBeUndefined();
    expect(r.body.data.markdown).toStartWith("# All articles\n\n- [Article number 0:");
    expect(r.body.data.markdown).not.toContain("cookies");
  });

  test("a block holding more than half of the page is kept whatever the model says", async () => {
    llm.reset();
    site.set("/mostly-one", `<html><body><p>Accept cookies</p><p>${"An unusually long paragraph of the article itself. ".repeat(40)}</p><p>Share this</p></body></html>`);
    llm.respond = (req) => ({ content: JSON.stringify({ remove: blockLines(req).map((b) => b.n) }) });
    const r = await scrape(withLlm, { formats: ["markdown"], onlyCleanContent: true }, "/mostly-one");
    expect(r.body.data.markdown).toBe("An unusually long paragraph of the article itself. ".repeat(40).trim());
    expect(r.body.data.warning).toBeUndefined();
  });

  test("a page longer than the pass reads with this model keeps its markdown, with a warning and no model call", async () => {
    llm.reset();
    llm.respond = sensibleModel;
    const r = await scrape(smallContext, { formats: ["markdown"], onlyCleanContent: true }, "/long");
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Paragraph 399 of a very long page.");
    expect(r.body.data.warning).toMatch(/^onlyCleanContent was skipped: the markdown has 400 blocks \(\d+ characters\), more than the cleaning pass reads with this model \(4 parts of its context\)/);
    expect(r.body.data.metadata.creditsUsed).toBe(1);
    expect(llm.chats()).toHaveLength(0);
  });

  test("a long page within the limit is read in parts, each answering for its own blocks", async () => {
    llm.reset();
    site.set("/medium", `<html><body>${Array.from({ length: 60 }, (_, i) => `<p>${i % 10 === 9 ? "Subscribe now." : `Paragraph ${i} of the page.`}</p>`).join("")}</body></html>`);
    llm.respond = sensibleModel;
    const r = await scrape(smallContext, { formats: ["markdown"], onlyCleanContent: true }, "/medium");
    expect(r.status).toBe(200);
    expect(llm.chats().length).toBeGreaterThan(1);
    expect(llm.chats().length).toBeLessThanOrEqual(4);
    expect(r.body.data.markdown).not.toContain("Subscribe");
    expect(r.body.data.markdown.split("\n\n")).toHaveLength(54);
  });

  test("without an LLM: 400 LLM_NOT_CONFIGURED naming the option; false is accepted as before", async () => {
    const r = await scrape(without, { formats: ["markdown"], onlyCleanContent: true });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("LLM_NOT_CONFIGURED");
    expect(r.body.error).toContain("onlyCleanContent");
    expect((await scrape(without, { formats: ["markdown"], onlyCleanContent: false })).status).toBe(200);
  });
});
