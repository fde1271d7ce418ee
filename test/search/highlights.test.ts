/**
 * Search highlights (src/search/highlights.ts): the passages of a page's markdown that answer a query, ranked by
 * BM25 over the page's own blocks, the best first, then others while they fit, in the page's order; list items and
 * table rows are passages of their own; a long passage is cut around its first match; no match, no highlight.
 */
import { describe, expect, test } from "bun:test";
import { highlight, MAX_HIGHLIGHT_CHARS } from "../../src/search/highlights.ts";

const PAGE = [
  "# Growing Tomatoes Indoors",
  "Tomatoes need light, and this guide is about tomatoes from seed to harvest.",
  "## Soil",
  "Use a well-drained potting mix with compost. Water when the top inch of soil is dry.",
  "- Choose dwarf varieties\n- Give them 14 hours of light",
  "| Variety | Days to harvest |\n|---|---|\n| Tiny Tim | 45 |\n| Moneymaker | 75 |",
  "Subscribe to our newsletter for more.",
].join("\n\n");

describe("search highlights", () => {
  test("bounded work: a query's first 32 distinct words, a page's first 1,000,000 characters", () => {
    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(" ");
    expect(highlight("one paragraph about rhubarb", `${filler} rhubarb`)).toBeUndefined();
    expect(highlight("one paragraph about rhubarb", `rhubarb ${filler}`)).toBe("one paragraph about rhubarb");
    const late = `${"words without the term ".repeat(50_000)}\n\nrhubarb at the end`;
    expect(late.length).toBeGreaterThan(1_000_000);
    expect(highlight(late, "rhubarb")).toBeUndefined();
    expect(highlight(`rhubarb first\n\n${late}`, "rhubarb")).toBe("rhubarb first");
  });

  test("the block with most of the query's rarer words comes first; others follow in page order while they fit", () => {
    const h = highlight(PAGE, "what potting soil for tomatoes")!;
    expect(h).toContain("Use a well-drained potting mix with compost");
    expect(h.length).toBeLessThanOrEqual(MAX_HIGHLIGHT_CHARS);
    // In the page's order.
    expect(h.indexOf("Soil")).toBeLessThan(h.indexOf("potting mix"));
    expect(highlight(PAGE, "what potting soil for tomatoes", 90)).toBe("Use a well-drained potting mix with compost. Water when the top inch of soil is dry.");
  });

  test("a table row and a list item are passages of their own; the separator row is not", () => {
    expect(highlight(PAGE, "Moneymaker days", 30)).toBe("| Moneymaker | 75 |");
    expect(highlight(PAGE, "dwarf varieties", 30)).toBe("- Choose dwarf varieties");
    expect(highlight(PAGE, "Moneymaker")).not.toContain("|---|");
  });

  test("a word every block has counts for less than a rare one", () => {
    const page = "apple pie recipe\n\napple tart\n\napple crumble with rhubarb\n\napple juice";
    expect(highlight(page, "apple rhubarb", 30)).toBe("apple crumble with rhubarb");
  });

  test("a long passage is cut around its first match; no match or only stop words: none", () => {
    const long = `${"filler ".repeat(300)}the key sentence about rhubarb ${"more ".repeat(300)}`;
    const h = highlight(long, "rhubarb")!;
    expect(h.length).toBeLessThanOrEqual(MAX_HIGHLIGHT_CHARS);
    expect(h).toContain("rhubarb");
    expect(h.startsWith("…")).toBe(true);
    expect(h.endsWith("…")).toBe(true);
    expect(highlight(PAGE, "quantum chromodynamics")).toBeUndefined();
    expect(highlight(PAGE, "the and of")).toBeUndefined();
    expect(highlight("", "tomatoes")).toBeUndefined();
    // A cut never splits a character: no lone surrogate at either end.
    for (const [before, after] of [["", ""], ["x", ""], ["", "x"], ["x", "x"]]) {
      const emoji = highlight(`${before}${"😀".repeat(600)} tomato ${after}${"😀".repeat(600)}`, "tomato")!;
      expect(emoji).toContain("tomato");
      expect(emoji.length).toBeLessThanOrEqual(MAX_HIGHLIGHT_CHARS);
      expect(emoji.isWellFormed()).toBe(true);
    }
    // Any script.
    expect(highlight("Über Tomaten\n\nTomaten brauchen Licht und Wärme.", "wärme", 40)).toBe("Tomaten brauchen Licht und Wärme.");
  });
});
