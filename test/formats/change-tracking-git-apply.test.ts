/**
 * Every changeTracking `diff.text` is a patch plain `git apply` (no `--unidiff-zero`) and GNU `patch -p1 -F0` apply
 * to the previous markdown, written to a file of a temporary git repository: giving the current markdown, or, for a
 * diff cut to its bounds, the intermediate version its first changes make (both tools the same). One exception,
 * documented in docs/llm.md: a change whose neighbouring line is too long to be its context is shown with no context
 * at all, which GNU patch and `git apply --unidiff-zero` apply and plain `git apply` does not.
 *
 * Near the bounds (10,000 lines, 1,000,000 characters: change-tracking/diff-bounds.ts) a hunk that fitted only without
 * context was shown with none, and plain `git apply` refused it: a hunk now keeps at least the line after its changes
 * (none before). Each narrower context is tried, widest first: one line each side can fit where the line after only
 * does not (two nearby changes then split into two hunks, two headers), and trying only the narrowest cut the diff.
 * A change whose neighbouring line is too long even for that was then not shown at all: it is shown without context
 * again, the warning saying so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { markdownDiff } from "../../src/change-tracking/diff.ts";
import { boundedHunks, contextLeftOutWarning, DIFF_MAX_LINES, DIFF_MAX_TEXT_CHARS, diffCutWarning } from "../../src/change-tracking/diff-bounds.ts";
import { placedByPlainGit } from "../../src/change-tracking/hunks.ts";
import { lineEdits, splitLines, type Edit } from "../../src/change-tracking/line-diff.ts";

const GIT = Bun.which("git")!;
const PATCH = Bun.which("patch")!;
let repo: string;

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "ct-git-apply-"));
  expect(Bun.spawnSync([GIT, "init", "-q", repo]).exitCode).toBe(0);
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/**
 * What plain `git apply` (or with `gitOptions`) and `patch -p1 -F0` make of `previous` with `text`: the patched text, or null when the tool
 * refuses it. `git apply` patches the file the diff's `+++ current` names (`-p1` keeps a name without a slash).
 */
function applyPlain(previous: string, text: string, gitOptions: string[] = []): { git: string | null; patch: string | null; gitError?: string } {
  writeFileSync(join(repo, "page.diff"), text);
  writeFileSync(join(repo, "current"), previous);
  const check = Bun.spawnSync([GIT, "apply", "--check", ...gitOptions, "page.diff"], { cwd: repo, stderr: "pipe", stdout: "pipe" });
  let git: string | null = null;
  if (check.exitCode === 0 && Bun.spawnSync([GIT, "apply", ...gitOptions, "page.diff"], { cwd: repo, stderr: "pipe" }).exitCode === 0) git = readFileSync(join(repo, "current"), "utf8");
  writeFileSync(join(repo, "page.md"), previous);
  const out = join(repo, "out.md");
  rmSync(out, { force: true });
  const p = Bun.spawnSync([PATCH, "-p1", "-F0", "-s", "-f", "-o", out, join(repo, "page.md"), "-i", join(repo, "page.diff")], { cwd: repo, stderr: "pipe", stdout: "pipe" });
  const patch = p.exitCode === 0 ? readFileSync(out, "utf8") : null;
  return git === null ? { git, patch, gitError: check.stderr.toString().trim().split("\n")[0] } : { git, patch };
}

/** The diff text of hunks, as diff.ts writes it. */
const textOf = (hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[]) =>
  ["--- previous", "+++ current", ...hunks.flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines])].join("\n") + "\n";

/** Whether a hunk has no context before its changes and is not at the page's start: narrowed to the line after. */
const afterOnly = (h: { oldStart: number; lines: string[] }) => h.oldStart > 1 && (h.lines[0]!.startsWith("-") || h.lines[0]!.startsWith("+"));

