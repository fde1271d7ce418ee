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

/**
 * Most instructions a pattern's RE2 program may have. RE2 cannot backtrack, but it steps its program over each
 * character of every URL tested, on the main thread: 22 characters of `(?:a|aa|[^Z]){990}Y` compile to ~6,000
 * instructions and took 87 ms per 1 KB URL (a page of 100 such links held the server 13 s). Real patterns have tens
 * (`^/(docs|api|blog)/[a-z0-9-]+/?$`: 45); a literal has one per character, so the longest pattern accepted, 2,048
 * characters, fits.
 */
export const MAX_PATTERN_INSTRUCTIONS = 4000;

/** Most instructions of a request's patterns together (includePaths and excludePaths): every link is tested against each. */
export const MAX_PATTERNS_INSTRUCTIONS = 20_000;

/** The size of a compiled pattern's RE2 program (re2js 2.10's compiled program). */
const instructionsOf = (re: RE2JS): number => (re as unknown as { re2Input: { prog: { inst: unknown[] } } }).re2Input.prog.inst.length;

/**
 * The pattern compiled for matching, or undefined when RE2 cannot compile it (upstream drops such patterns too) or
 * it is over {@link MAX_PATTERN_INSTRUCTIONS} (refused when the request arrives, see {@link pathPatternProblem}).
 */
export function compilePathPattern(source: string): PathPattern | undefined {
  try {
    const re = RE2JS.compile(source);
    if (instructionsOf(re) > MAX_PATTERN_INSTRUCTIONS) return undefined;
    return { source, test: (target) => re.test(target) };
  } catch {
    return undefined;
  }
}

/**
 * Program sizes of patterns already compiled, `null` for those RE2 cannot compile: a request's validation asks for
 * each pattern alone and for all together, and every status read of a finished crawl asks again (a 2 KB pattern
 * takes 1 ms to compile).
 */
const sizes = new Map<string, number | null>();
const MAX_REMEMBERED_PATTERNS = 10_000;

/** The size of RE2's program for `source`, or undefined when RE2 cannot compile it; remembered. */
function programSize(source: string): number | undefined {
  let size = sizes.get(source);
  if (size === undefined) {
    try {
      size = instructionsOf(RE2JS.compile(source));
    } catch {
      size = null;
    }
    if (sizes.size >= MAX_REMEMBERED_PATTERNS) sizes.clear();
    sizes.set(source, size);
  }
  return size ?? undefined;
}

/** Whether `source` is matched when a crawl runs ({@link compilePathPattern} compiles it). */
function compiles(source: string): boolean {
  const size = programSize(source);
  return size !== undefined && size <= MAX_PATTERN_INSTRUCTIONS;
}

/**
 * Why a request's pattern is refused (JavaScript's RegExp message, as upstream's; or too large a program), or
 * undefined when it is accepted.
 */
export function pathPatternProblem(source: string): string | undefined {
  const size = programSize(source);
  if (size !== undefined && size > MAX_PATTERN_INSTRUCTIONS) return tooComplex(size, MAX_PATTERN_INSTRUCTIONS, "this pattern compiles");
  try {
    new RegExp(source);
    return undefined;
  } catch (e) {
    return size !== undefined ? undefined : e instanceof Error ? e.message : String(e);
  }
}

/** Why a request's patterns together are refused ({@link MAX_PATTERNS_INSTRUCTIONS}), or undefined. */
export function pathPatternsProblem(sources: readonly string[]): string | undefined {
  let total = 0;
  for (const s of sources) total += programSize(s) ?? 0;
  return total > MAX_PATTERNS_INSTRUCTIONS ? tooComplex(total, MAX_PATTERNS_INSTRUCTIONS, "includePaths and excludePaths together compile") : undefined;
}

const tooComplex = (size: number, max: number, what: string) =>
  `Pattern too complex: ${what} to ${size} matcher instructions, at most ${max} (every discovered URL is tested against them; large repetition counts such as {500} cost the most)`;

/**
 * The crawl warning for patterns of `o` that are not applied (RE2 cannot compile them), or undefined. Upstream drops
 * them without a word; a crawl whose only `includePaths` pattern was dropped then covers the whole site, which a
 * caller should be told.
 */
export function unappliedPatternsWarning(o: { includePaths?: readonly string[]; excludePaths?: readonly string[] } | undefined): string | undefined {
  const dropped = [...(o?.includePaths ?? []), ...(o?.excludePaths ?? [])].filter((p) => p !== "" && !compiles(p));
  if (dropped.length === 0) return undefined;
  return `These includePaths/excludePaths patterns were not applied: ${dropped.map((p) => JSON.stringify(p)).join(", ")} (look-around and back-references are not supported, nor patterns over ${MAX_PATTERN_INSTRUCTIONS} matcher instructions; patterns are matched as upstream's Rust regex matches them).`;
}
