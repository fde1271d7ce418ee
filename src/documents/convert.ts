/**
 * @module documents/convert
 * Pages of text → the {@link ConvertedDocument} the scrape service renders: furniture dropped, blocks laid out,
 * markdown and HTML produced from the same blocks.
 */
import type { ConvertedDocument } from "./types.ts";
import { layoutBlocks } from "./layout/blocks.ts";
import { removeFurniture } from "./layout/furniture.ts";
import type { Block, PageText } from "./layout/model.ts";
import { blocksToHtml, blocksToMarkdown } from "./layout/render.ts";

/** Converts laid-out blocks. */
export function convertBlocks(blocks: Block[], metadata: Record<string, unknown>, credits: number): ConvertedDocument {
  const title = typeof metadata.title === "string" ? metadata.title : undefined;
  return { markdown: blocksToMarkdown(blocks), html: blocksToHtml(blocks, title), metadata, credits };
}

/** Converts pages of positioned text. */
export function convertPages(pages: PageText[], metadata: Record<string, unknown>, credits: number, options: { pageMarkers?: boolean } = {}): ConvertedDocument {
  const blocks = layoutBlocks(removeFurniture(pages), options);
  if (metadata.title === undefined) {
    const h = blocks.find((b) => b.kind === "heading");
    if (h && h.kind === "heading") metadata.title = h.content.map((c) => c.text).join("");
  }
  return convertBlocks(blocks, metadata, credits);
}
