/**
 * One page, every place `redactPII` reaches (redact/stage.ts, redact/json-strings.ts), through the API: the escaped
 * address of a link and a phone with an alternate ending redact alike in the `markdown` and in `product`'s strings
 * read from structured data, while `html` and `links` keep the page as served and the warning says so (the module's
 * contract, as upstream: markdown and what is built from it).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

const DESCRIPTION = "Questions? mailto:jane%40example.com or tel:%2B49%2030%201234567, Zentrale +49 30 1234567/8 ab 2,99 €.";
const PAGE = `<!doctype html><html><head><title>Shop</title><script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Red Kettle",
  description: DESCRIPTION,
  offers: { "@type": "Offer", price: "24.90", priceCurrency: "EUR" },
})}</script></head><body><main><h1>Red Kettle</h1>
<p>Write to <a href="mailto:jane%40example.com">our team</a>, <a href="https://x.test/contact?email=jane%40example.com&amp;utm_source=shop">the form</a> or call <a href="tel:+49 30 1234567">the shop</a>.</p>
<p>Zentrale +49 30 1234567/8 ab 2,99 €.</p></main></body></html>`;

beforeAll(async () => {
  site = startPageSite();
  site.set("/kettle", PAGE);
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

test("markdown and product's strings redact alike; html and links keep the page as served, as the warning says", async () => {
  const res = await h.request("/v2/scrape", {
    method: "POST",
    json: { url: `${site.url}/kettle`, maxAge: 0, formats: ["markdown", "product", "html", "links"], redactPII: { mode: "fast" } },
  });
  expect(res.status).toBe(200);
  const data = ((await res.json()) as any).data;

  expect(data.markdown).toContain("Write to [our team](mailto:<EMAIL>), [the form](https://x.test/contact?email=<EMAIL>&utm_source=shop) or call [the shop](tel:<PHONE>).");
  expect(data.markdown).toContain("Zentrale <PHONE> ab 2,99 €.");
  expect(data.product.description).toBe("Questions? mailto:<EMAIL> or tel:<PHONE>, Zentrale <PHONE> ab 2,99 €.");
  for (const leaked of ["jane", "1234567"]) {
    expect(data.markdown).not.toContain(leaked);
    expect(JSON.stringify(data.product)).not.toContain(leaked);
  }

  expect(data.html).toContain('href="mailto:jane%40example.com"');
  expect(data.links).toContain("mailto:jane%40example.com");
  expect(data.warning).toBe("redactPII redacts the markdown (and what is built from it) only; html, links still hold the page as served.");
  expect(llm.chats()).toHaveLength(0);
});
