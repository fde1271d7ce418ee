/**
 * The `menu` format through the API with a fake Ollama: a menu page becomes the SDK's MenuProfile (sections,
 * items with ids, formatted prices, dietary labels, calories, availability, the source URL), the page sent as
 * delimited data; a page that is not a menu answers isMenu false; without an LLM the format is a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  site.set("/menu", page("Trattoria Uno", "Starters: Bruschetta 6.50 (vegan). Mains: Lasagne 14 (640 kcal), Risotto 13 (vegetarian, sold out)."));
  site.set("/about", page("About us", "We are a family business."));
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

const menuOf = async (path: string, harness = h) => {
  const res = await harness.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats: ["menu"], maxAge: 0 } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("menu format", () => {
  test("a menu page: sections and items as the SDK's MenuProfile", async () => {
    llm.reset();
    llm.respond = (req) =>
      /Bruschetta/.test(req.messages[1]!.content)
        ? {
            content: JSON.stringify({
              isMenu: true,
              confidence: 0.95,
              merchantName: "Trattoria Uno",
              merchantType: "restaurant",
              currency: "eur",
              sections: [
                { name: "Starters", description: null, items: [{ name: "Bruschetta", price: 6.5, dietary: ["vegan"], calories: null, available: true }] },
                { name: "Mains", items: [{ name: "Lasagne", price: 14, dietary: [], calories: 640 }, { name: "Risotto", price: 13, dietary: ["vegetarian"], available: false }] },
              ],
            }),
          }
        : { content: JSON.stringify({ isMenu: false, confidence: 0.9, sections: [] }) };
    const { status, body } = await menuOf("/menu");
    expect(status).toBe(200);
    const menu = body.data.menu;
    expect(menu).toMatchObject({ isMenu: true, confidence: 0.95, merchant: { name: "Trattoria Uno", type: "restaurant" }, currency: "EUR", sourceUrl: `${site.url}/menu` });
    expect(menu.sections.map((s: any) => [s.id, s.name, s.items.length])).toEqual([["section-1", "Starters", 1], ["section-2", "Mains", 2]]);
    expect(menu.sections[0].items[0]).toEqual({
      id: "section-1-item-1",
      name: "Bruschetta",
      images: [],
      price: { amount: 6.5, currency: "EUR", formatted: "€6.50" },
      availability: { inStock: true },
      dietary: ["vegan"],
      optionGroups: [],
      identifiers: {},
      sourceUrl: `${site.url}/menu`,
    });
    expect(menu.sections[1].items[0].calories).toBe(640);
    expect(menu.sections[1].items[1].availability).toEqual({ inStock: false });
    expect(body.data.metadata.creditsUsed).toBe(1);
    expect(llm.chats()[0]!.messages[1]!.content).toMatch(/<<<PAGE_CONTENT id=\w+ \(page\)>>>[\s\S]*Bruschetta/);
  });

  test("a page that is not a menu: isMenu false, no sections, the page's title as the merchant", async () => {
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ isMenu: false, confidence: 0.9, sections: [] }) });
    const { body } = await menuOf("/about");
    expect(body.data.menu).toEqual({ isMenu: false, confidence: 0.9, merchant: { name: "About us", type: null }, currency: null, sections: [], sourceUrl: `${site.url}/about` });
  });

  test("without an LLM: 400 LLM_NOT_CONFIGURED naming the format", async () => {
    const bare = await createHarness();
    try {
      const { status, body } = await menuOf("/menu", bare);
      expect(status).toBe(400);
      expect(body.code).toBe("LLM_NOT_CONFIGURED");
      expect(body.error).toContain('"menu" format');
    } finally {
      await bare.close();
    }
  });
});
