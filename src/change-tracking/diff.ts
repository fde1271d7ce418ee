/**
 * @module change-tracking/diff
 * The `git-diff` mode of changeTracking (api-v2.md §6.1): a unified diff of the previous and current markdown
 * (`diff.text`) and the same diff parsed into files → chunks → changes (`diff.json`), in the shape upstream's
 * `parse-diff` produces, so clients written against upstream read it unchanged. And the change test itself:
 * whitespace-only changes do not count.
 */
import { structuredPatch } from "diff";

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
  return markdown.replace(/\[iframe\]\([^)]*\)/g, "").replace(/\s+/g, "");
}

/** True when the two versions differ in more than whitespace. */
export function hasChanged(previous: string, current: string): boolean {
  return comparable(previous) !== comparable(current);
}

/** The unified diff of two markdown versions, as text and as parsed JSON. */
export function markdownDiff(previous: string, current: string): { text: string; json: DiffJson } {
  const patch = structuredPatch("previous", "current", previous, current, undefined, undefined, { context: CONTEXT_LINES });
  const text: string[] = ["--- previous", "+++ current"];
  const chunks: DiffChunk[] = [];
  let additions = 0;
  let deletions = 0;
  for (const h of patch.hunks) {
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
