/**
 * The patch of linkedom in scripts/patches/ (applied by `bun install`): a parsed node gets its event-listener map only
 * when something listens on it (unpatched, every node's constructor put a Map into a WeakMap, ~22 % of a page's
 * parse), and an element's classList is built when first read, not while parsing (~25 % more; it also rewrote the
 * class attribute normalised). Listeners and classList must still work (docs/benchmarks.md).
 */
import { describe, expect, test } from "bun:test";
import { parseHTML } from "linkedom";
import { parseHtml } from "../../src/pipeline/index.ts";

const PAGE = `<html><head><title>t</title></head><body>${"<div class=a><p>text <a href=/x>link</a></p></div>".repeat(200)}</body></html>`;

describe("linkedom patch", () => {
  test("parsing a page puts nothing into a WeakMap", () => {
    const original = WeakMap.prototype.set;
    let sets = 0;
    WeakMap.prototype.set = function (this: WeakMap<object, unknown>, key: object, value: unknown) {
      sets++;
      return original.call(this, key, value);
    };
    try {
      const doc = parseHtml(PAGE);
      expect(doc.querySelectorAll("p").length).toBe(200);
    } finally {
      WeakMap.prototype.set = original;
    }
    // Unpatched: one per node (1,400 here).
    expect(sets).toBeLessThan(10);
  });

  test("listeners still work on parsed nodes", () => {
    const { document, Event } = parseHTML("<html><body><button>x</button><p>y</p></body></html>") as unknown as {
      document: Document;
      Event: typeof globalThis.Event;
    };
    const button = document.querySelector("button")!;
    const calls: string[] = [];
    const onClick = (e: Event) => calls.push(`${e.type}@${(e.target as Element).tagName}`);
    button.addEventListener("click", onClick);
    button.dispatchEvent(new Event("click"));
    button.removeEventListener("click", onClick);
    button.dispatchEvent(new Event("click"));
    // A node that never listened: removing and dispatching are no-ops, not errors.
    const p = document.querySelector("p")!;
    p.removeEventListener("click", onClick);
    expect(p.dispatchEvent(new Event("click"))).toBe(true);
    expect(calls).toEqual(["click@BUTTON"]);
  });

  test("the class attribute is kept as served; classList and className read it", () => {
    const doc = parseHtml(`<html><body><div class="  b   a b "></div><p class="x">y</p></body></html>`);
    const div = doc.querySelector("div")!;
    // As a browser keeps it (unpatched linkedom wrote back "b a").
    expect(div.outerHTML).toBe(`<div class="  b   a b "></div>`);
    expect(div.getAttributeNode("class")!.value).toBe("  b   a b ");
    expect([...div.classList]).toEqual(["b", "a"]);
    expect(div.className).toBe("b a");
    expect(div.classList.contains("a")).toBe(true);
    expect(doc.querySelectorAll(".a").length).toBe(1);
    div.classList.add("c");
    expect(div.getAttribute("class")).toBe("b a c");
    expect(div.outerHTML).toBe(`<div class="b a c"></div>`);
    doc.querySelector("p")!.setAttribute("class", "z  w");
    expect(doc.querySelector("p")!.classList.contains("w")).toBe(true);
  });
});
