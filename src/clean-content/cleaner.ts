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
 * all but a sliver of its content ({@link dropsContent}): its prose outside link lists, or on a page of links its text.
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
 * The kept blocks' least share of what the guard measures ({@link dropsContent}); below it, and below
 * {@link MIN_KEPT_PROSE_CHARS}, the page keeps its markdown, with a warning, as when the model marks every block.
 * A model that drops all but "Share this article" emptied the page as surely as one that drops everything, and the
 * client paid for it with no sign of it.
 */
export const MIN_KEPT_PROSE_SHARE = 0.1;

/**
 * Characters the kept blocks hold at least for the share not to matter: a short article (a news brief of two
 * paragraphs) is content whatever the page around it; what the guard is for is a page left with a line or two.
 */
export const MIN_KEPT_PROSE_CHARS = 300;

/**
 * The largest share of a block's text ({@link textChars}) its prose ({@link proseChars}) may be for the block to be
 * link-dense, a link list: a menu, a "Related" list, a gallery, a footer of links. Lists are measured apart from the
 * page's prose, each on its own: judged on the whole page, a menu of 140 links made every page one of links, so an
 * article whose model kept only the menu (0 of its 1,274 characters of prose) passed, and an API reference whose
 * model kept its 20 endpoints (544 of 4,005 characters of text, 14 %) was kept whole, with a warning.
 */
export const MAX_LINK_DENSE_PROSE_SHARE = 0.5;

/**
 * Characters of prose outside link lists ({@link MAX_LINK_DENSE_PROSE_SHARE}) from which a page has prose of its own
 * (an article of three paragraphs or more: 880-1,274 in the tests), and a pass that keeps a sliver of it dropped the
 * content whatever lists it kept. Below it the page's prose may be its chrome (a cookie banner and a footer: 302 in
 * the tests, 41 on the API reference) and its content its lists (an index, downloads, a gallery), so the guard also
 * needs a sliver of the lists' text kept before it fires.
 */
export const MIN_CONTENT_PROSE_CHARS = 600;

/**
 * Links and images written inline (`[label](target "title")`, `![alt](src)`), nested brackets in the target allowed;
 * the label (an image's alt text) is captured: replaced by `$1` a link counts as its text, by `""` as nothing.
 */
const INLINE_LINK = /!?\[([^\[\]]*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+"[^"]*")?\)/g;

/**
 * A block's characters of text: links and images as their labels and alt text (targets not counted). What a page
 * whose content is a list of links (an index, downloads, a gallery) keeps, where its prose ({@link proseChars}) is
 * next to nothing ({@link MIN_CONTENT_PROSE_CHARS}); a block mostly of it is link-dense ({@link MAX_LINK_DENSE_PROSE_SHARE}).
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

/** A heading: one line of `#` to `######`. */
const HEADING = /^#{1,6}\s[^\n]*$/;

/**
 * The page's prose outside link lists and its link lists' text, in all the blocks and in those kept: a link-dense
 * block ({@link MAX_LINK_DENSE_PROSE_SHARE}), and a heading directly above one (the list's title), counts its text
 * as links; any other block, its prose.
 */
function measured(blocks: readonly string[], remove: ReadonlySet<number>): { prose: Share; links: Share } {
  const sizes = blocks.map((b) => ({ text: textChars(b), prose: proseChars(b) }));
  const dense = sizes.map((z) => z.text > 0 && z.prose < z.text * MAX_LINK_DENSE_PROSE_SHARE);
  const prose = { all: 0, kept: 0 };
  const links = { all: 0, kept: 0 };
  blocks.forEach((b, i) => {
    const list = dense[i] || (HEADING.test(b) && dense[i + 1] === true);
    const n = list ? sizes[i]!.text : sizes[i]!.prose;
    const into = list ? links : prose;
    into.all += n;
    if (!remove.has(i)) into.kept += n;
  });
  return { prose, links };
}

/** Characters of one measure in all the blocks and in those kept. */
interface Share {
  all: number;
  kept: number;
}

/** Whether the kept blocks hold a sliver of `s` ({@link MIN_KEPT_PROSE_SHARE}, {@link MIN_KEPT_PROSE_CHARS}). */
const sliver = (s: Share) => s.kept < s.all * MIN_KEPT_PROSE_SHARE && s.kept < MIN_KEPT_PROSE_CHARS;

/**
 * The warning of a pass that would drop the page's content, or undefined. A page with prose of its own outside link
 * lists ({@link MIN_CONTENT_PROSE_CHARS}) lost it when the kept blocks hold a sliver of that prose, whatever lists
 * they keep (a menu, a "Related" list); a page without lost its content only when they hold a sliver of its prose and
 * under a tenth of its link lists' text too, however long (an index whose list is kept is cleaned, whatever menu it
 * had).
 */
export function dropsContent(blocks: readonly string[], remove: ReadonlySet<number>): string | undefined {
  const { prose, links } = measured(blocks, remove);
  const limits = `under ${MIN_KEPT_PROSE_SHARE * 100} % and under ${MIN_KEPT_PROSE_CHARS}`;
  const kept = `${prose.kept} of its ${prose.all} characters of prose outside links`;
  if (!sliver(prose)) return undefined;
  let measures = `${kept}, ${limits}`;
  if (prose.all < MIN_CONTENT_PROSE_CHARS && links.all > 0) {
    // A share alone for the lists: a big menu makes 300 characters of them a sliver of the page (a short recipe whose
    // model kept only its 12 "More recipes" links, 400 characters, passed them off as its content).
    if (links.kept >= links.all * MIN_KEPT_PROSE_SHARE) return undefined;
    measures = `${kept}, ${limits}, and ${links.kept} of its ${links.all} characters of link lists, under ${MIN_KEPT_PROSE_SHARE * 100} %`;
  }
  return `onlyCleanContent kept the markdown as it was: the cleaning pass marked all of it but ${blocks.length - remove.size} of ${blocks.length} blocks (${measures}) as boilerplate.`;
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
