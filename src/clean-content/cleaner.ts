/**
 * @module clean-content/cleaner
 * `onlyCleanContent` (upstream, beta): a pass of the configured LLM over a page's markdown that removes the
 * boilerplate `onlyMainContent` can leave (cookie banners, ads, sharing widgets, breadcrumbs, newsletter prompts,
 * comment sections, related-article lists), keeping headings, lists, tables, code, images and links.
 *
 * The model never writes the markdown: it is shown numbered blocks (clean-content/blocks.ts) and names the ones to
 * drop, and the kept blocks are returned exactly as converted. So the pass cannot rewrite, shorten or invent
 * content, its answer is a few tokens whatever the page's length, and long pages are read in parts. As upstream,
 * a page too long for the pass keeps its markdown, with a warning; so does a page the model would empty, entirely or
 * all but a sliver of its prose ({@link MIN_KEPT_PROSE_SHARE}, {@link MIN_KEPT_PROSE_CHARS}).
 */
import type { LlmClient } from "../llm/client.ts";
import { cleanContentMessages } from "../llm/prompts.ts";
import { llmCallForRun, type LlmLimits, type LlmRun } from "../llm/render-call.ts";
import { joinBlocks, previewParts, splitBlocks } from "./blocks.ts";

/** Extra credits of a page whose markdown the pass read (upstream: 1 more). */
export const ONLY_CLEAN_CONTENT_EXTRA_CREDITS = 1;

/**
 * Model calls one page's pass may make (its blocks in parts of the model's context each); a page needing more keeps
 * its markdown. With the default 8k-token context a part lists ~150 blocks, so this reads pages of ~600 blocks.
 */
export const MAX_CLEAN_PARTS = 4;

/**
 * Blocks a page may have for the pass: beyond this it is skipped before any preview is built (a page of millions of
 * lines must not cost the main thread a second just to learn that it is too long).
 */
export const MAX_CLEAN_BLOCKS = 5_000;

/**
 * Largest share of the page's characters one dropped block may hold. A block that large is most likely the content
 * (or content a broken fence swallowed), whatever the model says: it is kept.
 */
export const MAX_DROPPED_BLOCK_SHARE = 0.5;

/**
 * The kept blocks' least share of the page's prose ({@link proseChars}: text outside links and images); below it, and
 * below {@link MIN_KEPT_PROSE_CHARS}, and the same for its text with link labels counted ({@link textChars}), the page
 * keeps its markdown, with a warning, as when the model marks every block.
 * A model that drops all but "Share this article" emptied the page as surely as one that drops everything, and the
 * client paid for it with no sign of it. Why prose: menus, footers and related lists are mostly links, whose labels
 * would make a short article on a site with a big menu a sliver of the page's text (2.7 % of one such page), though
 * dropping that chrome is what the pass is for; outside links, the same page's article is over a fifth of its prose.
 */
export const MIN_KEPT_PROSE_SHARE = 0.1;

/**
 * Characters of prose the kept blocks hold at least for the share not to matter: a short article (a news brief of
 * two paragraphs) is content whatever the page around it; what the guard is for is a page left with a line or two.
 */
export const MIN_KEPT_PROSE_CHARS = 300;

/**
 * Links and images written inline (`[label](target "title")`, `![alt](src)`), nested brackets in the target allowed;
 * the label (an image's alt text) is captured: replaced by `$1` a link counts as its text, by `""` as nothing.
 */
