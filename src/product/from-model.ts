/**
 * @module product/from-model
 * The `product` format's second source: the configured LLM reads a page that declares no product in structured
 * data (product/structured-data.ts) and fills the SDK's `ProductProfile`, or says the page is not a product.
 * The page goes to the model as delimited data (llm/prompts.ts), only its first part: a product page leads with
 * its product.
 */
import { leadingWithin } from "../llm/chunk.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { nullable } from "../llm/schema.ts";
import { price, type ProductProfile, type ProductVariant } from "./structured-data.ts";

/** What the model answers. */
export const PRODUCT_SCHEMA = {
  type: "object",
  properties: {
    isProduct: { type: "boolean", description: "true only when the page presents one product for sale" },
    title: { type: "string" },
    brand: nullable("string"),
    category: nullable("string"),
    description: nullable("string"),
    variants: {
      type: "array",
      items: {
        type: "object",
        properties: {
          sku: nullable("string"),
          title: nullable("string"),
          options: { type: "object", description: "what tells this variant apart, e.g. {\"color\": \"red\", \"size\": \"M\"}" },
          price: nullable("number"),
          originalPrice: { ...nullable("number"), description: "the price before a reduction, when one is shown" },
          currency: { ...nullable("string"), description: "ISO 4217 code" },
          inStock: nullable("boolean"),
          availabilityText: nullable("string"),
        },
        required: ["price", "inStock"],
      },
    },
  },
  required: ["isProduct", "title", "variants"],
} as const;

const PROMPT =
  "Describe the product this page sells: its name, brand, category, description, and each variant a buyer can choose (one variant when there are no choices), with its price, currency and availability exactly as the page states them. If the page does not present one product for sale (a category listing, an article, a home page), answer isProduct false.";

type Answer = {
  isProduct: boolean;
  title: string;
  brand?: string | null;
  category?: string | null;
  description?: string | null;
  variants: { sku?: string | null; title?: string | null; options?: Record<string, unknown>; price?: number | null; originalPrice?: number | null; currency?: string | null; inStock?: boolean | null; availabilityText?: string | null }[];
};

/** The product the model reads in `markdown`, or undefined when it says the page is not one. */
export async function productFromModel(llm: LlmClient, markdown: string, pageUrl: string, call: LlmCall): Promise<ProductProfile | undefined> {
  // The first part as the extraction below sizes its parts (prompt and repair turn counted), so it is one call.
  const content = leadingWithin(markdown, llm.chunkChars(PRODUCT_SCHEMA as unknown as Record<string, unknown>, { prompt: PROMPT, repair: true, callerSchema: true }));
  const { value } = await llm.extract({ content, schema: PRODUCT_SCHEMA as unknown as Record<string, unknown>, prompt: PROMPT }, call);
  const a = value as Answer;
  if (!a.isProduct || !a.title?.trim()) return undefined;
  const variants: ProductVariant[] = a.variants.map((v) => {
    const current = price(v.price, v.currency);
    const original = price(v.originalPrice, v.currency);
    return {
      ...(v.sku ? { sku: v.sku } : {}),
      ...(v.title ? { title: v.title } : {}),
      ...(v.options && Object.keys(v.options).length > 0 ? { values: v.options } : {}),
      ...(current ? { price: current } : {}),
      ...(original && current && original.amount > current.amount ? { sale: { originalPrice: original } } : {}),
      availability: { inStock: v.inStock ?? current !== undefined, ...(v.availabilityText ? { text: v.availabilityText } : {}) },
    };
  });
  return {
    title: a.title.trim(),
    ...(a.brand ? { brand: a.brand } : {}),
    ...(a.category ? { category: a.category } : {}),
    url: pageUrl,
    ...(a.description ? { description: a.description } : {}),
    variants,
  };
}
