/**
 * A plain-text page (scrape/render-context.ts) has no elements: its links and images are empty without parsing
 * it, and its markdown is the text. 8 MB of "<a " once meant millions of escaped entities parsed on the main thread.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

const TEXT = "<a ".repeat(2_700_000); // ~8 MB of what would be tags, were it markup
let h: Harness;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(TEXT, { headers: { "content-type": "text/plain; charset=utf-8" } }) });
  h = await createHarness({ maxPageBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("links and images of a large plain-text page are empty at once; its markdown is the text", async () => {
  const started = performance.now();
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/big.txt`, formats: ["links", "images", "markdown"], maxAge: 0 } });
  const body = (await res.json()) as any;
  expect(res.status).toBe(200);
  expect(body.data.links).toEqual([]);
  expect(body.data.images).toEqual([]);
  expect(body.data.markdown.length).toBe(TEXT.length);
  expect(performance.now() - started).toBeLessThan(2_500);
}, 30_000);