const INLINE_LINK = /!?\[([^\[\]]*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+"[^"]*")?\)/g;

/**
 * A block's characters of text: links and images as their labels and alt text (targets not counted). What a page
 * whose content is a list of links (an index, downloads, a gallery) keeps, where its prose ({@link proseChars}) is
 * next to nothing: the guard fires only when both measures say the model kept a sliver.
 */
export function textChars(block: string): number {
  return block.replace(INLINE_LINK, "$1").replace(INLINE_LINK, "$1").replace(/\n+/g, "\n").trim().length;
}

/**
 * A block's characters of prose: its text outside links and images (their labels not counted either), less lines
 * left with markup only (a list of links leaves its `- ` markers).
 */
export function proseChars(block: string): number {
  return block
    .replace(INLINE_LINK, "")
    .replace(INLINE_LINK, "") // a linked image: the image inside, then the link around it
    .replace(/^[\s\-*+#>|·•]*$/gm, "")
    .replace(/\n+/g, "\n")
    .trim().length;
}

/** The answer: the numbers of the blocks to drop. */
const REMOVE_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: { remove: { type: "array", items: { type: "integer" } } },
  required: ["remove"],
};

/** What a pass did. */
export interface CleanResult {
  /** The cleaned markdown, or the markdown as given when nothing was removed. */
  markdown: string;
  /** Whether the model read the page (what is charged). */
  ran: boolean;
  /** Blocks removed. */
  removedBlocks: number;
  /** Why the markdown was kept as it was, when the pass could not apply. */
  warning?: string;
}

/** Cleans a page's markdown. */
export interface ContentCleaner {
  /** Throws the LLM's typed errors (timeout, budget, unavailable, rate limited). */
  clean(markdown: string, run: LlmRun): Promise<CleanResult>;
}

/** A cleaner asking `llm`, within the configured LLM limits and the scrape's own deadline. */
export function createContentCleaner(llm: LlmClient, limits: LlmLimits, now: () => number = Date.now): ContentCleaner {
  return {
    async clean(markdown, run) {
      const blocks = splitBlocks(markdown);
      // One block is the page: nothing could be dropped from it without emptying the page.
      if (blocks.length <= 1) return { markdown, ran: false, removedBlocks: 0 };
      const parts = blocks.length > MAX_CLEAN_BLOCKS ? undefined : previewParts(blocks, llm.chunkChars(REMOVE_SCHEMA));
      if (!parts || parts.length > MAX_CLEAN_PARTS) {
        return {
          markdown,
          ran: false,
          removedBlocks: 0,
          warning: `onlyCleanContent was skipped: the markdown has ${blocks.length} blocks (${markdown.length} characters), more than the cleaning pass reads with this model (${MAX_CLEAN_PARTS} parts of its context); it is as onlyMainContent left it.`,
        };
      }
      const call = llmCallForRun(run, limits, now);
      const spent = { tokens: 0 };
      const remove = new Set<number>();
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        const answer = (await llm.structured(cleanContentMessages(p.text, { index: i, count: parts.length }), REMOVE_SCHEMA, call, spent)) as { remove: number[] };
        // Only numbers of this part's own blocks count: a model naming a block it was not shown is guessing.
        for (const n of answer.remove) if (Number.isInteger(n) && n >= p.first && n <= p.last) remove.add(n);
      }
      const total = blocks.reduce((sum, b) => sum + b.length, 0);
      for (const n of remove) if (blocks[n]!.length > total * MAX_DROPPED_BLOCK_SHARE) remove.delete(n);
      if (remove.size === 0) return { markdown, ran: true, removedBlocks: 0 };
      if (remove.size === blocks.length) {
        return { markdown, ran: true, removedBlocks: 0, warning: "onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it as boilerplate." };
      }
      const sliver = (measure: (block: string) => number) => {
        const all = blocks.reduce((sum, b) => sum + measure(b), 0);
        const kept = blocks.reduce((sum, b, i) => (remove.has(i) ? sum : sum + measure(b)), 0);
        return { all, kept, under: kept < all * MIN_KEPT_PROSE_SHARE && kept < MIN_KEPT_PROSE_CHARS };
      };
      const prose = sliver(proseChars);
      const text = prose.under ? sliver(textChars) : undefined;
      if (text?.under) {
        return {
          markdown,
          ran: true,
          removedBlocks: 0,
          warning: `onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but ${blocks.length - remove.size} of ${blocks.length} blocks (${prose.kept} of its ${prose.all} characters of prose outside links, ${text.kept} of its ${text.all} characters of text, each under ${MIN_KEPT_PROSE_SHARE * 100} % and under ${MIN_KEPT_PROSE_CHARS}) as boilerplate.`,
        };
      }
      return { markdown: joinBlocks(blocks.filter((_, i) => !remove.has(i))), ran: true, removedBlocks: remove.size };
    },
  };
}
