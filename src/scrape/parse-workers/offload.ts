/**
 * @module scrape/parse-workers/offload
 * Which views of a scrape a parse worker computes, and what its failure means for the scrape. The scrape service
 * (scrape/service.ts) asks here before it builds a page's render context; what comes back is handed to that context
 * as its prefilled views (scrape/render-context.ts).
 *
 * A worker's failure is not the page's: the answer is then undefined and the page is parsed on the main thread,
 * which gives the page's own error if it has one. A page still parsing at the scrape's deadline is the scrape's
 * timeout: its worker was stopped, which the main thread could not have been. So whatever the caller's CSS selectors
 * are matched by (tag filters, the `attributes` format: {@link matchesCallerSelectors}) goes to a worker whenever the
 * pool runs, and the request's `timeout` bounds it.
 */
import type { Page } from "../../engines/types.ts";
import { ScrapeTimeoutError } from "../../errors.ts";
import { makesMarkdown, type PrefilledViews } from "../render-context.ts";
import type { FormatRenderer, PageView } from "../renderer.ts";
import type { ScrapeSpec } from "../spec.ts";
import { matchesCallerSelectors, ParseTimeoutError, type ParsePool } from "./pool.ts";
import type { ParseRequest } from "./protocol.ts";

/** What {@link pageViewsElsewhere} and {@link documentViewsElsewhere} need to know of the scrape. */
export interface OffloadScrape {
  pool: ParsePool | undefined;
  spec: ScrapeSpec;
  /** Other scrapes running now: a small page goes to a worker only beside them (pool.ts). */
  othersInFlight: number;
  /** Epoch ms by which the scrape should be finished (its `timeout`). */
  deadline: number;
}

/**
 * The spec's `attributes` format, the only format a worker reads (its selectors): its first entry, the only one a
 * scrape renders (scrape/service.ts), so a second entry's selectors are never run.
 */
const attributeFormats = (spec: ScrapeSpec) => spec.formats.filter((f) => f.type === "attributes").slice(0, 1);

/**
 * The parsed views of an HTML page computed by a parse worker, when one can take it now and every requested
 * renderer says which views it reads; undefined: parse on the main thread. A page matched against the caller's
 * selectors goes even beside a renderer that reads the DOM itself (`product`, `audio`): the views the selectors
 * shape come from the worker, and only that renderer's own reading of the page (our code, not the caller's
 * selectors) parses it on the main thread as well.
 */
export function pageViewsElsewhere(scrape: OffloadScrape, page: Page, renderers: readonly (readonly [FormatRenderer, unknown])[], collectLinks: boolean): Promise<PrefilledViews | undefined> {
  const { pool, spec } = scrape;
  const selectors = matchesCallerSelectors(spec);
  if (!pool || page.text === undefined || !pool.shouldOffload(page.text.length, scrape.othersInFlight, selectors)) return Promise.resolve(undefined);
  const views = new Set<PageView>(["metadata"]);
  if (collectLinks) views.add("links");
  let readsDom = false;
  for (const [renderer] of renderers) {
    if (!renderer.views && !selectors) return Promise.resolve(undefined);
    readsDom ||= !renderer.views;
    for (const v of renderer.views ?? []) views.add(v);
  }
  // What a renderer reading the DOM itself may ask for beyond it (deterministicJson's markdown) is cleaned with the
  // tag filters: computed on the main thread, it would run the caller's selectors there.
  if (readsDom && (spec.includeTags.length > 0 || spec.excludeTags.length > 0)) for (const v of ["html", "markdown"] as const) views.add(v);
  const { onlyMainContent, includeTags, excludeTags, removeBase64Images } = spec;
  const options = { onlyMainContent, includeTags, excludeTags, removeBase64Images, formats: attributeFormats(spec), makesMarkdown: makesMarkdown(spec) };
  return computeElsewhere(scrape, { html: page.text, pageUrl: page.finalUrl, contentType: page.contentType, options, views: [...views] });
}

/** The views of a converted document that need its whole tree; the others are read without parsing it (below). */
const WHOLE_TREE_VIEWS: ReadonlySet<PageView> = new Set(["links", "images", "attributes"]);

/**
 * The views of a converted document (PDF, office file) that need its whole tree, from a parse worker: `links` (the
 * format, or a crawl's links), `images` and `attributes`. Its HTML is ours, but it can be tens of MB (tens of
 * thousands of paragraphs or rows: linkedom took 150–430 ms of the main thread for one), and the `attributes`
 * selectors are the caller's. Its metadata and base URL come from its head alone, its `html` and `markdown` are the
 * converter's (render-context.ts): none of them parses it. As for a page, a small document goes to a worker only
 * beside other scrapes, one matched against the caller's selectors always, and a renderer that reads the DOM itself
 * (`product`, `audio`) keeps the rest on the main thread, which parses the document for it anyway. The worker parses
 * the HTML as the render context parses a converted document's (as HTML, not XML). Undefined: computed here.
 */
export function documentViewsElsewhere(scrape: OffloadScrape, html: string, pageUrl: string, renderers: readonly (readonly [FormatRenderer, unknown])[], collectLinks: boolean): Promise<PrefilledViews | undefined> {
  const { pool, spec } = scrape;
  const formats = attributeFormats(spec);
  const selectors = matchesCallerSelectors({ formats });
  const views = new Set<PageView>(collectLinks ? ["links"] : []);
  for (const [renderer] of renderers) {
    if (!renderer.views && !selectors) return Promise.resolve(undefined);
    for (const v of renderer.views ?? []) if (WHOLE_TREE_VIEWS.has(v)) views.add(v);
  }
  if (!selectors) views.delete("attributes");
  if (!pool || views.size === 0 || !pool.shouldOffload(html.length, scrape.othersInFlight, selectors)) return Promise.resolve(undefined);
  const options = { onlyMainContent: spec.onlyMainContent, includeTags: [], excludeTags: [], removeBase64Images: spec.removeBase64Images, formats, makesMarkdown: makesMarkdown(spec) };
  return computeElsewhere(scrape, { html, pageUrl, contentType: "text/html", options, views: [...views] });
}

/** `request` computed by a worker; see the module's comment for its failures. */
function computeElsewhere(scrape: OffloadScrape, request: Omit<ParseRequest, "id">): Promise<PrefilledViews | undefined> {
  return scrape.pool!.compute(request, scrape.deadline).catch((err: unknown) => {
    if (err instanceof ParseTimeoutError) throw new ScrapeTimeoutError(scrape.spec.timeoutMs);
    return undefined;
  });
}
