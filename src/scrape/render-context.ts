/**
 * @module scrape/render-context
 * Builds the {@link RenderContext} of one fetched page. The DOM is parsed once: readers of the original DOM
 * (metadata, links, images, attributes) run first, then cleaning consumes that same tree (cleaning removes
 * nodes). If a reader asks for the original DOM after cleaning, it is parsed again, so any order is correct and
 * the usual order costs one parse. A converted document's metadata and base URL are read from its head alone
 * (converted-head.ts): its views that need the whole tree (links, images, attributes) go to a parse worker when it
 * is large (parse-workers/offload.ts), so a scrape asking for none of them parses only a few hundred characters.
 *
 * Views a parse worker already computed (`prefilled`, scrape/parse-workers) are returned as they are; the worker
 * computes them with this same context, so both ways give the same answers.
 */
import type { ConvertedDocument } from "../documents/types.ts";
import type { Page } from "../engines/types.ts";
import { extractAttributes, requestedAttributeSelectors, type AttributeResult } from "../pipeline/attributes.ts";
import { cleanHtml, htmlToMarkdown, isXmlContentType, parseHtml } from "../pipeline/index.ts";
import { extractImages, extractLinks } from "../pipeline/links.ts";
import { extractMetadata, type PageMetadata } from "../pipeline/metadata.ts";
import { documentBaseUrl } from "../pipeline/url.ts";
import { convertedHead } from "./converted-head.ts";
import type { PageView, RenderContext, RenderRun } from "./renderer.ts";
import type { ScrapeSpec } from "./spec.ts";

const PLAIN_TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/x-markdown", "text/csv", "application/json"]);