describe("at the real bounds", () => {
  /**
   * A page of short lines with changes 10 lines apart (one hunk each, 8 lines at full context), the first one shaped
   * by `first` so that the room the bounds leave for a later hunk sweeps over every remainder: one of them fits only
   * with less context. `lineChars` pads the lines so that the character bound binds instead of the line bound.
   */
  function page(first: number, lineChars: number, changes: number) {
    const pad = (s: string) => s.padEnd(lineChars, ".");
    const a: string[] = [];
    const b: string[] = [];
    const edits: Edit[] = [];
    // The first change: `first` selects where (line 0, 1 or 2) and what (a replacement, a deletion, two lines added).
    const at = first % 3;
    const kind = Math.floor(first / 3) % 3;
    for (let i = 0; i < at; i++) a.push(pad(`head ${i}`)), b.push(pad(`head ${i}`));
    edits.push({ aStart: a.length, aEnd: a.length + (kind === 2 ? 0 : 1), bStart: b.length, bEnd: b.length + (kind === 0 ? 1 : kind === 2 ? 2 : 0) });
    if (kind !== 2) a.push(pad("first old"));
    if (kind === 0) b.push(pad("first new"));
    if (kind === 2) b.push(pad("first added"), pad("second added"));
    for (let k = 0; k < changes; k++) {
      for (let i = 0; i < 10; i++) a.push(pad(`k${k} line ${i}`)), b.push(pad(`k${k} line ${i}`));
      edits.push({ aStart: a.length, aEnd: a.length + 1, bStart: b.length, bEnd: b.length + 1 });
      a.push(pad(`old ${k}`));
      b.push(pad(`new ${k}`));
    }
    for (let i = 0; i < 10; i++) a.push(pad(`tail ${i}`)), b.push(pad(`tail ${i}`));
    const previous = a.join("\n");
    const current = b.join("\n");
    const d = { a: splitLines(previous), b: splitLines(current), edits };
    return { previous, current, d };
  }

  test("sweeps over the line bound and the character bound: every diff applies with plain git apply and patch -p1", () => {
    const failures: unknown[] = [];
    let narrowed = 0;
    let cut = 0;
    let tried = 0;
    // 1,260 changes of 8 lines pass the line bound; 1,200 of lines of 100 characters and 1,000 of 133 pass the
    // character bound first (a hunk is 8 lines and its header).
    const changes: Record<number, number> = { 8: 1_260, 100: 1_200, 133: 1_000 };
    for (const lineChars of [8, 100, 133]) {
      for (let first = 0; first < 9; first++) {
        const { previous, current, d } = page(first, lineChars, changes[lineChars]!);
        const diff = markdownDiff(previous, current, () => d);
        tried++;
        const chunks = diff.json.files[0]!.chunks;
        const hunks = chunks.map((c) => ({ oldStart: c.oldStart, lines: c.changes.map((x) => x.content) }));
        if (hunks.some(afterOnly)) narrowed++;
        if (diff.cut) cut++;
        const shown = chunks.flatMap((c) => c.changes).filter((c) => !c.content.startsWith("\\")).length;
        expect(shown).toBeLessThanOrEqual(DIFF_MAX_LINES);
        expect(diff.text.length).toBeLessThanOrEqual(DIFF_MAX_TEXT_CHARS + 200 + chunks.length * 60);
        const r = applyPlain(previous, diff.text);
        if (r.git === null || r.patch !== r.git || (!diff.cut && r.git !== current)) failures.push({ lineChars, first, cut: diff.cut, gitError: r.gitError, patchOk: r.patch !== null, last: chunks.at(-1)?.content });
      }
    }
    expect(tried).toBe(27);
    expect(failures).toEqual([]);
    expect(cut).toBe(27);
    // The remainders that fit a hunk only with the line after it: shown with that line (they had no context at all).
    expect(narrowed).toBeGreaterThan(0);
    console.log(`real bounds: ${tried} diffs, ${cut} cut, ${narrowed} with a hunk narrowed to the line after its change`);
  });

  test("a change between two lines too long for the diff: shown with no context at all (it was not shown), the exception plain git apply refuses", () => {
    const big = `A long paragraph ${"word ".repeat(224_000)}end.`;
    const previous = `${big}\nPrice: 10 USD\n${big}\nFooter`;
    const current = previous.replace("10 USD", "12 USD");
    const d = markdownDiff(previous, current);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -2,1 +2,1 @@\n-Price: 10 USD\n+Price: 12 USD\n");
    expect(d.cut).toBeUndefined();
    // Left out: the paragraphs before and after, and the last line ("\\ No newline at end of file" after it).
    expect(d.contextLeftOut).toEqual({ lines: 3, chars: 2 * (big.length + 2) + "Footer".length + 3 + "\\ No newline at end of file".length, bareHunks: 1 });
    expect(applyPlain(previous, d.text, ["--unidiff-zero"])).toEqual({ git: current, patch: current });
    expect(applyPlain(previous, d.text).git).toBeNull();
    const warning = contextLeftOutWarning(d.contextLeftOut!, 3);
    expect(warning).toContain("1 hunk has no context line at all");
    expect(warning).toContain("GNU patch and git apply --unidiff-zero apply the diff by its line numbers, plain git apply refuses them or, for added lines, puts them at the page's end.");
  });

  test("a line changed above a line of a megabyte (the reviewer's old → new before 1 MB): shown without context, not cut to nothing", () => {
    const big = "x".repeat(1_000_000);
    const d = markdownDiff(`old\n${big}`, `new\n${big}`);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -1,1 +1,1 @@\n-old\n+new\n");
    expect(d.cut).toBeUndefined();
    expect(d.contextLeftOut?.bareHunks).toBe(1);
    expect(applyPlain(`old\n${big}`, d.text, ["--unidiff-zero"])).toEqual({ git: `new\n${big}`, patch: `new\n${big}` });
  });

  test("a line added after a page's only line, too long to be context: no valid context exists within the bounds, so it is the exception too", () => {
    const line = "x".repeat(1_000_005);
    const d = markdownDiff(`${line}\n`, `${line}\nnew`);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -1,0 +2,1 @@\n+new\n\\ No newline at end of file\n");
    // Plain git apply takes `-1,0` as anchored at the start of the file and refuses it.
    expect(applyPlain(`${line}\n`, d.text).git).toBeNull();
    expect(applyPlain(`${line}\n`, d.text, ["--unidiff-zero"])).toEqual({ git: `${line}\nnew`, patch: `${line}\nnew` });
    expect(d.contextLeftOut).toEqual({ lines: 1, chars: line.length + 2, bareHunks: 1 });
  });

  test("two changes two lines apart that fit with one line each side but not at the line after only (two hunk headers): shown whole, not cut", () => {
    const k = 499_880;
    const pad = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const g = "g".repeat(55);
    const previous = ["o".repeat(k), ...pad, "b", "old1", g, "c", "old2", "d", ...pad].join("\n");
    const current = ["n".repeat(k), ...pad, "b", "new1", g, "c", "new2", "d", ...pad].join("\n");
    const d = markdownDiff(previous, current);
    expect(d.cut).toBeUndefined();
    expect(d.text).toContain("-old2\n+new2\n");
    expect(d.json.files[0]!.chunks).toHaveLength(2);
    expect(applyPlain(previous, d.text)).toEqual({ git: current, patch: current });
  });

  test("a change before a line too long for the diff, after a short one: shown with none before and the short line after", () => {
    const big = `A long paragraph ${"word ".repeat(224_000)}end.`;
    const previous = `Intro\n${big}\nPrice: 10 USD\nShort line\n${big}\nFooter`;
    const current = previous.replace("10 USD", "12 USD");
    const d = markdownDiff(previous, current);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -3,2 +3,2 @@\n-Price: 10 USD\n+Price: 12 USD\n Short line\n");
    expect(d.contextLeftOut).toBeDefined();
    expect(applyPlain(previous, d.text)).toEqual({ git: current, patch: current });
  });

  test("a change at the page's end after a line too long for the diff: no context at all, anchored at the end", () => {
    const big = `A long paragraph ${"word ".repeat(224_000)}end.`;
    const previous = `Intro\n${big}\nPrice: 10 USD`;
    const current = previous.replace("10 USD", "12 USD");
    const d = markdownDiff(previous, current);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -3,1 +3,1 @@\n-Price: 10 USD\n\\ No newline at end of file\n+Price: 12 USD\n\\ No newline at end of file\n");
    expect(applyPlain(previous, d.text)).toEqual({ git: current, patch: current });
  });
});

