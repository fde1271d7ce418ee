/**
 * A page's own `<meta>` tags cannot set the metadata fields only crawlbox sets (`error`, `cachedAt`,
 * `concurrencyLimited`, …): clients read `metadata.error` as "this page failed". Other `<meta>` names are still
 * reported, as upstream does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(
        `<html><head><title>Meta</title><meta name="error" content="not really"><meta name="cachedAt" content="yesterday"><meta name="concurrencyLimited" content="yes"><meta name="author" content="Ada"></head><body><main><h1>Meta</h1><p>A page whose meta tags use reserved names.</p></main></body></html>`,
        { headers: { "content-type": "text/html" } },
      ),
  });
  h = await createHarness();
});

afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("reserved metadata names from the page are dropped; other meta names stay", async () => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/`, maxAge: 0 } });
  const { data } = (await res.json()) as any;
  expect(data.metadata.error).toBeUndefined();
  expect(data.metadata.cachedAt).toBeUndefined();
  expect(data.metadata.concurrencyLimited).toBe(false);
  expect(data.metadata.author).toBe("Ada");
  expect(data.metadata.statusCode).toBe(200);
});
