/**
 * Rendering a paragraph takes time linear in its runs (src/documents/layout/render.ts, inline-marks.ts). Before,
 * what preceded each marked stretch and each link was read by slicing the markdown written so far (`out.slice(-2)`),
 * which copied the growing string each time: a DOCX paragraph of 400,000 runs took 20 s (1.8 s now), an RTF of
 * 200,000 HYPERLINK fields 59 s (1 s), 400,000 link and plain runs 111 s in the renderer (0.2 s).
 *
 * Checked by a ratio, not a time, so a loaded machine does not fail it: one paragraph of N runs against the same
 * runs as 16 paragraphs of N/16. Linear, the two take about as long (ratio about 1); quadratic, the one paragraph takes
 * about 16 times as long (8 to 16 at these sizes before the fix). The limit of 3 leaves room for noise either way.
 */
import { describe, expect, test } from "bun:test";
import type { Block, Inline } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";

const PARTS = 16;
const LIMIT = 3;

/**
 * How much longer `whole` takes than `parts` (the same work in {@link PARTS} pieces): the best of three runs of
 * `parts` against the best of up to three of `whole`, stopping once under {@link LIMIT}. Both run once first, so
 * neither pays for compiling.
 */
function slowdown(parts: () => unknown, whole: () => unknown): number {
  parts();
  whole();
  const time = (f: () => unknown) => {
    const started = performance.now();
    f();
    return performance.now() - started;
  };
  const base = Math.min(time(parts), time(parts), time(parts));
  let best = Infinity;
  for (let i = 0; i < 3 && best / base >= LIMIT; i++) best = Math.min(best, time(whole));
  return best / base;
}

/** One paragraph of `n` runs by `run`, and the same as {@link PARTS} paragraphs. */
function paragraphs(n: number, run: (i: number) => Inline): { whole: Block[]; parts: Block[] } {
  const content = Array.from({ length: n }, (_, i) => run(i));
  const size = n / PARTS;
  return {
    whole: [{ kind: "paragraph", content }],
    parts: Array.from({ length: PARTS }, (_, p) => ({ kind: "paragraph", content: content.slice(p * size, (p + 1) * size) })),
  };
}

describe("rendering is linear in a paragraph's runs", () => {
  test("links between plain runs (50,000 runs)", () => {
    const { whole, parts } = paragraphs(50_000, (i) => ({ text: "a ", ...(i % 2 ? { href: `https://e.example/${i % 4}` } : {}) }));
    expect(blocksToMarkdown(whole)).toBe(blocksToMarkdown(parts).replace(/\n\n/g, ""));
    const ratio = slowdown(() => blocksToMarkdown(parts), () => blocksToMarkdown(whole));
    expect(ratio).toBeLessThan(LIMIT);
  }, 120_000);

  test("marks changing at every run, bold, italic and strikethrough mixed (100,000 runs)", () => {
    const { whole, parts } = paragraphs(100_000, (i) => ({ text: i % 7 ? "x" : "(", ...(i % 2 === 0 ? { strike: true } : {}), ...(i % 3 === 0 ? { italic: true } : {}), ...(i % 5 === 0 ? { bold: true } : {}) }));
    const ratio = slowdown(() => blocksToMarkdown(parts), () => blocksToMarkdown(whole));
    expect(ratio).toBeLessThan(LIMIT);
  }, 120_000);

  test("an RTF paragraph of 40,000 HYPERLINK fields", () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => String.raw`{\field{\*\fldinst HYPERLINK "https://e.example/${i % 2}"}{\fldrslt x}} `).join("");
    const rtf = (paragraphs: string[]) => new TextEncoder().encode(String.raw`{\rtf1\ansi ` + paragraphs.map((p) => `${p}\\par `).join("") + "}");
    const whole = rtf([fields(40_000)]);
    const parts = rtf(Array.from({ length: PARTS }, () => fields(40_000 / PARTS)));
    const doc = convertOffice("rtf", whole);
    expect(doc.markdown.startsWith("[x](https://e.example/0) [x](https://e.example/1) ")).toBe(true);
    const ratio = slowdown(() => convertOffice("rtf", parts), () => convertOffice("rtf", whole));
    expect(ratio).toBeLessThan(LIMIT);
  }, 120_000);
});
