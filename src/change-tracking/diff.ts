/**
 * @module change-tracking/diff
 * The `git-diff` mode of changeTracking (api-v2.md §6.1): a unified diff of the previous and current markdown
 * (`diff.text`) and the same diff parsed into files → chunks → changes (`diff.json`), in the shape upstream's
 * `parse-diff` produces, so clients written against upstream read it unchanged. And the change test itself:
 * whitespace-only changes do not count. The line diff itself, bounded in time, is change-tracking/line-diff.ts;
 * what it shows is bounded by change-tracking/diff-bounds.ts.
 */
import { boundedHunks, DIFF_MAX_LINES, DIFF_MAX_TEXT_CHARS, type ContextLeftOut, type DiffCut } from "./diff-bounds.ts";
import { NO_NEWLINE_MARKER } from "./line-diff.ts";
import { editsOnce, type PairEdits } from "./shared-edits.ts";

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
export const CONTEXT_LINES = 3;

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
 * The `git-diff` mode's result; `cut` when its changes were more than its bounds allow, `contextLeftOut` when some were
 * shown with less context to fit them (change-tracking/diff-bounds.ts).
 */
export interface MarkdownDiff {
  text: string;
  json: DiffJson;
  /** Hunk lines shown and in all (without `\ No newline` marks). */
  cut?: DiffCut;
  /** Unchanged lines left out around changes that are shown. */
  contextLeftOut?: ContextLeftOut;
}

/**
 * The unified diff of two markdown versions, as text and as parsed JSON, bounded (change-tracking/diff-bounds.ts:
 * {@link DIFF_MAX_LINES} lines, {@link DIFF_MAX_TEXT_CHARS} characters). A line that ends its version without a
 * newline (crawlbox's markdown has no final one) is followed by `\ No newline at end of file`, as git writes it, so
 * that the text applies with `patch` and `git apply`; `diff.json` has that mark as parse-diff reports it (a change of
 * the type of the line before it, not counted in additions or deletions). `edits` is the line diff the scrape's modes
 * share (change-tracking/shared-edits.ts).
 */
export function markdownDiff(previous: string, current: string, edits: PairEdits = editsOnce(previous, current)): MarkdownDiff {
  const bounded = boundedHunks(edits(), CONTEXT_LINES, { lines: DIFF_MAX_LINES, chars: DIFF_MAX_TEXT_CHARS });
  const text: string[] = ["--- previous", "+++ current"];
  const chunks: DiffChunk[] = [];
  let additions = 0;
  let deletions = 0;
  for (const h of bounded.hunks) {
    const header = `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
    text.push(header);
    const changes: DiffChange[] = [];
    let ln1 = h.oldStart;
    let ln2 = h.newStart;
    for (const line of h.lines) {
      text.push(line);
      if (line === NO_NEWLINE_MARKER) {
        const last = changes[changes.length - 1];
        if (last) changes.push({ ...last, content: line });
      } else if (line.startsWith("+")) {
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
  const diff: MarkdownDiff = { text: text.join("\n") + "\n", json: { files: [{ from: "previous", to: "current", chunks, additions, deletions }] } };
  if (bounded.cut) diff.cut = bounded.cut;
  if (bounded.contextLeftOut) diff.contextLeftOut = bounded.contextLeftOut;
  return diff;
}
