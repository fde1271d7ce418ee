/**
 * @module crawl/filter-yielding
 * A crawl filter over many links without holding the event loop: the links of one page (or a sitemap's URLs) times
 * the caller's patterns can be seconds of matching, and every other request would wait for it.
 */
import type { AcceptedUrl, CrawlFilter, FilterContext } from "./filter.ts";

/** Matching time after which the event loop is given back before the next link. */
const FILTER_SLICE_MS = 10;

/**
 * A check to await between the items of a long synchronous loop: it gives the event loop back (resolving on the
 * next turn) once {@link FILTER_SLICE_MS} have passed since it last did, and costs a clock read otherwise.
 */
export function createYielder(sliceMs = FILTER_SLICE_MS): () => Promise<void> | undefined {
  let sliceStart = performance.now();
  return () => {
    if (performance.now() - sliceStart <= sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        sliceStart = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * `filter.filterLinks(links)`'s accepted links (its loop, over `check`), with the event loop given back whenever
 * {@link FILTER_SLICE_MS} of matching has passed: a page's links times the caller's patterns can be seconds of
 * matching (20,000 links, or long URLs against large patterns), which must not hold every other request. Duplicates
 * are dropped as filterLinks drops them.
 */
export async function filterLinksYielding(filter: CrawlFilter, links: string[], ctx: FilterContext): Promise<AcceptedUrl[]> {
  const accepted: AcceptedUrl[] = [];
  const keys = new Set<string>();
  const pause = createYielder();
  for (const link of links) {
    await pause();
    const r = filter.check(link, ctx);
    if (!r.ok || keys.has(r.key)) continue;
    keys.add(r.key);
    accepted.push({ url: r.url, key: r.key, href: r.href });
  }
  return accepted;
}
