/**
 * changeTracking's `diff.text` is a patch GNU patch and `git apply` accept, whatever the diff is:
 * - a random fuzz of low-vocabulary pages (blank lines, `---`, repeated words), with and without a final newline:
 *   a hunk built from the changed part alone lost its trailing context when jsdiff slid an insertion of a repeated
 *   line to that part's end, and both tools took it as anchored at the end of the file (315 failures in 1,495 pairs);
 * - a diff cut to its bounds: the cut hunk ends with the previous version's lines after its last kept change, so that
 *   it turns the previous version into an intermediate one (it ended on a change and failed at its first line);
 * - a change next to an unchanged line too long for the diff: shown with less context (the diff was empty), at the
 *   least the line after it (plain `git apply` refuses a hunk without it in the middle of a page); between two such
 *   lines, with none at all, docs/llm.md's one exception: GNU patch and `git apply --unidiff-zero` apply it.
 * Patches are applied with fuzz 0 (`patch -F0`): a hunk must match exactly where it says.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { markdownDiff } from "../../src/change-tracking/diff.ts";
import { boundedHunks, DIFF_MAX_LINES, DIFF_MAX_TEXT_CHARS } from "../../src/change-tracking/diff-bounds.ts";
import { placedByPlainGit } from "../../src/change-tracking/hunks.ts";
import { lineEdits, splitLines } from "../../src/change-tracking/line-diff.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startPageSite, type PageSite } from "./pages.ts";

const PATCH = Bun.which("patch");
const GIT = Bun.which("git");

/** What GNU patch (`-F0`) and `git apply -p0` make of `previous` with `diff`: the text, or null when they refuse it. */
function applyBoth(dir: string, previous: string, diff: string, gitOptions: string[] = []): { patch: string | null; git: string | null } {
  writeFileSync(join(dir, "page.diff"), diff);
  writeFileSync(join(dir, "page.md"), previous);
  const p = Bun.spawnSync([PATCH!, "-F0", "-s", "-f", "-o", join(dir, "out.md"), join(dir, "page.md"), "-i", join(dir, "page.diff")], { cwd: dir, stderr: "pipe", stdout: "pipe" });
  const patched = p.exitCode === 0 ? readFileSync(join(dir, "out.md"), "utf8") : null;
  // `git apply` patches the file the diff's `+++ current` names.
  writeFileSync(join(dir, "current"), previous);
  const check = Bun.spawnSync([GIT!, "apply", "-p0", "--check", ...gitOptions, "page.diff"], { cwd: dir, stderr: "pipe", stdout: "pipe" });
  let git: string | null = null;
  if (check.exitCode === 0 && Bun.spawnSync([GIT!, "apply", "-p0", ...gitOptions, "page.diff"], { cwd: dir, stderr: "pipe" }).exitCode === 0) git = readFileSync(join(dir, "current"), "utf8");
  return { patch: patched, git };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ct-patch-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("GNU patch and git are installed (the checks below need them)", () => {
  expect(PATCH).toBeTruthy();
  expect(GIT).toBeTruthy();
});

describe("every diff applies", () => {
  test("the reviewer's case: a `---` deleted below an insertion among repeated lines (was @@ -6,5 +6,3 @@, Hunk #2 FAILED)", () => {
    const previous = "News\n\nNews\n\nNews\n\n---\n\n---\n\nNews";
    const current = "Intro!\n\nNews\n\nNews\n\n---\n\nNews";
    const d = markdownDiff(previous, current);
    expect(applyBoth(dir, previous, d.text)).toEqual({ patch: current, git: current });
    // Each hunk has as many context lines after its changes as before, but at the start or end of the page.
    for (const chunk of d.json.files[0]!.chunks) {
      const kinds = chunk.changes.filter((c) => !c.content.startsWith("\\")).map((c) => c.type);
      const before = kinds.indexOf(kinds.find((k) => k !== "normal")!);
      const after = kinds.length - 1 - kinds.lastIndexOf(kinds.findLast((k) => k !== "normal")!);
      const atStart = chunk.oldStart === 1;
      const atEnd = chunk.oldStart + chunk.oldLines - 1 === previous.split("\n").length;
      if (!atStart && !atEnd) expect(before).toBe(after);
    }
  });

  test("fuzz: 400 pairs of low-vocabulary pages, with and without a final newline: GNU patch and git apply give the current version", () => {
    let seed = 0x2a2a84da;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const words = ["", "", "---", "News", "News", "- item", "alpha", "# Head", "***"];
    const word = () => words[rand(words.length)]!;
    const failures: { previous: string; current: string; text: string }[] = [];
    let tried = 0;
    for (let t = 0; tried < 400 && t < 2_000; t++) {
      const a = Array.from({ length: 4 + rand(30) }, word);
      const b = [...a];
      for (let e = 1 + rand(4); e > 0; e--) {
        const at = rand(b.length + 1);
        const what = rand(4);
        if (what === 0) b.splice(at, 0, word());
        else if (what === 1 && b.length > 1) b.splice(Math.min(at, b.length - 1), 1);
        else if (what === 2) b.splice(at, 0, ...b.slice(at, at + 1 + rand(3)));
        else b[Math.min(at, b.length - 1)] = word();
      }
      const previous = a.join("\n") + (rand(2) === 0 ? "\n" : "");
      const current = b.join("\n") + (rand(2) === 0 ? "\n" : "");
      if (previous === current) continue;
      tried++;
      const d = markdownDiff(previous, current);
      const r = applyBoth(dir, previous, d.text);
      if (r.patch !== current || r.git !== current) failures.push({ previous, current, text: d.text });
    }
    expect(tried).toBe(400);
    expect(failures.slice(0, 3)).toEqual([]);
    expect(failures).toHaveLength(0);
  });
});

describe("a cut diff is a patch of the first changes", () => {
  test("6,010 paragraphs, the first and last 5 kept, the rest rewritten: the cut hunk ends with the previous version's next lines", () => {
    const paragraphs = (tag: string) => Array.from({ length: 6_010 }, (_, i) => (i < 5 || i >= 6_005 ? `Kept paragraph ${i}.` : `${tag} paragraph ${i}.`)).join("\n\n");
    const previous = paragraphs("Old");
    const current = paragraphs("New");
    const d = markdownDiff(previous, current);
    expect(d.cut).toMatchObject({ shownLines: DIFF_MAX_LINES });
    const chunk = d.json.files[0]!.chunks[0]!;
    // Context lines after the last kept change, counted in the header: the previous version's lines from there.
    const tail = chunk.changes.slice(-3);
    expect(tail.map((c) => c.type)).toEqual(["normal", "normal", "normal"]);
    const kept = chunk.changes.filter((c) => c.type === "del").length;
    const prevLines = previous.split("\n");
    const curLines = current.split("\n");
    const start = chunk.oldStart - 1 + 3; // after the 3 lines of context before the change
    expect(tail.map((c) => c.content.slice(1))).toEqual(prevLines.slice(start + kept, start + kept + 3));
    expect(chunk.oldLines).toBe(3 + kept + 3);
    const added = chunk.changes.filter((c) => c.type === "add").length;
    expect(chunk.newLines).toBe(3 + added + 3);
    // Applied, it gives an intermediate version: the current one's start, then the previous one from where the cut is.
    const intermediate = [...prevLines.slice(0, start), ...curLines.slice(start, start + added), ...prevLines.slice(start + kept)].join("\n");
    expect(applyBoth(dir, previous, d.text)).toEqual({ patch: intermediate, git: intermediate });
  });

  test("cut in the middle of a hunk of many small changes, with and without a final newline: applies", () => {
    for (const end of ["", "\n"]) {
      const previous = Array.from({ length: 30_000 }, (_, i) => (i % 2 ? "" : `row ${i}`)).join("\n") + end;
      const current = Array.from({ length: 30_000 }, (_, i) => (i % 2 ? "" : i % 4 ? `row ${i}` : `ROW ${i}`)).join("\n") + end;
      const d = markdownDiff(previous, current);
      expect(d.cut).toBeDefined();
      const r = applyBoth(dir, previous, d.text);
      expect(r.patch).not.toBeNull();
      expect(r.git).toBe(r.patch);
      expect(r.patch!.startsWith(current.slice(0, 1_000))).toBe(true);
    }
  });

  test("cut by characters among long lines: still applies", () => {
    const long = (tag: string) => Array.from({ length: 40 }, (_, i) => `${tag}${i} ${"x".repeat(50_000)}`).join("\n");
    const d = markdownDiff(long("a"), long("b"));
    expect(d.cut).toBeDefined();
    expect(d.text.length).toBeLessThanOrEqual(DIFF_MAX_TEXT_CHARS + 200);
    const r = applyBoth(dir, long("a"), d.text);
    expect(r.patch).not.toBeNull();
    expect(r.git).toBe(r.patch);
  });
});

describe("cut and narrowed diffs under small bounds", () => {
  test("fuzz: 300 pairs, bounds of 3–32 lines and 80–680 characters: what is shown applies with both tools, within the bounds", () => {
    let seed = 4_242;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const words = ["", "", "---", "News", "- item", "alpha", "a much longer line of text here", "x".repeat(120)];
    const word = () => words[rand(words.length)]!;
    const failures: unknown[] = [];
    let tried = 0;
    let cut = 0;
    let narrowed = 0;
    while (tried < 300) {
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
      const bounds = { lines: 3 + rand(30), chars: 80 + rand(600) };
      const r = boundedHunks(lineEdits(previous, current), 3, bounds);
      if (r.cut) cut++;
      if (r.contextLeftOut) narrowed++;
      const lines = r.hunks.flatMap((h) => h.lines);
      const shown = { lines: lines.filter((l) => !l.startsWith("\\")).length, chars: lines.reduce((n, l) => n + l.length + 1, 0) };
      if (shown.lines > bounds.lines || shown.chars > bounds.chars) failures.push({ previous, current, bounds, shown });
      if (r.hunks.length === 0) continue;
      const text = ["--- previous", "+++ current", ...r.hunks.flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines])].join("\n") + "\n";
      // A hunk without any context that plain git apply does not place (docs/llm.md's exception) needs --unidiff-zero.
      const bare = r.hunks.filter((h) => !placedByPlainGit(h, splitLines(previous).length)).length;
      if (bare !== (r.contextLeftOut?.bareHunks ?? 0)) failures.push({ previous, current, bounds, bare, contextLeftOut: r.contextLeftOut });
      const applied = applyBoth(dir, previous, text, bare > 0 ? ["--unidiff-zero"] : []);
      if (applied.patch === null || applied.git !== applied.patch || (!r.cut && !r.contextLeftOut && applied.patch !== current)) failures.push({ previous, current, bounds, text, applied });
    }
    expect(cut).toBeGreaterThan(100);
    expect(narrowed).toBeGreaterThan(10);
    expect(failures.slice(0, 2)).toEqual([]);
  });
});

