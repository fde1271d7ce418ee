/**
 * @module pipeline/main-content/features
 * One bottom-up pass over the DOM that measures every element: visible text, link text and the summed value of the
 * text blocks inside it (see `score.ts`). Everything the selector needs comes from this pass, so main-content
 * selection is linear in the size of the page; nothing calls `textContent`, which linkedom computes by walking the
 * subtree again on every call.
 */
import { BlockKind, blockValue, listBlockValue, type BlockText } from "./score.ts";
import { isMarkupChrome, Region, regionOf } from "./hints.ts";

/** Measurements of one element's subtree. */
export interface ElementStats {
  /** Non-whitespace visible characters. */
  chars: number;
  /** Of which inside links or buttons. */
  linkChars: number;
  /** Sum of the positive block values (after region weighting). */
  pos: number;
  /** Sum of the negative block values. */
  neg: number;
  /** Part of `pos` that comes from comment regions. */
  commentPos: number;
  /** Like `pos` and `neg`, valuing title-length links as text (see `listBlockValue`). */
  listPos: number;
  listNeg: number;
  /** Blocks that read as prose paragraphs (long, punctuated, few links), outside chrome. */
  paragraphs: number;
  /** What the element's own markup says about it. */
  region: Region;
  /** Whether an ancestor (or the element) is a content region such as `<article>`. */
  inContent: boolean;
}

/** Elements whose text is never visible content. */
export const NON_CONTENT_TAGS = new Set([
  "script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas", "select", "option",
  "input", "textarea", "head", "title", "meta", "link", "base", "frameset", "frame",
]);

/** Elements that end a run of inline text; everything else (span, a, em, code…) is inline. */
const BLOCK_TAGS = new Set([
  "html", "body", "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "li", "ul", "ol",
  "dl", "dt", "dd", "td", "th", "tr", "table", "thead", "tbody", "tfoot", "caption", "h1", "h2", "h3", "h4", "h5",
  "h6", "pre", "blockquote", "figure", "figcaption", "form", "fieldset", "address", "details", "summary", "center",
  "hr", "br-block", "dialog", "menu", "hgroup", "legend", "picture", "video", "audio",
]);

/** Weight of positive text inside chrome regions (sidebars, footers): some of it is prose, little is content. */
const CHROME_WEIGHT = 0.2;
/**
 * Weight of positive text inside chrome named by its tag or role (`<nav>`, `<footer>`, `<aside>`, `<dialog>`,
 * role=contentinfo…): none. Class names lie (`has-sidebar`), markup does not, and at 0.2 a long text in it (the
 * privacy policy a shop's footer holds in a dialog, a cookie dialog's descriptions) outweighed a short product
 * description.
 */
const MARKUP_CHROME_WEIGHT = 0;
/** Weight of positive text inside comment regions; the selector decides later whether comments are content. */
const COMMENT_WEIGHT = 0.6;

/** Weight of positive text inside containers named as an article/post body. */
const STRONG_CONTENT_WEIGHT = 1.5;

const enum Ctx {
  Chrome = 1,
  Comments = 2,
  Content = 4,
  Link = 8,
  Code = 16,
  StrongContent = 32,
  MarkupChrome = 64,
}

interface Frame {
  el: Element;
  stats: ElementStats;
  block: boolean;
  kind: BlockKind;
  ctx: number;
  inline: BlockText;
}

function kindOf(tag: string, ctx: number): BlockKind {
  if (ctx & Ctx.Code) return BlockKind.Code;
  switch (tag) {
    case "h1": case "h2": case "h3": case "h4": case "h5": case "h6":
      return BlockKind.Heading;
    case "pre":
      return BlockKind.Code;
    case "td": case "th":
      return BlockKind.Cell;
    case "li": case "dt": case "dd":
      return BlockKind.Item;
    default:
      return BlockKind.Paragraph;
  }
}

/** Count non-whitespace characters and sentence punctuation of a text node. */
function measureText(data: string, into: BlockText, link: boolean): number {
  let chars = 0;
  let punct = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c <= 32 || c === 0xa0) continue;
    chars++;
    // . , ! ? ; and the CJK full stop, comma, ideographic comma, full-width ! ? ,
    if (c === 46 || c === 44 || c === 33 || c === 63 || c === 59 || c === 0x3002 || c === 0xff0c || c === 0x3001 || c === 0xff01 || c === 0xff1f) punct++;
  }
  into.chars += chars;
  if (link) into.linkChars += chars;
  else into.punct += punct;
  return chars;
}

function newFrame(el: Element, tag: string, region: Region, parentCtx: number): Frame {
  let ctx = parentCtx & ~Ctx.Link;
  if (parentCtx & Ctx.Link) ctx |= Ctx.Link;
  if (region === Region.Content) ctx |= Ctx.Content;
  else if (region === Region.StrongContent) ctx |= Ctx.Content | Ctx.StrongContent;
  else if (region === Region.Chrome) ctx |= isMarkupChrome(el, tag) ? Ctx.Chrome | Ctx.MarkupChrome : Ctx.Chrome;
  else if (region === Region.Comments) ctx |= Ctx.Comments;
  else if (region === Region.Header && !(ctx & Ctx.Content)) ctx |= Ctx.Chrome;
  if ((tag === "a" && el.hasAttribute("href")) || tag === "button") ctx |= Ctx.Link;
  if (tag === "pre") ctx |= Ctx.Code;
  const block = BLOCK_TAGS.has(tag) || tag.includes("-") || tag === "noscript";
  return {
    el,
    block,
    kind: kindOf(tag, ctx),
    ctx,
    inline: { chars: 0, linkChars: 0, punct: 0, links: 0 },
    stats: emptyStats(region, (ctx & Ctx.Content) !== 0),
  };
}

