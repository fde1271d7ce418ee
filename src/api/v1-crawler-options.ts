/**
 * @module api/v1-crawler-options
 * v1's crawler options as /v2's, for the two v1 bodies that carry them: `POST /v1/crawl`, and `POST /v1/map`,
 * whose upstream schema is built from the same `crawlerOptions` (firecrawl apps/api/src/controllers/v1/types.ts
 * `mapRequestSchema = crawlerOptions.omit(…).extend(…)`). What differs from /v2:
 * - `ignoreSitemap` is `sitemap: "skip"` (or `"include"`);
 * - `allowBackwardLinks` is `crawlEntireDomain` (which wins when both are given, as upstream's transform);
 * - `maxDepth`, the most path segments a page may have below the start URL's (upstream's
 *   `getAdjustedMaxDepth`), has no /v2 option: it becomes an `excludePaths` pattern refusing deeper paths (none
 *   when the limit is past 1,000 segments from the root, which no page reaches). A crawl has 10 unless given, and
 *   its start URL may not be deeper than it ({@link assertStartWithinMaxDepth}).
 * The rest (`includePaths`, `excludePaths`, `maxDiscoveryDepth`, `limit`, `allowExternalLinks`, `allowSubdomains`,
 * `ignoreRobotsTxt`, `deduplicateSimilarURLs`, `ignoreQueryParameters`, `regexOnFullURL`, `delay`) is /v2's as is.
 */
import { BadRequestError } from "../errors.ts";
import { badRequest } from "./validate.ts";
import { MAX_PATTERN_REPEAT } from "../crawl/path-pattern.ts";

type Body = Record<string, unknown>;

/** Largest v1 `maxDepth` (a URL path is not deeper than this in practice; the pattern's count stays small). */
export const MAX_V1_DEPTH = 1_000;

/** Upstream v1 crawl's `maxDepth` when none is given (`maxDepth: z.number().prefault(10)`). */
export const DEFAULT_V1_CRAWL_MAX_DEPTH = 10;

/** Upstream's message when a crawl starts deeper than its own `maxDepth`. */
export const START_TOO_DEEP_MESSAGE = "URL depth exceeds the specified maxDepth";

/**
 * The number of path segments of `url` (`http://h/a/b/` is 2), with `http://` assumed when it has no scheme as
 * the /v2 URL field does; undefined when it is not a URL (the /v2 validation then reports it).
 */
export function urlPathDepth(url: unknown): number | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url.includes("://") ? url : `http://${url}`).pathname.split("/").filter(Boolean).length;
  } catch {
    return undefined;
  }
}

/**
 * A path-depth limit as a pattern excluding paths more than `maxDepth` segments below `url`'s, or undefined when
 * that is more than {@link MAX_PATTERN_REPEAT} segments from the root: the matcher (RE2) repeats a part at most that
 * often, and no page is that deep (its path alone would be 2,000 characters), so the limit has nothing to refuse.
 */
function depthPattern(url: unknown, maxDepth: number, onFullUrl: boolean): string | undefined {
  const segments = (urlPathDepth(url) ?? 0) + maxDepth;
  if (segments > MAX_PATTERN_REPEAT) return undefined;
  // A segment is what lies between slashes before any query or fragment (`/a?next=/b/c` is one segment deep). The
  // group does not capture: three matcher instructions a segment, so 1,000 segments fit the pattern size limit.
  const deeper = `/(?:[^/?#]+/){${segments}}[^/?#]`;
  return onFullUrl ? `^[a-z]+://[^/]+${deeper}` : `^${deeper}`;
}

/**
 * The v1 crawler options of `body` (with its `url`) as /v2's; its other keys are kept as they are. Throws
 * `BadRequestError` (400) for a `maxDepth` that is not an integer from 0 to {@link MAX_V1_DEPTH}.
 */
export function crawlerOptionsFromV1(body: Body): Body {
  const { ignoreSitemap, allowBackwardLinks, maxDepth, ...rest } = body;
  const out: Body = { ...rest };
  if (ignoreSitemap !== undefined) out.sitemap = ignoreSitemap === true ? "skip" : "include";
  if (allowBackwardLinks !== undefined && out.crawlEntireDomain === undefined) out.crawlEntireDomain = allowBackwardLinks;
  if (maxDepth !== undefined) {
    if (typeof maxDepth !== "number" || !Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > MAX_V1_DEPTH) {
      throw new BadRequestError(`maxDepth must be an integer from 0 to ${MAX_V1_DEPTH}.`, [{ code: "custom", path: ["maxDepth"], message: `maxDepth must be an integer from 0 to ${MAX_V1_DEPTH}` }]);
    }
    // An `excludePaths` that is not a list is left for the /v2 validation to report.
    const pattern = depthPattern(body.url, maxDepth, body.regexOnFullURL === true);
    if (pattern !== undefined && (out.excludePaths === undefined || Array.isArray(out.excludePaths))) {
      out.excludePaths = [...((out.excludePaths as unknown[] | undefined) ?? []), pattern];
    }
  }
  return out;
}

/**
 * Upstream v1 crawl's refinement: the start URL itself may not be deeper than `maxDepth` (its `getURLDepth(url)
 * <= maxDepth`, counted from the site's root, though pages are then limited relative to the start URL). Throws
 * `BadRequestError` (400) when it is.
 */
export function assertStartWithinMaxDepth(url: unknown, maxDepth: number): void {
  const depth = urlPathDepth(url);
  if (depth !== undefined && depth > maxDepth) throw badRequest([{ code: "custom", path: ["url"], message: START_TOO_DEEP_MESSAGE }]);
}
