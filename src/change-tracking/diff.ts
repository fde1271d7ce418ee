/**
 * @module change-tracking/diff
 * The `git-diff` mode of changeTracking (api-v2.md §6.1): a unified diff of the previous and current markdown
 * (`diff.text`) and the same diff parsed into files → chunks → changes (`diff.json`), in the shape upstream's
 * `parse-diff` produces, so clients written against upstream read it unchanged. And the change test itself:
 * whitespace-only changes do not count. A rewrite too large to diff cheaply is reported as one hunk replacing the
 * whole page ({@link DIFF_MAX_EDITS}).
 */
import { structuredPatch, type StructuredPatchHunk } from "diff";

/** One line of a chunk, as parse-diff reports it. */
export type DiffChange =
  | { type: "normal"; normal: true; ln1: number; ln2: number; content: string }
  | { type: "add"; add: true; ln: number; content: string }
  | { type: "del"; del: true; ln: number; content: string };

/** A hunk: its `@@` header and lines. */
export interface DiffChunk {
  content: string;
  changes: DiffChange[];
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

/** A parsed diff (one "file": the page). */
export interface DiffJson {
  files: { from: string; to: string; chunks: DiffChunk[]; additions: number; deletions: number }[];
}

/** Lines of context around each change, as git's default. */
const CONTEXT_LINES = 3;

/** Markdown reduced for comparison: whitespace and `[iframe](…)` placeholders do not count as changes. */
export function comparable(markdown: string): string {
  return withoutIframePlaceholders(markdown).replace(/\s+/g, "");
}

const IFRAME_PLACEHOLDER = "[iframe](";

/**
 * `markdown` less each `[iframe](…)` up to the first `)`: what `/\[iframe\]\([^)]*\)/g` removes, without that
 * regex's rescan of the rest of the text from every `[iframe](` that has no `)` after it (quadratic: 360 KB of them
 * took 1.7 s). With no `)` left, no later placeholder can end either.
 */
function withoutIframePlaceholders(markdown: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const start = markdown.indexOf(IFRAME_PLACEHOLDER, from);
    if (start < 0) break;
    const end = markdown.indexOf(")", start + IFRAME_PLACEHOLDER.length);
    if (end < 0) break;
    out += markdown.slice(from, start);
    from = end + 1;
  }
  return from === 0 ? markdown : out + markdown.slice(from);
}

/** True when the two versions differ in more than whitespace. */
export function hasChanged(previous: string, current: string): boolean {
  return comparable(previous) !== comparable(current);
}

/**
 * Edits (lines deleted plus lines added) the line diff looks for before it gives up. Myers' diff costs about the
 * square of the edits: two pages of 8,000 lines that all changed took over 30 s on the event loop. Past this many
 * edits a minimal diff says little more than "the page was rewritten", which is what the fallback says.
 */
export const DIFF_MAX_EDITS = 1_000;
/** And the time it may take in any case (long runs of repeated lines make each edit costlier). */
export const DIFF_TIMEOUT_MS = 1_000;

/**
 * The hunks of the line diff of two texts, as jsdiff's `structuredPatch` gives them, with `contextLines` of context.
 * When the diff gives up ({@link DIFF_MAX_EDITS}, {@link DIFF_TIMEOUT_MS}), one hunk replacing every line of
 * `previous` with every line of `current`, written as jsdiff writes such a hunk.
 */
export function lineDiffHunks(previous: string, current: string, contextLines: number): StructuredPatchHunk[] {
  const options = { context: contextLines, maxEditLength: DIFF_MAX_EDITS, timeout: DIFF_TIMEOUT_MS };
  const patch = structuredPatch("previous", "current", previous, current, undefined, undefined, options);
  return patch ? patch.hunks : [wholeReplacement(previous, current)];
}

/** One hunk deleting all lines of `previous` and adding all of `current` (jsdiff's layout: `\ No newline…` marks). */
function wholeReplacement(previous: string, current: string): StructuredPatchHunk {
  const removed = splitLines(previous);
  const added = splitLines(current);
  const lines: string[] = [];
  for (const [sign, side] of [["-", removed], ["+", added]] as const) {
    for (const line of side) {
      if (line.endsWith("\n")) lines.push(sign + line.slice(0, -1));
      else lines.push(sign + line, "\\ No newline at end of file");
    }
  }
  return { oldStart: 1, oldLines: removed.length, newStart: 1, newLines: added.length, lines };
}

/** Lines with their `\n` (the last may lack one), as jsdiff splits them; none for empty text. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => `${line}\n`);
  const last = lines.pop() as string;
  if (last !== "\n") lines.push(last.slice(0, -1));
  return lines;
}

/** The unified diff of two markdown versions, as text and as parsed JSON. */
export function markdownDiff(previous: string, current: string): { text: string; json: DiffJson } {
  const hunks = lineDiffHunks(previous, current, CONTEXT_LINES);
  const text: string[] = ["--- previous", "+++ current"];
  const chunks: DiffChunk[] = [];
  let additions = 0;
  let deletions = 0;
  for (const h of hunks) {
    const header = `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
    text.push(header);
    const changes: DiffChange[] = [];
    let ln1 = h.oldStart;
    let ln2 = h.newStart;
    for (const line of h.lines) {
      if (line.startsWith("\\")) continue; // "\ No newline at end of file"
      text.push(line);
      if (line.startsWith("+")) {
        changes.push({ type: "add", add: true, ln: ln2++, content: line });
        additions++;
      } else if (line.startsWith("-")) {
        changes.push({ type: "del", del: true, ln: ln1++, content: line });
        deletions++;
      } else {
        changes.push({ type: "normal", normal: true, ln1: ln1++, ln2: ln2++, content: line });
      }
    }
    chunks.push({ content: header, changes, oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines });
  }
  return { text: text.join("\n") + "\n", json: { files: [{ from: "previous", to: "current", chunks, additions, deletions }] } };
}