function emptyStats(region: Region, inContent: boolean): ElementStats {
  return { chars: 0, linkChars: 0, pos: 0, neg: 0, commentPos: 0, listPos: 0, listNeg: 0, paragraphs: 0, region, inContent };
}

/** Scale a positive block value by what the enclosing regions say about it. */
function weigh(value: number, ctx: number): number {
  if (value <= 0) return value;
  if (ctx & Ctx.MarkupChrome) return value * MARKUP_CHROME_WEIGHT;
  if (ctx & Ctx.Chrome) return value * CHROME_WEIGHT;
  if (ctx & Ctx.Comments) return value * COMMENT_WEIGHT;
  if (ctx & Ctx.StrongContent) return value * STRONG_CONTENT_WEIGHT;
  return value;
}

/** A block of at least this many non-link characters, with punctuation, reads as a paragraph of prose. */
const PARAGRAPH_MIN_CHARS = 80;

function isProseParagraph(text: BlockText): boolean {
  return text.punct > 0 && text.chars - text.linkChars >= PARAGRAPH_MIN_CHARS && text.linkChars * 4 < text.chars;
}

/** Turn the frame's pending inline text into one block value. */
function flush(frame: Frame): void {
  const text = frame.inline;
  if (text.chars === 0) return;
  const stats = frame.stats;
  const value = weigh(blockValue(frame.kind, text), frame.ctx);
  if (value > 0) {
    stats.pos += value;
    if (frame.ctx & Ctx.Comments && !(frame.ctx & Ctx.Chrome)) stats.commentPos += value;
  } else {
    stats.neg += value;
  }
  if (isProseParagraph(text) && !(frame.ctx & Ctx.Chrome)) stats.paragraphs++;
  const listValue = weigh(listBlockValue(frame.kind, text), frame.ctx);
  if (listValue > 0) stats.listPos += listValue;
  else stats.listNeg += listValue;
  text.chars = 0;
  text.linkChars = 0;
  text.punct = 0;
  text.links = 0;
}

/**
 * Measure `root` and every element below it.
 *
 * @param root - usually `document.body`
 * @param skip - elements to leave out entirely (the request's `excludeTags`); their text counts nowhere
 * @param unwrap - non-content elements (`<noscript>`) to measure as ordinary blocks
 * @returns stats for every measured element; unmeasured elements (scripts, hidden, skipped) are absent, and hidden
 *   elements are present with `region === Region.Hidden` and zero text
 */
export function measure(
  root: Element,
  skip?: ReadonlySet<Element>,
  unwrap?: ReadonlySet<Element>,
): Map<Element, ElementStats> {
  const all = new Map<Element, ElementStats>();
  const rootFrame = newFrame(root, root.localName, Region.Neutral, 0);
  rootFrame.block = true;
  const stack: Frame[] = [rootFrame];
  all.set(root, rootFrame.stats);
  let node: ChildNode | null = root.firstChild;
  for (;;) {
    if (node) {
      const type = node.nodeType;
      if (type === 3) {
        const top = stack[stack.length - 1]!;
        const link = (top.ctx & Ctx.Link) !== 0;
        const chars = measureText((node as Text).data, top.inline, link);
        top.stats.chars += chars;
        if (link) top.stats.linkChars += chars;
      } else if (type === 1) {
        const el = node as Element;
        const tag = el.localName;
        if ((!NON_CONTENT_TAGS.has(tag) || unwrap?.has(el)) && !skip?.has(el)) {
          const region = regionOf(el, tag);
          if (region === Region.Hidden) {
            all.set(el, emptyStats(region, false));
          } else {
            const parent = stack[stack.length - 1]!;
            // Text before a nested block ends the parent's current block.
            const frame = newFrame(el, tag, region, parent.ctx);
            if (tag === "a" && !(parent.ctx & Ctx.Link)) parent.inline.links++;
            if (frame.block) flush(parent);
            stack.push(frame);
            all.set(el, frame.stats);
            const first: ChildNode | null = el.firstChild;
            if (first) {
              node = first;
              continue;
            }
            node = el;
            exitFrame(stack);
          }
        }
      }
      node = node.nextSibling;
      continue;
    }
    const done = exitFrame(stack);
    if (!done || stack.length === 0) break;
    node = done.el.nextSibling;
  }
  return all;
}

/** Pop the top frame and fold its measurements into its parent. Returns the popped frame. */
function exitFrame(stack: Frame[]): Frame | undefined {
  const frame = stack.pop();
  if (!frame) return undefined;
  const parent = stack[stack.length - 1];
  if (frame.block || !parent) flush(frame);
  if (!parent) return frame;
  const stats = frame.stats;
  const into = parent.stats;
  into.chars += stats.chars;
  into.linkChars += stats.linkChars;
  into.pos += stats.pos;
  into.neg += stats.neg;
  into.commentPos += stats.commentPos;
  into.listPos += stats.listPos;
  into.listNeg += stats.listNeg;
  into.paragraphs += stats.paragraphs;
  if (!frame.block) {
    parent.inline.chars += frame.inline.chars;
    parent.inline.linkChars += frame.inline.linkChars;
    parent.inline.punct += frame.inline.punct;
    parent.inline.links += frame.inline.links;
  }
  return frame;
}
