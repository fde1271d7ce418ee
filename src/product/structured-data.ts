/**
 * @module product/structured-data
 * The `product` format's deterministic source: the product a page declares for machines, read without a model.
 * First schema.org JSON-LD (`Product`, or a `ProductGroup` with `hasVariant`, anywhere in a script's graph), whose
 * offers become variants (price, currency, availability, SKU, a list price as the sale's original price); else
 * the Open Graph product tags (`og:type` product, `product:price:amount`, …). Shapes follow the SDK's
 * `ProductProfile`. A page's data is hostile input: values of the wrong type are ignored, URLs must be http(s),
 * and the output is bounded ({@link MAX_VARIANTS} variants, {@link MAX_IMAGES} images each), with a warning when
 * the page declared more.
 */
import { absoluteUrl } from "../pipeline/url.ts";

/** Most variants reported (a group's variants times its offers can multiply). */
export const MAX_VARIANTS = 250;
/** Most images reported per variant. */
export const MAX_IMAGES = 20;
/** Most offers read per product, and variants per group. */
const MAX_READ = 500;

/** A price as the SDK reports it. */
export interface ProductPrice {
  amount: number;
  currency?: string;
  formatted?: string;
}

/** One purchasable variant. */
export interface ProductVariant {
  id?: string;
  sku?: string;
  title?: string;
  values?: Record<string, unknown>;
  price?: ProductPrice;
  sale?: { originalPrice: ProductPrice };
  availability: { inStock: boolean; text?: string };
  images?: { url: string; alt?: string }[];
}

/** The `data.product` of a scrape (the SDK's `ProductProfile`). */
export interface ProductProfile {
  title: string;
  brand?: string;
  category?: string;
  url: string;
  description?: string;
  variants: ProductVariant[];
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.slice(0, MAX_READ) : [v]);
/** A string or number as text; anything else (objects with their own toString among them) is nothing. */
const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const text = (v: unknown): string | undefined => {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number") return String(v);
  if (isNode(v)) return text(v.name ?? v["@value"]);
  return undefined;
};
const typesOf = (n: Node) => list(n["@type"]).map((t) => str(t).replace(/^(?:https?:\/\/schema\.org\/|schema:)/i, ""));
/** An absolute http(s) URL, or nothing (`javascript:` and `data:` URLs are not handed to clients). */
const webUrl = (raw: string | undefined, base: string) => {
  const u = raw ? absoluteUrl(raw, base) : undefined;
  return u && /^https?:/i.test(u) ? u : undefined;
};
const formatters = new Map<string, Intl.NumberFormat | null>();

/** schema.org availability values that mean the item can be bought now (or ordered). */
const IN_STOCK = /(InStock|InStoreOnly|OnlineOnly|LimitedAvailability|PreOrder|PreSale|BackOrder)$/i;

/**
 * A price written as text ("24.90", "1,299.00", "1.299,00", "€ 12,50", "1.250" dinars); undefined when it holds no
 * number ("Sold out"). A dot is a decimal point (schema.org's) unless it groups thousands beyond doubt: before a
 * comma's decimals ("1.299,00") or more than once ("1.299.000").
 */
function amountOf(raw: string): number | undefined {
  const s = raw.replace(/[^\d.,-]/g, "");
  if (!/\d/.test(s)) return undefined;
  let norm = s;
  const europeanGroups = /^-?\d{1,3}(\.\d{3})+,\d+$/.test(s) || /^-?\d{1,3}(\.\d{3}){2,}(,\d+)?$/.test(s);
  if (europeanGroups || /^-?\d+,\d{1,2}$/.test(s)) norm = s.replace(/\./g, "").replace(",", ".");
  else norm = s.replace(/,/g, "");
  const n = Number(norm);
  return Number.isFinite(n) ? n : undefined;
}