describe("under small bounds", () => {
  test("fuzz: 1,500 pairs, bounds of 3–32 lines and 80–980 characters: every diff applies with plain git apply and patch -p1, but the exception (git apply --unidiff-zero)", () => {
    let seed = 777;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const words = ["", "", "---", "News", "- item", "alpha", "a much longer line of text here", "x".repeat(120), "y".repeat(300)];
    const word = () => words[rand(words.length)]!;
    const failures: unknown[] = [];
    let tried = 0;
    let cut = 0;
    let narrowed = 0;
    let bare = 0;
    while (tried < 1_500) {
      const a = Array.from({ length: 4 + rand(40) }, word);
      const b = [...a];
      for (let e = 1 + rand(8); e > 0; e--) {
        const at = rand(b.length + 1);
        const what = rand(4);
        if (what === 0) b.splice(at, 0, word(), word());
        else if (what === 1 && b.length > 1) b.splice(Math.min(at, b.length - 1), 1 + rand(3));
        else if (what === 2) b.splice(at, 0, ...b.slice(at, at + 1 + rand(3)));
        else b[Math.min(at, b.length - 1)] = word();
      }
      const previous = a.join("\n") + (rand(2) ? "\n" : "");
      const current = b.join("\n") + (rand(2) ? "\n" : "");
      if (previous === current) continue;
      tried++;
      const bounds = { lines: 3 + rand(30), chars: 80 + rand(900) };
      const r = boundedHunks(lineEdits(previous, current, 5_000), 3, bounds);
      if (r.cut) cut++;
      if (r.hunks.some(afterOnly)) narrowed++;
      if (r.hunks.length === 0) continue;
      // The exception: a hunk without context that plain git apply does not place, counted by the warning.
      const bareHunks = r.hunks.filter((h) => !placedByPlainGit(h, splitLines(previous).length)).length;
      if (bareHunks !== (r.contextLeftOut?.bareHunks ?? 0)) failures.push({ previous, current, bounds, bareHunks, contextLeftOut: r.contextLeftOut });
      if (bareHunks > 0) bare++;
      const applied = applyPlain(previous, textOf(r.hunks), bareHunks > 0 ? ["--unidiff-zero"] : []);
      if (applied.git === null || applied.patch !== applied.git || (!r.cut && applied.git !== current)) failures.push({ previous, current, bounds, text: textOf(r.hunks), applied });
    }
    expect(cut).toBeGreaterThan(500);
    expect(narrowed).toBeGreaterThan(20);
    expect(bare).toBeGreaterThan(0);
    expect(bare).toBeLessThan(tried / 5);
    expect(failures.length).toBe(0);
  }, 60_000);
});

