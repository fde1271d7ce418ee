/**
 * @module documents/convert
 * Pages of text → the {@link ConvertedDocument} the scrape service renders: furniture dropped, blocks laid out,
 * markdown and HTML produced from the same blocks.
 */
import type { ConvertedDocument } from "./types.ts";
import { layoutBlocks } from "./layout/blocks.ts";
import { removeFurniture } from "./layout/furniture.ts";
import type { Block, PageText } from "./layout/model.ts";
import { blocksToMarkdown } from "./layout/render.ts";
import { blocksToHtml } from "./layout/render-html.ts";

/** Converts laid-out blocks. */
export function convertBlocks(blocks: Block[], metadata: Record<string, unknown>, credits: number): ConvertedDocument {
  const title = typeof metadata.title === "string" ? metadata.title : undefined;
  return { markdown: blocksToMarkdown(blocks), html: blocksToHtml(blocks, title), metadata, credits };
}

/** Options of {@link convertPages} (the PDF parser's `pageMarkers` and `pages`). */
export interface ConvertOptions {
  /** Separate pages in the markdown with `---` and `<!-- page N -->` (between pages, as upstream). */
  pageMarkers?: boolean;
  /** Also give each physical page's own markdown (`document.pages`). */
  pages?: boolean;
}

/** Converts pages of positioned text. */
export function convertPages(pages: PageText[], metadata: Record<string, unknown>, credits: number, options: ConvertOptions = {}): ConvertedDocument {
  const content = removeFurniture(pages);
  const blocks = layoutBlocks(content, options);
  if (metadata.title === undefined) {
    const h = blocks.find((b) => b.kind === "heading");
    if (h && h.kind === "heading") metadata.title = h.content.map((c) => c.text).join("");
  }
  const converted = convertBlocks(blocks, metadata, credits);
  if (options.pages) converted.fields = { pages: pageMarkdowns(content) };
  return converted;
}

/**
 * Each page's markdown on its own. Laid out again with page boundaries (no paragraph runs on across pages), so
 * every physical page has its text, whatever the document markdown stitched together.
 */
function pageMarkdowns(pages: PageText[]): { pageNumber: number; markdown: string }[] {
  const blocks = layoutBlocks(pages, { pageMarkers: true, markFirstPage: true });
  const out: { pageNumber: number; markdown: string }[] = [];
  let current: { pageNumber: number; blocks: Block[] } | undefined;
  const flush = () => current && out.push({ pageNumber: current.pageNumber, markdown: blocksToMarkdown(current.blocks) });
  for (const block of blocks) {
    if (block.kind === "pageMarker") {
      flush();
      current = { pageNumber: block.page, blocks: [] };
    } else current?.blocks.push(block);
  }
  flush();
  return out;
}