describe("an unchanged line too long for the diff next to a change", () => {
  const big = `A long paragraph ${"word ".repeat(224_000)}end.`;

  test("a 1.12 MB paragraph before the last line, which changed: the change is shown with one line of context (the diff was empty)", () => {
    const previous = `# Shop\n\n${big}\n\nPrice: 10 USD`;
    const current = `# Shop\n\n${big}\n\nPrice: 12 USD`;
    expect(big.length).toBeGreaterThan(1_100_000);
    const d = markdownDiff(previous, current);
    expect(d.cut).toBeUndefined();
    expect(d.text).toBe("--- previous\n+++ current\n@@ -4,2 +4,2 @@\n \n-Price: 10 USD\n\\ No newline at end of file\n+Price: 12 USD\n\\ No newline at end of file\n");
    // Left out: the paragraph and the blank line before it (each with its sign and newline in the text).
    expect(d.contextLeftOut).toEqual({ lines: 2, chars: big.length + 2 + 2 });
    expect(applyBoth(dir, previous, d.text)).toEqual({ patch: current, git: current });
  });

  test("in the middle of the page: as many context lines after as before, so both tools apply it", () => {
    const previous = `Intro\n\nMore\n\nPrice: 10 USD\n\n${big}\n\nFooter`;
    const current = previous.replace("10 USD", "12 USD");
    const d = markdownDiff(previous, current);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -4,3 +4,3 @@\n \n-Price: 10 USD\n+Price: 12 USD\n \n");
    expect(applyBoth(dir, previous, d.text)).toEqual({ patch: current, git: current });
  });

  test("between two long lines: no context at all, docs/llm.md's exception: GNU patch and git apply --unidiff-zero apply it, plain git apply does not", () => {
    const previous = `${big}\nPrice: 10 USD\n${big}\nFooter`;
    const current = previous.replace("10 USD", "12 USD");
    const d = markdownDiff(previous, current);
    expect(d.text).toBe("--- previous\n+++ current\n@@ -2,1 +2,1 @@\n-Price: 10 USD\n+Price: 12 USD\n");
    expect(d.cut).toBeUndefined();
    expect(d.contextLeftOut).toMatchObject({ lines: 3, bareHunks: 1 });
    expect(applyBoth(dir, previous, d.text, ["--unidiff-zero"])).toEqual({ patch: current, git: current });
    expect(applyBoth(dir, previous, d.text).git).toBeNull();
  });

  test("a changed line too long by itself is left out, as before: cut to its first 0 lines", () => {
    const d = markdownDiff(`${big}\n\nPrice`, `${big} more\n\nPrice`);
    expect(d.cut).toMatchObject({ shownLines: 0 });
  });
});

