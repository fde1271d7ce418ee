/**
 * @module pipeline/main-content
 * Main-content extraction for `onlyMainContent: true`.
 *
 * ```
 * body ──measure()──▶ per-element stats ──selectFrom()──▶ { root, drop }
 *        (features.ts: one bottom-up pass;    (select.ts: max-sum subtree,
 *         score.ts: value of each block;       prune.ts: chrome/comments inside)
 *         hints.ts: tag/role/class regions)
 * ```
 */
import { measure } from "./features.ts";
import { selectFrom, type MainContent } from "./select.ts";

export type { MainContent } from "./select.ts";

/**
 * Find the main content of a page without modifying it.
 *
 * @param doc - a parsed document (see `parseHtml`)
 * @param exclude - elements to ignore while scoring (already matched by `excludeTags`)
 * @param unwrap - `<noscript>` elements to score as ordinary content (the page's JavaScript-free rendering)
 * @returns the content root and the elements under it to leave out, or `null` for a page without a body
 * @example
 * const main = selectMainContent(parseHtml(html));
 * if (main) console.log(main.root.tagName, main.drop.size);
 */
export function selectMainContent(
  doc: Document,
  exclude?: ReadonlySet<Element>,
  unwrap?: ReadonlySet<Element>,
): MainContent | null {
  const body = doc.body as Element | null;
  if (!body) return null;
  return selectFrom(body, measure(body, exclude, unwrap));
}