/** True when the page is plain text rather than markup: it is rendered verbatim, not parsed as HTML. */
export function isPlainText(page: Page): boolean {
  return PLAIN_TEXT_TYPES.has(page.contentType) || page.contentType.endsWith("+json");
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Main-content html of at most this many characters is judged empty or not by its markdown itself: exact, and cheap
 * at that size. Above it, any text in it settles the question without converting it.
 */
const MARKDOWN_CHECK_MAX_CHARS = 4_096;
/** Text a reader sees in serialised html: a character outside tags, comments and character references. */
const VISIBLE_TEXT_RE = /<!--[\s\S]*?-->|<[^>"]*(?:"[^"]*"[^>"]*)*>|&#?\w+;|\s+|([^<&\s])/gy;

/**
 * Formats made from the markdown (upstream's `deriveMarkdownFromHTML` runs for them): a request for one of them, or
 * with `redactPII` or `onlyCleanContent`, makes the markdown, and so has empty main content fall back to the whole
 * page in `html` too.
 */
const MARKDOWN_FORMATS = new Set(["markdown", "json", "summary", "changeTracking", "question", "highlights", "query"]);

/**
 * Whether the request makes the page's markdown (see {@link MARKDOWN_FORMATS}). A parse worker's options carry the
 * answer as `makesMarkdown` (its `formats` are the `attributes` ones only); options with neither say yes, the
 * fallback upstream makes whenever it makes markdown.
 */
export function makesMarkdown(spec: Partial<Pick<ScrapeSpec, "formats" | "redactPII" | "onlyCleanContent">> & { makesMarkdown?: boolean }): boolean {
  if (spec.makesMarkdown !== undefined) return spec.makesMarkdown;
  if (spec.formats === undefined) return true;
  return spec.redactPII !== undefined || spec.onlyCleanContent === true || spec.formats.some((f) => MARKDOWN_FORMATS.has(f.type));
}

/**
 * Whether cleaned html (clean.ts writes every attribute in double quotes) shows text, scanning up to its first
 * visible character. Markup alone (images, empty elements, `&nbsp;`) and short html are left to the markdown to
 * judge, as upstream judges main content empty by its markdown; text inside elements the markdown drops (a
 * `<button>`) is the case markdown() still catches.
 */
function hasVisibleText(html: string): boolean {
  if (html.length <= MARKDOWN_CHECK_MAX_CHARS) return false;
  VISIBLE_TEXT_RE.lastIndex = 0;
  // Sticky: each match starts where the last one ended, and one that cannot (a stray `<`) ends the scan.
  for (let m = VISIBLE_TEXT_RE.exec(html); m; m = VISIBLE_TEXT_RE.exec(html)) {
    if (m[1] !== undefined) return true;
  }
  return false;
}

/** Stores files for renderers; see {@link RenderContext.storeFile}. */
export type FileSink = (bytes: Uint8Array, contentType: string, extension: string) => Promise<string>;

/** A sink that stores nothing and returns `data:` URLs (zero data retention, CLI). */
export const dataUrlSink: FileSink = async (bytes, contentType) =>
  `data:${contentType};base64,${Buffer.from(bytes).toString("base64")}`;

/** Views computed elsewhere (a parse worker), by the name of the context method that returns them. */
export interface PrefilledViews {
  metadata?: PageMetadata;
  links?: string[];
  images?: string[];
  html?: string;
  markdown?: string;
  /** The values of every pair the request's `attributes` formats ask for (pipeline/attributes.ts). */
  attributes?: AttributeResult[];
}

/** A pair's key among the values already found: a selector or an attribute may hold any character. */
const pairKey = (pair: { selector: string; attribute: string }) => JSON.stringify([pair.selector, pair.attribute]);

/**
 * Computes `views` of a context in the order that needs one parse (readers of the original DOM before cleaning).
 * The parse worker uses it; so the views it returns are the ones the main thread would have computed.
 */
export function computeViews(ctx: RenderContext, views: Iterable<PageView>): PrefilledViews {
  const want = new Set(views);
  const out: PrefilledViews = {};
  if (want.has("metadata")) out.metadata = ctx.metadata();
  if (want.has("links")) out.links = ctx.links();
  if (want.has("images")) out.images = ctx.images();
  if (want.has("attributes")) out.attributes = ctx.attributes(requestedAttributeSelectors(ctx.spec.formats));
  if (want.has("html")) out.html = ctx.cleanedHtml();
  if (want.has("markdown")) out.markdown = ctx.markdown();
  return out;
}

/**
 * Creates the lazily evaluated render context for `page`. When a document parser converted the page
 * (`converted`), its HTML stands in for the page's markup and its markdown is used as is. `prefilled` views are
 * answered without parsing.
 */
export function createRenderContext(
  spec: ScrapeSpec,
  page: Page,
  files: FileSink = dataUrlSink,
  converted?: ConvertedDocument,
  run?: RenderRun,
  prefilled: PrefilledViews = {},
): RenderContext {
  const raw = converted ? converted.html : (page.text ?? "");
  const plain = !converted && isPlainText(page);
  // XHTML, RSS and other XML keep their CDATA text (pipeline/parse.ts); a converted document's HTML is ours.
  const parseOptions = { xml: !converted && isXmlContentType(page.contentType) };
  let original: Document | undefined;
  let originalConsumed = false;
  /** A converted document's head alone (converted-head.ts): what its metadata and base URL read. */
  let head: Document | undefined;
  let base: string | undefined;
  let cleaned: string | undefined = prefilled.html;
  let markdown: string | undefined = prefilled.markdown;
  let metadata: PageMetadata | undefined = prefilled.metadata;
  let links: string[] | undefined = prefilled.links;
  let images: string[] | undefined = prefilled.images;
  /** Attribute values by {@link pairKey}: a pair is matched against the page at most once. */
  const attributeValues = new Map((prefilled.attributes ?? []).map((r) => [pairKey(r), r.values]));

  const cleanOptions = (onlyMainContent: boolean) => ({
    baseUrl: page.finalUrl,
    onlyMainContent,
    includeTags: spec.includeTags,
    excludeTags: spec.excludeTags,
    removeBase64Images: spec.removeBase64Images,
  });
  /** The page's html with `onlyMainContent: false`: the fallback for main content that came out empty. */
  let wholePage: string | undefined;
  const wholePageHtml = () => {
    wholePage ??= cleanHtml(parseHtml(raw, parseOptions), cleanOptions(false));
    return wholePage;
  };

  /**
   * The DOM that the page-level readers (metadata, base URL) read. For a converted document this is its head,
   * unless the whole document is parsed already. Parsing all of it only for them held the main thread 150–430 ms
   * on a large document (converted-head.ts).
   */
  const pageLevelDom = () => {
    if (!converted || original) return ctx.originalDom();
    head ??= parseHtml(convertedHead(raw), parseOptions);
    return head;
  };

  const ctx: RenderContext = {
    spec,
    page,
    pageUrl: page.finalUrl,
    rawHtml: () => raw,
    originalDom() {
      if (!original || originalConsumed) {
        original = plain ? parseHtml(`<pre>${escapeHtml(raw)}</pre>`) : parseHtml(raw, parseOptions);
        originalConsumed = false;
      }
      return original;
    },
    baseUrl() {
      base ??= plain ? page.finalUrl : documentBaseUrl(pageLevelDom(), page.finalUrl);
      return base;
    },
    cleanedHtml() {
      if (cleaned !== undefined) return cleaned;
      if (converted) {
        // A converted document has no boilerplate to score away: its HTML is already the content.
        cleaned = converted.html;
        return cleaned;
      }
      if (plain) {
        cleaned = `<pre>${escapeHtml(raw)}</pre>`;
        return cleaned;
      }
      const doc = original && !originalConsumed ? original : parseHtml(raw, parseOptions);
      original = doc;
      originalConsumed = true;
      // The page URL: cleanHtml applies `<base href>` itself (documentBaseUrl, the same answer as ctx.baseUrl()).
      const main = cleanHtml(doc, cleanOptions(spec.onlyMainContent));
      if (!spec.onlyMainContent) {
        cleaned = main;
        return cleaned;
      }
      // As upstream: main content whose markdown came out empty (a page of links, a cookie banner and a sidebar)
      // gives the whole page instead, in `html` as in `markdown`, when the request makes markdown at all: without it
      // (`formats: ["html"]`) the main html stands, a `<main>` holding only a video included. The markdown is only
      // made when the html has no text to show (see hasVisibleText), and then kept as the markdown view.
      const mainMarkdown = !makesMarkdown(spec) || hasVisibleText(main) ? undefined : htmlToMarkdown(main);
      if (mainMarkdown !== undefined && !/\S/.test(mainMarkdown)) {
        cleaned = wholePageHtml();
      } else {
        cleaned = main;
        if (mainMarkdown !== undefined) markdown ??= mainMarkdown;
      }
      return cleaned;
    },
    markdown() {
      if (markdown !== undefined) return markdown;
      if (converted || plain) {
        markdown = converted ? converted.markdown : raw;
        return markdown;
      }
      const html = ctx.cleanedHtml();
      // cleanedHtml() may have made it already, deciding whether the main content is empty.
      markdown ??= htmlToMarkdown(html);
      // Main content with text that the markdown drops all the same (a lone button): the whole page's markdown, as
      // upstream. (A scan that stops at the first visible character: no trimmed copy of every page's markdown.)
      if (spec.onlyMainContent && !/\S/.test(markdown) && html !== wholePage) {
        markdown = htmlToMarkdown(wholePageHtml());
      }
      return markdown;
    },
    metadata() {
      metadata ??= extractMetadata(pageLevelDom(), ctx.baseUrl());
      return metadata;
    },
    // Plain text has no elements, so no links or images (its DOM is one <pre> of escaped text): answered without
    // parsing it, which for 24 MB of "<a " meant millions of entities and 19 s on the main thread.
    links() {
      links ??= plain ? [] : extractLinks(ctx.originalDom(), ctx.baseUrl());
      return links;
    },
    images() {
      images ??= plain ? [] : extractImages(ctx.originalDom(), ctx.baseUrl(), !spec.removeBase64Images);
      return images;
    },
    attributes(selectors) {
      const missing = selectors.filter((pair) => !attributeValues.has(pairKey(pair)));
      if (missing.length > 0) for (const r of extractAttributes(ctx.originalDom(), missing)) attributeValues.set(pairKey(r), r.values);
      return selectors.map(({ selector, attribute }) => ({ selector, attribute, values: [...attributeValues.get(pairKey({ selector, attribute }))!] }));
    },
    // No redact-and-clean step here (a parse worker's context): the markdown as it is; the scrape service sets its own.
    preparedMarkdown: async () => ctx.markdown(),
    storeFile: (bytes, contentType, extension) => (spec.zeroDataRetention ? dataUrlSink : files)(bytes, contentType, extension),
    ...(run ? { run } : {}),
  };
  return ctx;
}
