/**
 * @module product/menu
 * The `menu` format's reading of a page: the configured LLM says whether the page is a menu (a restaurant's, a
 * café's, a takeaway's) and lists its sections and items with prices, dietary labels and calories, as the SDK's
 * `MenuProfile`. The page is delimited data (llm/prompts.ts); long menus are read part by part and merged.
 * crawlbox adds what the model should not invent: ids, the source URL, formatted prices.
 */
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { nullable } from "../llm/schema.ts";
import { price } from "./structured-data.ts";

/** What the model answers. */
export const MENU_SCHEMA = {
  type: "object",
  properties: {
    isMenu: { type: "boolean", description: "true when the page lists food or drink a venue sells, with or without prices" },
    confidence: { type: "number", minimum: 0, maximum: 1 },
    merchantName: nullable("string"),
    merchantType: { ...nullable("string"), description: "restaurant, cafe, bar, bakery, takeaway, …" },
    currency: { ...nullable("string"), description: "ISO 4217 code" },
    sections: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          description: nullable("string"),
          items: {
            type: "array",
            items: {
              type: "object",
              properties: {
                name: { type: "string" },
                description: nullable("string"),
                price: nullable("number"),
                dietary: { type: "array", items: { type: "string" }, description: "labels the page gives: vegan, vegetarian, gluten-free, spicy, …" },
                calories: nullable("number"),
                available: nullable("boolean"),
              },
              required: ["name"],
            },
          },
        },
        required: ["name", "items"],
      },
    },
  },
  required: ["isMenu", "confidence", "sections"],
} as const;

const PROMPT =
  "Read the menu on this page: the venue, and each section with its items (name, description, price as a number, the dietary labels and calories the page gives, and whether the item is available). Keep the page's order and wording. If the page is not a menu, answer isMenu false with no sections.";

type Item = { name: string; description?: string | null; price?: number | null; dietary?: string[]; calories?: number | null; available?: boolean | null };
type Answer = { isMenu: boolean; confidence: number; merchantName?: string | null; merchantType?: string | null; currency?: string | null; sections: { name: string; description?: string | null; items: Item[] }[] };

/** The SDK's `MenuProfile` of a page. */
export interface MenuProfile {
  isMenu: boolean;
  confidence: number;
  merchant: { name: string; type?: string | null };
  currency?: string | null;
  sections: { id: string; name: string; description?: string; items: Record<string, unknown>[] }[];
  sourceUrl: string;
}

/** The menu the model reads in `markdown` (isMenu false, no sections, when it is not one). */
export async function menuFromModel(llm: LlmClient, markdown: string, pageUrl: string, title: string | undefined, call: LlmCall): Promise<MenuProfile> {
  const { value } = await llm.extract({ content: markdown, schema: MENU_SCHEMA as unknown as Record<string, unknown>, prompt: PROMPT }, call);
  const a = value as Answer;
  const currency = a.currency?.trim().toUpperCase() || null;
  const sections = a.isMenu
    ? a.sections.map((s, i) => ({
        id: `section-${i + 1}`,
        name: s.name,
        ...(s.description ? { description: s.description } : {}),
        items: s.items.map((it, j) => {
          const p = price(it.price, currency);
          return {
            id: `section-${i + 1}-item-${j + 1}`,
            name: it.name,
            ...(it.description ? { description: it.description } : {}),
            images: [],
            ...(p ? { price: p } : {}),
            availability: { inStock: it.available ?? true },
            dietary: it.dietary ?? [],
            ...(typeof it.calories === "number" ? { calories: it.calories } : {}),
            optionGroups: [],
            identifiers: {},
            sourceUrl: pageUrl,
          };
        }),
      }))
    : [];
  return {
    isMenu: a.isMenu && sections.some((s) => s.items.length > 0),
    confidence: Math.min(1, Math.max(0, Number(a.confidence) || 0)),
    merchant: { name: a.merchantName?.trim() || title || new URL(pageUrl).hostname, type: a.merchantType ?? null },
    currency,
    sections,
    sourceUrl: pageUrl,
  };
}