/** `amount` in `currency`, formatted as a shop would show it (undefined when the currency is not a known code). */
export function price(amount: unknown, currency: unknown): ProductPrice | undefined {
  const n = typeof amount === "number" ? (Number.isFinite(amount) ? amount : undefined) : typeof amount === "string" ? amountOf(amount) : undefined;
  if (n === undefined) return undefined;
  const code = text(currency)?.toUpperCase();
  const out: ProductPrice = { amount: n, ...(code ? { currency: code } : {}) };
  if (code && /^[A-Z]{3}$/.test(code)) {
    if (!formatters.has(code)) {
      try {
        formatters.set(code, new Intl.NumberFormat("en", { style: "currency", currency: code }));
      } catch {
        formatters.set(code, null); // not a currency Intl knows: the amount and code stand on their own
      }
    }
    const f = formatters.get(code);
    if (f) out.formatted = f.format(n);
  }
  return out;
}

/** Every JSON-LD node of the page, `@graph`s and nested arrays flattened; unparsable scripts are skipped. */
function jsonLdNodes(doc: Document): Node[] {
  const nodes: Node[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 6) return;
    for (const item of list(v)) {
      if (!isNode(item)) continue;
      nodes.push(item);
      if (item["@graph"] !== undefined) visit(item["@graph"], depth + 1);
    }
  };
  for (const script of doc.querySelectorAll('script[type="application/ld+json" i]')) {
    const raw = (script.textContent ?? "").replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[)|(?:-->|\/\/\s*\]\]>)\s*$/g, "").trim();
    if (!raw) continue;
    try {
      visit(JSON.parse(raw), 0);
    } catch {
      // a page's broken JSON-LD is its own business
    }
  }
  return nodes;
}

function images(v: unknown, base: string): { url: string; alt?: string }[] {
  return list(v).slice(0, MAX_IMAGES).flatMap((img) => {
    const raw = typeof img === "string" ? img : isNode(img) ? text(img.url ?? img.contentUrl) : undefined;
    const url = webUrl(raw, base);
    if (!url) return [];
    const alt = isNode(img) ? text(img.caption ?? img.name) : undefined;
    return [{ url, ...(alt ? { alt } : {}) }];
  });
}

/** A node's offers, an AggregateOffer's own offers in its place, at most {@link MAX_READ}. */
function offersOf(node: Node): Node[] {
  return list(node.offers)
    .filter(isNode)
    .flatMap((o) => (typesOf(o).includes("AggregateOffer") && o.offers ? list(o.offers).filter(isNode) : [o]))
    .slice(0, MAX_READ);
}

/**
 * The variants of one offer-carrying node (a Product, or one variant of a ProductGroup, with `offers` read once
 * for the group), at most `room` of them.
 */
