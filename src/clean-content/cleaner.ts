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
 * all but a sliver of its prose ({@link MIN_KEPT_PROSE_SHARE}, {@link MIN_KEPT_PROSE_CHARS}), unless its content is
 * links and the kept blocks hold a fair share of them ({@link MAX_LINK_PAGE_PROSE_SHARE}, {@link MIN_KEPT_LINK_TEXT_SHARE}).
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
 * below {@link MIN_KEPT_PROSE_CHARS}, the page keeps its markdown, with a warning, as when the model marks every block
 * (but a page whose content is links: {@link MAX_LINK_PAGE_PROSE_SHARE}).
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
 * The largest share of a page's text ({@link textChars}) its prose may be for the page to read as one whose content
 * is links (an index, a download list, a gallery): its prose is then mostly chrome (a banner, a footer), and a pass
 * that keeps a sliver of it but keeps the links has cleaned the page (in the tests an index's prose is 10 % of its
 * text, a download list's 33 %, a gallery's 30 %). Only then do the kept link labels count: an article's prose is most
 * of its text (66 % in the tests), and a model that kept its "Related" list alone had dropped the article, which the
 * labels of that list (a third of the text) made pass for content, with no warning.
 */
export const MAX_LINK_PAGE_PROSE_SHARE = 0.5;

/**
 * On a page whose content is links ({@link MAX_LINK_PAGE_PROSE_SHARE}) with a sliver of its prose kept, the kept
 * blocks' least share of its text: an index, a download list or a gallery keeps its list (69-91 % of the text in the
 * tests); an article on a site with a big menu (its prose a fifth of its text), whose model kept only its eight
 * related links, kept 9 %.
 */
export const MIN_KEPT_LINK_TEXT_SHARE = 0.25;

/**
 * Links and images written inline (`[label](target "title")`, `![alt](src)`), nested brackets in the target allowed;
 * the label (an image's alt text) is captured: replaced by `$1` a link counts as its text, by `""` as nothing.
 */
const INLINE_LINK = /!?\[([^\[\]]*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+"[^"]*")?\)/g;

/**
 * A block's characters of text: links and images as their labels and alt text (targets not counted). What a page
 * whose content is a list of links (an index, downloads, a gallery) keeps, where its prose ({@link proseChars}) is
 * next to nothing ({@link MAX_LINK_PAGE_PROSE_SHARE}, {@link MIN_KEPT_LINK_TEXT_SHARE}).
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

/** What `measure` counts in all the blocks and in those kept (not in `remove`). */
function measured(blocks: readonly string[], remove: ReadonlySet<number>, measure: (block: string) => number): { all: number; kept: number } {
  let all = 0;
  let kept = 0;
  for (let i = 0; i < blocks.length; i++) {
    const n = measure(blocks[i]!);
    all += n;
    if (!remove.has(i)) kept += n;
  }
  return { all, kept };
}

/**
 * The warning of a pass that would drop the page's content, or undefined: the kept blocks hold a sliver of its prose
 * ({@link MIN_KEPT_PROSE_SHARE}, {@link MIN_KEPT_PROSE_CHARS}) and the page is not one whose content is links
 * ({@link MAX_LINK_PAGE_PROSE_SHARE}) with a fair share of them kept ({@link MIN_KEPT_LINK_TEXT_SHARE}).
 */
export function dropsContent(blocks: readonly string[], remove: ReadonlySet<number>): string | undefined {
  const prose = measured(blocks, remove, proseChars);
  if (prose.kept >= prose.all * MIN_KEPT_PROSE_SHARE || prose.kept >= MIN_KEPT_PROSE_CHARS) return undefined;
  const text = measured(blocks, remove, textChars);
  const linkPage = prose.all <= text.all * MAX_LINK_PAGE_PROSE_SHARE;
  if (linkPage && text.kept >= text.all * MIN_KEPT_LINK_TEXT_SHARE) return undefined;
  const links = linkPage ? `, and on a page mostly of links ${text.kept} of its ${text.all} characters of text, under ${MIN_KEPT_LINK_TEXT_SHARE * 100} %` : "";
  return `onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but ${blocks.length - remove.size} of ${blocks.length} blocks (${prose.kept} of its ${prose.all} characters of prose outside links, under ${MIN_KEPT_PROSE_SHARE * 100} % and under ${MIN_KEPT_PROSE_CHARS}${links}) as boilerplate.`;
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
      const warning = dropsContent(blocks, remove);
      if (warning) return { markdown, ran: true, removedBlocks: 0, warning };
      return { markdown: joinBlocks(blocks.filter((_, i) => !remove.has(i))), ran: true, removedBlocks: remove.size };
    },
  };
}
