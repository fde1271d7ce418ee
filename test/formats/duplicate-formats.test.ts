/**
 * A format type given twice in one request is rendered and charged once, from its first entry, as upstream reads a
 * format with `formats.find`: two `changeTracking` entries write one history and answer the first tag's, and two
 * `json` entries cost one model call; a second `attributes` entry's selectors never run.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

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

const scrape = async (formats: unknown[]) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/twice`, formats } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
};

test("two changeTracking entries: the first tag's history is written and answered, the second's is not", async () => {
  site.set("/twice", page("Twice", "This is version one of the page asked for twice."));
  await scrape(["markdown", { type: "changeTracking", tag: "first" }, { type: "changeTracking", tag: "second" }]);
  site.set("/twice", page("Twice", "This is version two of the page asked for twice."));
  const both = await scrape(["markdown", { type: "changeTracking", tag: "first", modes: ["git-diff"] }, { type: "changeTracking", tag: "second" }]);
  // The first entry's options: its tag's history (changed) and its git-diff mode.
  expect(both.changeTracking.changeStatus).toBe("changed");
  expect(both.changeTracking.diff.text).toContain("+This is version two");
  // The second tag never got a history of its own.
  const second = await scrape(["markdown", { type: "changeTracking", tag: "second" }]);
  expect(second.changeTracking.changeStatus).toBe("new");
});

test("two json entries: one model call, charged once", async () => {
  site.set("/twice", page("Twice", "A kettle costs 20 EUR."));
  const calls = llm.chats().length;
  const doc = await scrape([{ type: "json", prompt: "the price" }, { type: "json", prompt: "the name" }]);
  expect(doc.json).toBeDefined();
  expect(llm.chats().length - calls).toBe(1);
  expect(doc.metadata.creditsUsed).toBe(5);
});

test("two attributes entries: only the first's selectors run (a costly second one does not time the scrape out)", async () => {
  site.set("/attrs", `<html><body>${'<div class="row" data-n="1">x</div>'.repeat(1000)}</body></html>`);
  const res = await h.request("/v2/scrape", {
    method: "POST",
    json: {
      url: `${site.url}/attrs`,
      timeout: 3000,
      formats: [
        { type: "attributes", selectors: [{ selector: "div.row", attribute: "data-n" }] },
        // Cubic in the page's sibling elements: seconds on these 1,000 <div>.
        { type: "attributes", selectors: [{ selector: "div:has(~ div:has(~ span))", attribute: "class" }] },
      ],
    },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body.data.attributes).toEqual([{ selector: "div.row", attribute: "data-n", values: Array(1000).fill("1") }]);
});
