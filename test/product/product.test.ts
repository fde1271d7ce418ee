/**
 * The `product` format through the API: schema.org JSON-LD (a Product with offers, a list price and availability;
 * a ProductGroup with variants; inside an @graph), Open Graph product tags, and, for a page that declares
 * nothing, the configured LLM (fake Ollama) or, without one, `product: null` with a warning. The official SDK
 * asks for it by name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";

const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const shell = (head: string, body = "<main><h1>Item</h1><p>A product page.</p></main>") => `<!doctype html><html><head><title>Shop</title>${head}</head><body>${body}</body></html>`;

let site: PageSite;
let llm: FakeLlm;
let plain: Harness;
let withLlm: Harness;

beforeAll(async () => {
  site = startPageSite();
  site.set(
    "/kettle",
    shell(
      ld({
        "@context": "https://schema.org",
        "@type": "Product",
        name: "Blue Kettle",
        brand: { "@type": "Brand", name: "Acme" },
        category: ["Kitchen", "Kettles"],
        description: "A 1.7 l kettle.",
        sku: "K-1",
        image: ["/img/kettle.jpg", { "@type": "ImageObject", url: "https://cdn.example.com/k2.jpg", caption: "Side view" }],
        offers: [
          {
            "@type": "Offer",
            price: "24.90",
            priceCurrency: "EUR",
            availability: "https://schema.org/InStock",
            priceSpecification: [{ "@type": "UnitPriceSpecification", priceType: "https://schema.org/ListPrice", price: 29.9, priceCurrency: "EUR" }],
          },
          { "@type": "Offer", sku: "K-1-XL", price: 34, priceCurrency: "EUR", availability: "https://schema.org/OutOfStock" },
        ],
      }),
    ),
  );
  site.set(
    "/shirt",
    shell(
      ld({
        "@context": "https://schema.org",
        "@graph": [
          { "@type": "WebPage", name: "Shirt page" },
          {
            "@type": "ProductGroup",
            name: "Linen Shirt",
            brand: "Flax & Co",
            offers: { "@type": "Offer", priceCurrency: "USD", price: 40, availability: "InStock" },
            hasVariant: [
              { "@type": "Product", name: "Linen Shirt S", sku: "LS-S", size: "S" },
              { "@type": "Product", name: "Linen Shirt M", sku: "LS-M", size: "M", offers: { "@type": "Offer", price: 42, priceCurrency: "USD", availability: "https://schema.org/PreOrder" } },
            ],
          },
        ],
      }),
    ),
  );
  site.set(
    "/og",
    shell(
      `<meta property="og:type" content="product"><meta property="og:title" content="Red Toaster"><meta property="og:image" content="/t.png"><meta property="product:price:amount" content="59.00"><meta property="product:price:currency" content="GBP"><meta property="product:availability" content="in stock"><meta property="product:brand" content="Toastly">`,
    ),
  );
  site.set("/plain", page("Green Teapot", "The Green Teapot costs 18 EUR and is in stock."));
  site.set("/news", page("Weather", "It rained today."));
  llm = startFakeLlm();
  plain = await createHarness();
  withLlm = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await plain.close();
  await withLlm.close();
  site.stop();
  llm.stop();
});

const product = async (path: string, h = plain) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats: ["product"], maxAge: 0 } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
};

describe("product format", () => {
  test("JSON-LD Product: offers become variants with price, sale, availability, images; 1 credit", async () => {
    const data = await product("/kettle");
    expect(data.product).toEqual({
      title: "Blue Kettle",
      brand: "Acme",
      category: "Kitchen > Kettles",
      url: `${site.url}/kettle`,
      description: "A 1.7 l kettle.",
      variants: [
        {
          sku: "K-1",
          title: "Blue Kettle",
          images: [{ url: `${site.url}/img/kettle.jpg` }, { url: "https://cdn.example.com/k2.jpg", alt: "Side view" }],
          price: { amount: 24.9, currency: "EUR", formatted: "€24.90" },
          sale: { originalPrice: { amount: 29.9, currency: "EUR", formatted: "€29.90" } },
          availability: { inStock: true, text: "InStock" },
        },
        {
          sku: "K-1-XL",
          title: "Blue Kettle",
          images: [{ url: `${site.url}/img/kettle.jpg` }, { url: "https://cdn.example.com/k2.jpg", alt: "Side view" }],
          price: { amount: 34, currency: "EUR", formatted: "€34.00" },
          availability: { inStock: false, text: "OutOfStock" },
        },
      ],
    });
    expect(data.metadata.creditsUsed).toBe(1);
    expect(data.markdown).toBeUndefined();
  });

  test("a ProductGroup in an @graph: each variant with its own offer or the group's", async () => {
    const { product: p } = await product("/shirt");
    expect(p).toMatchObject({ title: "Linen Shirt", brand: "Flax & Co", url: `${site.url}/shirt` });
    expect(p.variants).toEqual([
      { sku: "LS-S", title: "Linen Shirt S", values: { size: "S" }, price: { amount: 40, currency: "USD", formatted: "$40.00" }, availability: { inStock: true, text: "InStock" } },
      { sku: "LS-M", title: "Linen Shirt M", values: { size: "M" }, price: { amount: 42, currency: "USD", formatted: "$42.00" }, availability: { inStock: true, text: "PreOrder" } },
    ]);
  });

  test("Open Graph product tags", async () => {
    const { product: p } = await product("/og");
    expect(p).toEqual({
      title: "Red Toaster",
      brand: "Toastly",
      url: `${site.url}/og`,
      variants: [{ price: { amount: 59, currency: "GBP", formatted: "£59.00" }, availability: { inStock: true, text: "in stock" }, images: [{ url: `${site.url}/t.png` }] }],
    });
  });

  test("a page that declares nothing: null and a warning without an LLM; the model reads it with one", async () => {
    const none = await product("/plain");
    expect(none.product).toBeNull();
    expect(none.warning).toContain("no LLM is configured");

    llm.reset();
    llm.respond = (req) => {
      const page = req.messages[1]!.content;
      return /Green Teapot/.test(page)
        ? { content: JSON.stringify({ isProduct: true, title: "Green Teapot", brand: null, category: null, description: null, variants: [{ price: 18, currency: "EUR", inStock: true, availabilityText: "in stock" }] }) }
        : { content: JSON.stringify({ isProduct: false, title: "", variants: [] }) };
    };
    const read = await product("/plain", withLlm);
    expect(read.product).toEqual({ title: "Green Teapot", url: `${site.url}/plain`, variants: [{ price: { amount: 18, currency: "EUR", formatted: "€18.00" }, availability: { inStock: true, text: "in stock" } }] });
    expect(llm.chats()[0]!.messages[1]!.content).toMatch(/<<<PAGE_CONTENT id=\w+ \(page\)>>>[\s\S]*Green Teapot/);
    const news = await product("/news", withLlm);
    expect(news.product).toBeNull();
    expect(news.warning).toContain("does not present a product");
    // Structured data needs no model call.
    llm.reset();
    expect((await product("/kettle", withLlm)).product.title).toBe("Blue Kettle");
    expect(llm.chats()).toHaveLength(0);
  });

  test("hostile data: bounded output with a warning, odd types ignored, text prices that are not numbers dropped, only web URLs", async () => {
    const offers = Array.from({ length: 2000 }, (_, i) => ({ "@type": "Offer", price: i + 1, priceCurrency: "USD" }));
    site.set("/bomb", shell(ld({ "@type": "ProductGroup", name: "Bomb", offers, image: Array.from({ length: 2000 }, (_, i) => `/i${i}.png`), hasVariant: Array.from({ length: 2000 }, () => ({})) })));
    const started = performance.now();
    const bomb = await product("/bomb");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(bomb.product.variants).toHaveLength(250);
    expect(bomb.product.variants[0].images).toHaveLength(20);
    expect(bomb.warning).toContain("more than 250 product variants");

    site.set("/odd", shell(ld({ "@type": { toString: 1 }, name: "x" }) + ld({ "@type": "Product", name: "Odd", url: "javascript:alert(1)", image: ["data:image/png;base64,AA", "/ok.png"], offers: { price: "Sold out", priceSpecification: { priceType: { valueOf: 1 }, price: 3 } } })));
    const odd = await product("/odd");
    expect(odd.product).toEqual({ title: "Odd", url: `${site.url}/odd`, variants: [{ title: "Odd", images: [{ url: `${site.url}/ok.png` }], availability: { inStock: false } }] });

    site.set("/eu", shell(`<meta property="og:type" content="product"><meta property="og:title" content="Sofa"><meta property="product:price:amount" content="1.299,00"><meta property="product:price:currency" content="EUR">`));
    expect((await product("/eu")).product.variants[0].price).toEqual({ amount: 1299, currency: "EUR", formatted: "€1,299.00" });
    // A dot is a decimal point unless it groups thousands beyond doubt: three-decimal dinars stay dinars.
    site.set("/kwd", shell(`<meta property="og:type" content="product"><meta property="og:title" content="Dates"><meta property="product:price:amount" content="1.250"><meta property="product:price:currency" content="KWD">`));
    expect((await product("/kwd")).product.variants[0].price.amount).toBe(1.25);
    // A group whose offers yield nothing is read once, not once per variant.
    const empty = Array.from({ length: 500 }, () => ({ "@type": "AggregateOffer", offers: Array.from({ length: 500 }, (_, i) => i) }));
    site.set("/empty-offers", shell(ld({ "@type": "ProductGroup", name: "Empty", offers: empty, hasVariant: Array.from({ length: 500 }, () => ({})) })));
    const t0 = performance.now();
    expect((await product("/empty-offers")).product.variants).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(1_000);
    site.set("/gone", shell(`<meta property="og:type" content="product"><meta property="og:title" content="Lamp"><meta property="product:price:amount" content="Sold out">`));
    expect((await product("/gone")).product.variants).toEqual([]);
  });

  test("the official SDK asks for it by name", async () => {
    const app = new Firecrawl({ apiKey: plain.key, apiUrl: plain.listen() });
    const doc: any = await app.scrape(`${site.url}/og`, { formats: ["product", "markdown"] });
    expect(doc.product.title).toBe("Red Toaster");
    expect(doc.markdown).toContain("Item");
  });
});