function variantsOf(product: Node, offersRead: Node[], base: string, inherited: { sku?: string; images: { url: string; alt?: string }[] }, room: number): ProductVariant[] {
  const offers = offersRead.slice(0, Math.max(0, room));
  const own = images(product.image, base);
  const imgs = own.length > 0 ? own : inherited.images;
  const sku = text(product.sku) ?? inherited.sku;
  const title = text(product.name);
  const values: Record<string, unknown> = {};
  for (const key of ["color", "size", "material", "pattern"]) if (text(product[key])) values[key] = text(product[key]);
  for (const p of list(product.additionalProperty).filter(isNode)) if (text(p.name) && p.value !== undefined) values[text(p.name)!] = p.value;
  const base0 = { ...(sku ? { sku } : {}), ...(title ? { title } : {}), ...(Object.keys(values).length ? { values } : {}), ...(imgs.length ? { images: imgs } : {}) };
  if (offers.length === 0) return [];
  return offers.map((o) => {
    const specs = list(o.priceSpecification).filter(isNode);
    const current = price(o.price ?? o.lowPrice ?? specs.find((s) => !/ListPrice|StrikethroughPrice/i.test(str(s.priceType)))?.price, o.priceCurrency ?? specs[0]?.priceCurrency);
    const listed = specs.find((s) => /ListPrice|StrikethroughPrice/i.test(str(s.priceType)));
    const original = listed ? price(listed.price, listed.priceCurrency ?? o.priceCurrency) : undefined;
    const availability = text(o.availability);
    const v: ProductVariant = {
      ...base0,
      ...(text(o.sku) ? { sku: text(o.sku) } : {}),
      ...(current ? { price: current } : {}),
      ...(original && current && original.amount > current.amount ? { sale: { originalPrice: original } } : {}),
      availability: availability ? { inStock: IN_STOCK.test(availability), text: availability.replace(/^.*\//, "") } : { inStock: current !== undefined },
    };
    return v;
  });
}

/** The product of the page's JSON-LD, if it declares one. */
function fromJsonLd(doc: Document, pageUrl: string, base: string): ProductProfile | undefined {
  const node = jsonLdNodes(doc).find((n) => typesOf(n).some((t) => t === "Product" || t === "ProductGroup"));
  if (!node) return undefined;
  const title = text(node.name);
  if (!title) return undefined;
  const inherited = { sku: text(node.sku), images: images(node.image, base) };
  // One more than reported, so that a page that declared more is known to have (and said so).
  const room = MAX_VARIANTS + 1;
  let variants: ProductVariant[] = [];
  if (typesOf(node).includes("ProductGroup") && node.hasVariant) {
    const groupOffers = offersOf(node);
    for (const v of list(node.hasVariant).filter(isNode)) {
      if (variants.length >= room) break;
      const own = v.offers === undefined ? groupOffers : offersOf(v);
      variants = variants.concat(variantsOf(v, own, base, inherited, room - variants.length));
    }
  } else variants = variantsOf(node, offersOf(node), base, inherited, room);
  const brand = text(node.brand ?? node.manufacturer);
  const category = list(node.category).map(text).filter(Boolean).join(" > ") || undefined;
  const description = text(node.description);
  const url = webUrl(text(node.url), base) ?? pageUrl;
  return { title, ...(brand ? { brand } : {}), ...(category ? { category } : {}), url, ...(description ? { description } : {}), variants };
}

/** The product of the page's Open Graph product tags, if it has them. */
function fromOpenGraph(doc: Document, pageUrl: string, base: string): ProductProfile | undefined {
  const meta = (name: string) => doc.querySelector(`meta[property="${name}" i], meta[name="${name}" i]`)?.getAttribute("content")?.trim() || undefined;
  const amount = meta("product:price:amount") ?? meta("og:price:amount");
  if (meta("og:type")?.toLowerCase() !== "product" && amount === undefined) return undefined;
  const title = meta("og:title") ?? doc.querySelector("title")?.textContent?.trim();
  if (!title) return undefined;
  const current = price(amount, meta("product:price:currency") ?? meta("og:price:currency"));
  const availability = meta("product:availability") ?? meta("og:availability");
  const image = meta("og:image");
  const variant: ProductVariant = {
    ...(current ? { price: current } : {}),
    availability: availability ? { inStock: /^(in ?stock|instock|available for order|preorder)$/i.test(availability), text: availability } : { inStock: current !== undefined },
    ...(webUrl(image, base) ? { images: [{ url: webUrl(image, base)! }] } : {}),
  };
  const brand = meta("product:brand") ?? meta("og:brand");
  const description = meta("og:description");
  const url = webUrl(meta("og:url"), base) ?? pageUrl;
  return { title, ...(brand ? { brand } : {}), url, ...(description ? { description } : {}), variants: current || availability ? [variant] : [] };
}

/**
 * The product a page declares (JSON-LD first, then Open Graph), or undefined; `truncated` when it declared more
 * variants than {@link MAX_VARIANTS}.
 */
export function productFromStructuredData(doc: Document, pageUrl: string, baseUrl: string): { product: ProductProfile; truncated: boolean } | undefined {
  const product = fromJsonLd(doc, pageUrl, baseUrl) ?? fromOpenGraph(doc, pageUrl, baseUrl);
  if (!product) return undefined;
  const truncated = product.variants.length > MAX_VARIANTS;
  if (truncated) product.variants = product.variants.slice(0, MAX_VARIANTS);
  return { product, truncated };
}