describe("through the API", () => {
  let site: PageSite;
  let h: Harness;
  beforeAll(async () => {
    site = startPageSite();
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
    site.stop();
  });
  const scrape = async (path: string) => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }] } });
    expect(res.status).toBe(200);
    return ((await res.json()) as any).data;
  };
  const html = (paragraphs: string[]) => `<!doctype html><html><body><main>${paragraphs.map((p) => (p === "<hr>" ? p : `<p>${p}</p>`)).join("")}</main></body></html>`;

  test("the reviewer's page: News,News,News,<hr>,<hr>,News → Intro!,News,News,<hr>,News applies", async () => {
    site.set("/news", html(["News", "News", "News", "<hr>", "<hr>", "News"]));
    const before = (await scrape("/news")).markdown;
    site.set("/news", html(["Intro!", "News", "News", "<hr>", "News"]));
    const d = await scrape("/news");
    expect(d.changeTracking.changeStatus).toBe("changed");
    expect(applyBoth(dir, before, d.changeTracking.diff.text)).toEqual({ patch: d.markdown, git: d.markdown });
  });

  test("a 1.12 MB paragraph then a price that changed: the change shown, the warning says what context was left out", async () => {
    const big = `A long paragraph ${"word ".repeat(224_000)}end.`;
    site.set("/price", html([big, "Price: 10 USD"]));
    await scrape("/price");
    site.set("/price", html([big, "Price: 12 USD"]));
    const d = await scrape("/price");
    expect(d.changeTracking.changeStatus).toBe("changed");
    expect(d.changeTracking.diff.text).toContain("-Price: 10 USD\n");
    expect(d.changeTracking.diff.text).toContain("+Price: 12 USD\n");
    expect(d.warning).toContain("The changeTracking diff shows fewer than 3 lines of context around some changes: 1 unchanged line next to them");
    expect(d.warning).not.toContain("cut to its first");
  });
});
