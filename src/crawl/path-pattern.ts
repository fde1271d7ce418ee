/**
 * @module crawl/path-pattern
 * Crawl and map `includePaths`/`excludePaths` patterns, matched in linear time. They come from API callers, and
 * JavaScript's backtracking `RegExp` turns a pattern such as `(a+)+$` into seconds of CPU per URL: a crawl of a page
 * with 20 such links held the event loop (every request of the server) for 22 s. Upstream matches them with Rust's
 * `regex` crate, which cannot backtrack; crawlbox uses RE2 (npm `re2js`, the same family of syntax and guarantees):
 * `(?i)`, `\p{L}` and named groups work as upstream, and so do Rust's code-point escapes (`\u0041`, `\u{41}`, which
 * RE2 writes `\x{41}`); look-around and back-references exist in neither.
 *
 * Which patterns a request may carry is upstream's rule (api-v2.md §2.5): one that compiles as a JavaScript RegExp is
 * accepted (else 400 with the RegExp's message), and one the matcher cannot compile because of its syntax
 * (look-around, a back-reference) is dropped when the crawl runs, as upstream's Rust filter drops it. A pattern RE2
 * compiles is accepted too, though JavaScript would refuse it (`(?i)…`): it means what it means to upstream's
 * matcher. What the matcher could run but would not run cheaply is refused when the request arrives (400 "Pattern
 * too complex"): a program over {@link MAX_PATTERN_INSTRUCTIONS}, or a repetition RE2 refuses to expand (over
 * {@link MAX_PATTERN_REPEAT}, `[a-z]{5000}`), which upstream would apply and crawlbox could only drop.
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

/**
 * Most copies RE2 makes of a repeated part (`{n}`, `{n,}`, `{n,m}`; nested counts multiply, so `(?:a{100}){20}`
 * makes 2,000): it refuses a pattern that needs more ("invalid repeat count").
 */
export const MAX_PATTERN_REPEAT = 1000;

/** The size of a compiled pattern's RE2 program (re2js 2.10's compiled program). */
const instructionsOf = (re: RE2JS): number => (re as unknown as { re2Input: { prog: { inst: unknown[] } } }).re2Input.prog.inst.length;

/** A code point written as Rust's regex (upstream's matcher) writes one: `\u0041`, `\u{41}`, `\U00000041`, `\U{41}`; any other escape pair. */
const ESCAPE = /\\(?:u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,8})\}|U([0-9A-Fa-f]{8})|U\{([0-9A-Fa-f]{1,8})\})|\\[\s\S]/g;

/**
 * `source` as RE2 reads it: Rust's code-point escapes become RE2's `\x{…}` (JavaScript reads `\u0041` alike). A
 * surrogate or a value past U+10FFFF is left alone: Rust refuses it, and so does RE2.
 */
function re2Syntax(source: string): string {
  if (!source.includes("\\u") && !source.includes("\\U")) return source;
  return source.replace(ESCAPE, (escape: string, ...hexes: (string | undefined)[]) => {
    const hex = hexes.slice(0, 4).find((h) => h !== undefined);
    if (hex === undefined) return escape; // another escape (`\\u` is a backslash, then the letter u)
    const codePoint = Number.parseInt(hex, 16);
    return codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff) ? escape : `\\x{${hex}}`;
  });
}

/** Why RE2 refuses a pattern: its syntax (dropped when the crawl runs), or its size (refused when the request arrives). */
interface Refusal {
  readonly tooLarge: boolean;
  /** RE2's message, e.g. "error parsing regexp: invalid repeat count: `{5000}`". */
  readonly message: string;
}

/** RE2's refusals that are about size, not syntax: a repetition past {@link MAX_PATTERN_REPEAT}, or a program past RE2's own bound. */
const SIZE_REFUSALS = ["invalid repeat count", "expression too large"];

function compileRe2(source: string): RE2JS | Refusal {
  try {
    return RE2JS.compile(re2Syntax(source));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { tooLarge: SIZE_REFUSALS.some((s) => message.includes(s)), message };
  }
}

/**
 * The pattern compiled for matching, or undefined when RE2 cannot compile it (upstream drops such patterns too) or
 * it is over {@link MAX_PATTERN_INSTRUCTIONS} (refused when the request arrives, see {@link pathPatternProblem}).
 */
