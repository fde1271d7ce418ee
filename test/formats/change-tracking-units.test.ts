/**
 * changeTracking's units: the markdown diff (whitespace-only is not a change; git-style hunks with line numbers)
 * and the change excerpts a model is sent for a long page (whole versions when they fit, else the changed passages).
 * The format through the API is in test/formats/change-tracking.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { markdownDiff, hasChanged } from "../../src/change-tracking/diff.ts";
import { changeExcerpts } from "../../src/change-tracking/excerpts.ts";

describe("changeTracking units", () => {
  test("diff units: whitespace-only is not a change; line numbers", () => {
    expect(hasChanged("a b\n\nc", "a  b\nc ")).toBe(false);
    expect(hasChanged("a b", "a c")).toBe(true);
    const d = markdownDiff("one\ntwo\nthree\n", "one\n2\nthree\nfour\n");
    expect(d.json.files[0]!.additions).toBe(2);
    expect(d.json.files[0]!.deletions).toBe(1);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n");
  });

  test("change excerpts: whole versions when they fit; else the changed passages, the first ones when not all fit", () => {
    expect(changeExcerpts("a\nb\n", "a\nc\n", 100)).toMatchObject({ previous: "a\nb\n", current: "a\nc\n", excerpted: false });
    const lines = (n: number, changed: Set<number>, tag: string) => Array.from({ length: n }, (_, i) => (changed.has(i) ? `line ${i} ${tag}` : `line ${i} same`)).join("\n") + "\n";
    const prev = lines(100, new Set([50, 80]), "old");
    const cur = lines(100, new Set([50, 80]), "new");
    const x = changeExcerpts(prev, cur, 500);
    expect(x).toMatchObject({ excerpted: true, totalChanges: 2, shownChanges: 2, cut: false });
    expect(x.previous).toContain("[lines 48-54]\nline 47 same\nline 48 same\nline 49 same\nline 50 old\nline 51 same\nline 52 same\nline 53 same\n…\n[lines 78-84]");
    expect(x.current).toContain("line 80 new");
    expect(x.previous).not.toContain("line 10 ");
    expect(x.previous.length + x.current.length).toBeLessThanOrEqual(500);
    // Room for one passage: the first is kept, the rest counted as left out.
    const one = changeExcerpts(prev, cur, 300);
    expect(one).toMatchObject({ totalChanges: 2, shownChanges: 1, cut: false });
    expect(one.current).toContain("line 50 new");
    expect(one.current).not.toContain("line 80");
    // Not even the first fits: it is cut, within the budget.
    const cut = changeExcerpts(prev, cur, 100);
    expect(cut).toMatchObject({ shownChanges: 1, cut: true });
    expect(cut.previous.length + cut.current.length).toBeLessThanOrEqual(100);
  });
});
