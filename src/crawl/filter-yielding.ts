/**
 * @module crawl/filter-yielding
 * A crawl filter over many links without holding the event loop: the links of one page times the caller's patterns
 * can be seconds of matching, and every other request would wait for it.
 */
import type { AcceptedUrl, CrawlFilter, FilterContext } from "./filter.ts";

/** Matching time after which the event loop is given back before the next link. */
const FILTER_SLICE_MS = 10;

/**
 * `filter.filterLinks(links)`'s accepted links, judged one at a time with the event loop given back whenever
 * {@link FILTER_SLICE_MS} of matching has passed: a page's links times the caller's patterns can be seconds of
 * matching (20,000 links, or long URLs against large patterns), which must not hold every other request. Duplicates
 * are dropped as filterLinks drops them.
 */
export async function filterLinksYielding(filter: CrawlFilter, links: string[], ctx: FilterContext): Promise<AcceptedUrl[]> {
  const accepted: AcceptedUrl[] = [];
  const keys = new Set<string>();
  let sliceStart = performance.now();
  for (let i = 0; i < links.length; i++) {
    for (const a of filter.filterLinks([links[i]!], ctx).accepted) {
      if (keys.has(a.key)) continue;
      keys.add(a.key);
      accepted.push(a);
    }
    if (performance.now() - sliceStart > FILTER_SLICE_MS && i + 1 < links.length) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return accepted;
}