export function compilePathPattern(source: string): PathPattern | undefined {
  const re = compileRe2(source);
  if (!(re instanceof RE2JS) || instructionsOf(re) > MAX_PATTERN_INSTRUCTIONS) return undefined;
  return { source, test: (target) => re.test(target) };
}

/**
 * Program sizes of patterns already compiled, or why RE2 refuses them: a request's validation asks for each
 * pattern alone and for all together, and every status read of a finished crawl asks again (a 2 KB pattern takes
 * 1 ms to compile).
 */
const analyses = new Map<string, number | Refusal>();
const MAX_REMEMBERED_PATTERNS = 10_000;

/** The size of RE2's program for `source`, or why RE2 refuses it; remembered. */
function analyse(source: string): number | Refusal {
  let analysis = analyses.get(source);
  if (analysis === undefined) {
    const re = compileRe2(source);
    analysis = re instanceof RE2JS ? instructionsOf(re) : re;
    if (analyses.size >= MAX_REMEMBERED_PATTERNS) analyses.clear();
    analyses.set(source, analysis);
  }
  return analysis;
}

/** Whether `source` is matched when a crawl runs ({@link compilePathPattern} compiles it). */
function compiles(source: string): boolean {
  const analysis = analyse(source);
  return typeof analysis === "number" && analysis <= MAX_PATTERN_INSTRUCTIONS;
}

/** JavaScript's RegExp message for `source` (upstream's check), or undefined when it compiles. */
function regExpProblem(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Why a request's pattern is refused (JavaScript's RegExp message, as upstream's; or too large a program or
 * repetition for the matcher), or undefined when it is accepted.
 */
export function pathPatternProblem(source: string): string | undefined {
  const analysis = analyse(source);
  if (typeof analysis === "number") {
    return analysis > MAX_PATTERN_INSTRUCTIONS ? tooComplex(analysis, MAX_PATTERN_INSTRUCTIONS, "this pattern compiles") : undefined;
  }
  const refused = regExpProblem(source);
  if (refused !== undefined) return refused;
  // Valid for upstream, whose Rust matcher would apply it; crawlbox could only drop it, and a crawl whose include
  // was dropped covers the whole site.
  if (analysis.tooLarge) return tooLarge(analysis.message);
  return undefined; // look-around, a back-reference: upstream's matcher drops it too (the status's warning names it)
}

/** Why a request's patterns together are refused ({@link MAX_PATTERNS_INSTRUCTIONS}), or undefined. */
export function pathPatternsProblem(sources: readonly string[]): string | undefined {
  let total = 0;
  for (const s of sources) {
    const analysis = analyse(s);
    if (typeof analysis === "number") total += analysis;
  }
  return total > MAX_PATTERNS_INSTRUCTIONS ? tooComplex(total, MAX_PATTERNS_INSTRUCTIONS, "includePaths and excludePaths together compile") : undefined;
}

const tooComplex = (size: number, max: number, what: string) =>
  `Pattern too complex: ${what} to ${size} matcher instructions, at most ${max} (every discovered URL is tested against them; large repetition counts such as {500} cost the most)`;

const tooLarge = (re2Message: string) => {
  const count = /invalid repeat count: (`[^`]*`)/.exec(re2Message)?.[1];
  return count !== undefined
    ? `Pattern too complex: the repetition ${count} asks the matcher (RE2) for more than ${MAX_PATTERN_REPEAT} copies of a part, which it cannot run (nested counts multiply: (?:a{100}){20} is 2000 copies); use a smaller count, or + or *`
    : `Pattern too complex: the matcher (RE2) cannot run a pattern this large (${re2Message})`;
};

/**
 * The crawl warning for patterns of `o` that are not applied (RE2 cannot compile them), or undefined. Upstream drops
 * them without a word; a crawl whose only `includePaths` pattern was dropped then covers the whole site, which a
 * caller should be told.
 */
export function unappliedPatternsWarning(o: { includePaths?: readonly string[]; excludePaths?: readonly string[] } | undefined): string | undefined {
  const dropped = [...(o?.includePaths ?? []), ...(o?.excludePaths ?? [])].filter((p) => p !== "" && !compiles(p));
  if (dropped.length === 0) return undefined;
  return `These includePaths/excludePaths patterns were not applied: ${dropped.map((p) => JSON.stringify(p)).join(", ")} (the matcher, RE2, cannot compile them: look-around and back-references are not supported, as in upstream's Rust regex matcher).`;
}
