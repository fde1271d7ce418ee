/**
 * @module crawl/path-pattern
 * Crawl and map `includePaths`/`excludePaths` patterns, matched in linear time. They come from API callers, and
 * JavaScript's backtracking `RegExp` turns a pattern such as `(a+)+$` into seconds of CPU per URL: a crawl of a page
 * with 20 such links held the event loop (every request of the server) for 22 s. Upstream matches them with Rust's
 * `regex` crate, which cannot backtrack; crawlbox uses RE2 (npm `re2js`, the same family of syntax and guarantees):
 * `(?i)`, `\p{L}` and named groups work as upstream; look-around and back-references do not exist there.
 *
 * Which patterns a request may carry is upstream's rule (api-v2.md §2.5): one that compiles as a JavaScript RegExp is
 * accepted (else 400 with the RegExp's message), and one the matcher cannot compile is dropped when the crawl runs,
 * as upstream's Rust filter drops it. A pattern RE2 compiles is accepted too, though JavaScript would refuse it
 * (`(?i)…`): it means what it means upstream's matcher.
 */
import { RE2JS } from "re2js";

/** A compiled pattern: `test` says whether it matches anywhere in the string (as `RegExp.test`). */
export interface PathPattern {
  readonly source: string;
  test(target: string): boolean;
}

/** The pattern compiled for matching, or undefined when RE2 cannot compile it (upstream drops such patterns too). */
export function compilePathPattern(source: string): PathPattern | undefined {
  try {
    const re = RE2JS.compile(source);
    return { source, test: (target) => re.test(target) };
  } catch {
    return undefined;
  }
}

/** Patterns already tried by {@link compiles}: every status read of a finished crawl asks again (a 2 KB one takes 1 ms). */
const compiled = new Map<string, boolean>();
const MAX_REMEMBERED_PATTERNS = 10_000;

/** Whether RE2 compiles `source`, remembered. */
function compiles(source: string): boolean {
  let ok = compiled.get(source);
  if (ok === undefined) {
    ok = compilePathPattern(source) !== undefined;
    if (compiled.size >= MAX_REMEMBERED_PATTERNS) compiled.clear();
    compiled.set(source, ok);
  }
  return ok;
}

/** Why a request's pattern is refused (JavaScript's RegExp message, as upstream's), or undefined when it is accepted. */
export function pathPatternProblem(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (e) {
    return compilePathPattern(source) ? undefined : e instanceof Error ? e.message : String(e);
  }
}

/**
 * The crawl warning for patterns of `o` that are not applied (RE2 cannot compile them), or undefined. Upstream drops
 * them without a word; a crawl whose only `includePaths` pattern was dropped then covers the whole site, which a
 * caller should be told.
 */
export function unappliedPatternsWarning(o: { includePaths?: readonly string[]; excludePaths?: readonly string[] } | undefined): string | undefined {
  const dropped = [...(o?.includePaths ?? []), ...(o?.excludePaths ?? [])].filter((p) => p !== "" && !compiles(p));
  if (dropped.length === 0) return undefined;
  return `These includePaths/excludePaths patterns were not applied: ${dropped.map((p) => JSON.stringify(p)).join(", ")} (look-around and back-references are not supported; patterns are matched as upstream's Rust regex matches them).`;
}
