/**
 * @module api/parsers
 * The `parsers` option (api-v2.md §2.2, §6.7): which document parsers run on non-HTML responses. Strings and
 * objects are both accepted (`"pdf"`, `{type:"pdf", mode:"ocr", maxPages:5}`, `"image"`); {@link normalizeParsers}
 * turns them into objects with `mode` defaulting to `auto`. `[]` means "no parsing": a PDF comes back as base64.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, Int } from "./common.ts";

/** Upper bound of `maxPages`. */
export const MAX_PDF_PAGES = 10_000;

export const PdfParserSchema = strictObject({
  type: t.Literal("pdf"),
  mode: t.Optional(oneOf(["fast", "auto", "ocr"], { default: "auto" })),
  maxPages: t.Optional(Int({ minimum: 1, maximum: MAX_PDF_PAGES })),
  pages: t.Optional(t.Boolean()),
  /** Deprecated alias of `pages` ([LATEST] SDK). */
  pageMarkdown: t.Optional(t.Boolean()),
  blocks: t.Optional(t.Boolean()),
  pageMarkers: t.Optional(t.Boolean()),
});
export const ImageParserSchema = strictObject({ type: t.Literal("image") });

/** One parser, as sent. */
export const ParserInputSchema = t.Union([oneOf(["pdf", "image"]), PdfParserSchema, ImageParserSchema]);

/** Default parsers ([LATEST]: PDFs and images). */
export const DEFAULT_PARSERS = ["pdf", "image"] as const;

export const ParsersField = t.Array(ParserInputSchema, { default: [...DEFAULT_PARSERS] });

export type ParserInput = Static<typeof ParserInputSchema>;
/** A normalised PDF parser: `mode` always set; `pages` folds in the deprecated `pageMarkdown`. */
export interface PdfParser {
  type: "pdf";
  mode: "fast" | "auto" | "ocr";
  maxPages?: number;
  pages?: boolean;
  blocks?: boolean;
  pageMarkers?: boolean;
}
export interface ImageParser {
  type: "image";
}
export type Parser = PdfParser | ImageParser;

/** `"pdf"` and `{type:"pdf"}` → `{type:"pdf", mode:"auto"}`; `"image"` → `{type:"image"}`. Later duplicates win. */
export function normalizeParsers(parsers: readonly ParserInput[]): Parser[] {
  const byType = new Map<string, Parser>();
  for (const p of parsers) {
    if (p === "pdf" || (typeof p === "object" && p.type === "pdf")) {
      const o = typeof p === "object" ? (p as Static<typeof PdfParserSchema>) : { type: "pdf" as const };
      const out: PdfParser = { type: "pdf", mode: o.mode ?? "auto" };
      if (o.maxPages !== undefined) out.maxPages = o.maxPages;
      const pages = o.pages ?? o.pageMarkdown;
      if (pages !== undefined) out.pages = pages;
      if (o.blocks !== undefined) out.blocks = o.blocks;
      if (o.pageMarkers !== undefined) out.pageMarkers = o.pageMarkers;
      byType.set("pdf", out);
    } else {
      byType.set("image", { type: "image" });
    }
  }
  return [...byType.values()];
}