describe("the cut warning says why, per case", () => {
  const big = "x".repeat(1_100_000);

  test("the first change a line too long for the diff by itself: none shown, and it says so (it said the page changed too much)", () => {
    const d = markdownDiff(`a\n${big}\nb`, `a\n${big}y\nb`);
    expect(d.text).toBe("--- previous\n+++ current\n");
    expect(d.cut).toEqual({ shownLines: 0, totalLines: 4, longLine: { lineChars: big.length } });
    const w = diffCutWarning(d.cut!);
    expect(w).toBe(`The changeTracking diff shows none of its 4 lines (at most ${DIFF_MAX_LINES} lines and ${DIFF_MAX_TEXT_CHARS} characters): its first change has a line of ${big.length} characters, too long for the diff by itself.`);
    expect(w).not.toContain("changed too much");
  });

  test("a later change a line too long: the first ones shown, the warning names the line", () => {
    const pad = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const previous = ["old", ...pad, big, "z"].join("\n");
    const current = ["new", ...pad, `${big}y`, "z"].join("\n");
    const d = markdownDiff(previous, current);
    expect(d.cut).toMatchObject({ longLine: { lineChars: big.length } });
    expect(d.cut!.shownLines).toBeGreaterThan(0);
    expect(diffCutWarning(d.cut!)).toContain(`its next change has a line of ${big.length} characters, too long for the diff by itself.`);
    expect(applyPlain(previous, d.text).git).toStartWith("new\n");
  });

  test("many changes: the page changed too much", () => {
    const lines = (p: string) => Array.from({ length: 20_000 }, (_, i) => `${p}${i}`).join("\n");
    const d = markdownDiff(lines("a"), lines("b"));
    expect(d.cut?.longLine).toBeUndefined();
    expect(diffCutWarning(d.cut!)).toEndWith("the page changed too much to show in full.");
  });
});

test("docs/llm.md states the one exception to plain git apply, with the warning's words", () => {
  const doc = readFileSync(join(import.meta.dir, "../../docs/llm.md"), "utf8").replace(/\s*\n\s*/g, " ");
  expect(doc).toContain("with one exception: a change next to lines too long to be its context");
  expect(doc).toContain("**The exception to plain `git apply`.**");
  expect(doc).toContain("Such a hunk applies with GNU `patch` and with `git apply --unidiff-zero`");
  const sentence = contextLeftOutWarning({ lines: 2, chars: 9, bareHunks: 2 }, 3).split(". ").at(-1)!.replace(/^2 hunks/, "K hunks").replace(/\.$/, "");
  expect(doc).toContain(sentence);
  expect(doc).not.toContain("is not shown: the diff is cut there");
});
