/**
 * @module change-tracking/excerpts
 * What the model sees of two page versions in changeTracking's `json` mode without a schema (llm/client.ts
 * describeChange). Both versions whole when they fit its room; otherwise only the passages that changed, each with a
 * little context, from a line diff: the start of each version would hide a change further down a long page.
 */
import { leadingWithin, weightedLength } from "../llm/chunk.ts";
import { hunksOf } from "./hunks.ts";
import { editsOnce, type PairEdits } from "./shared-edits.ts";

/** Unchanged lines shown before and after each changed passage, so the model sees where it sits (git's default). */
export const EXCERPT_CONTEXT_LINES = 3;

/** The two versions as the model gets them. */
export interface ChangeExcerpts {
  previous: string;
  current: string;
  /** False: both versions are whole. True: they are the changed passages only (with line numbers). */
  excerpted: boolean;
  /** Changed passages (diff hunks) in all, and how many of them are shown (the first ones). */
  totalChanges: number;
  shownChanges: number;
  /** The last passage shown is cut short (it alone did not fit). */
  cut: boolean;
}

/** `[lines 4-9]`: which lines of its version a passage is. */
function lineRange(start: number, count: number): string {
  if (count === 0) return `[no lines, after line ${start}]`;
  return count === 1 ? `[line ${start}]` : `[lines ${start}-${start + count - 1}]`;
}

/** Separates two passages of the same version. */
const PASSAGE_SEPARATOR = "\n…\n";

/**
 * The versions the model compares, in at most `budgetChars` characters together (by llm/chunk.ts `weightedLength`: a
 * Chinese character counts as the ASCII characters of its tokens): both whole when they fit, else
 * the changed passages of each, in page order, as many as fit. When even the first one does not fit, it is cut
 * (each side keeps at least half the room, or all it needs). `edits` is the line diff the scrape's modes share
 * (change-tracking/shared-edits.ts).
 */
export function changeExcerpts(previous: string, current: string, budgetChars: number, edits: PairEdits = editsOnce(previous, current)): ChangeExcerpts {
  if (weightedLength(previous) + weightedLength(current) <= budgetChars) {
    return { previous, current, excerpted: false, totalChanges: 0, shownChanges: 0, cut: false };
  }
  // The git-diff mode's line diff when the scrape asked for both modes, bounded alike: a page rewritten throughout is
  // one passage, the whole of both versions.
  const hunks = hunksOf(edits(), EXCERPT_CONTEXT_LINES);
  const before: string[] = [];
  const after: string[] = [];
  let used = 0;
  let cut = false;
  for (const h of hunks) {
    const lines = h.lines.filter((l) => !l.startsWith("\\")); // "\ No newline at end of file"
    const p = `${lineRange(h.oldStart, h.oldLines)}\n${lines.filter((l) => !l.startsWith("+")).map((l) => l.slice(1)).join("\n")}`;
    const c = `${lineRange(h.newStart, h.newLines)}\n${lines.filter((l) => !l.startsWith("-")).map((l) => l.slice(1)).join("\n")}`;
    const separators = before.length > 0 ? 2 * PASSAGE_SEPARATOR.length : 0;
    const pSize = weightedLength(p);
    const cSize = weightedLength(c);
    if (used + separators + pSize + cSize <= budgetChars) {
      before.push(p);
      after.push(c);
      used += separators + pSize + cSize;
      continue;
    }
    if (before.length === 0) {
      // The first change alone is too long: its start, shared fairly between the two sides.
      const half = Math.floor(budgetChars / 2);
      const pChars = Math.min(pSize, Math.max(half, budgetChars - cSize));
      before.push(leadingWithin(p, pChars));
      after.push(budgetChars - pChars >= 1 ? leadingWithin(c, budgetChars - pChars) : "");
      cut = true;
    }
    break;
  }
  return {
    previous: before.join(PASSAGE_SEPARATOR),
    current: after.join(PASSAGE_SEPARATOR),
    excerpted: true,
    totalChanges: hunks.length,
    shownChanges: before.length,
    cut,
  };
}
