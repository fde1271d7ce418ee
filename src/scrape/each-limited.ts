/**
 * @module scrape/each-limited
 * A small worker loop shared by the features that scrape a list of pages for one request (search results,
 * extract pages): at most `concurrency` items at once, and no new item once the request is aborted.
 */

/**
 * Calls `fn` for each of `items`, at most `concurrency` at a time, in order; stops starting new items once
 * `signal` aborts. Resolves when the started ones have finished; rejects with the first error `fn` throws.
 * Returns how many items were started.
 */
export async function forEachLimited<T>(items: readonly T[], concurrency: number, signal: AbortSignal, fn: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return next;
}
