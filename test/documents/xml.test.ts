/**
 * The office formats' XML reader (documents/office/xml.ts): what it reads (names with prefixes, attributes in
 * either quote, the five entities and character references, CDATA, comments), what it refuses to do (expand a
 * DTD's entities), how it recovers (unmatched end tags, elements left open), and what a large part costs.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { heapStats } from "bun:jsc";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import { children, descendants, parseXml } from "../../src/documents/office/xml.ts";

describe("office XML reader", () => {
  test("names, attributes, entities, CDATA and comments", () => {
    const root = parseXml(
      `<?xml version="1.0"?><!-- a comment --><w:document a='1' b="x &amp; y" c=bare><w:t xml:space="preserve"> &lt;a&gt; &#233;&#x1F600; &nbsp;</w:t><w:t><![CDATA[<raw> & text]]></w:t><w:br/></w:document>`,
      "DOCX",
      "document.xml",
    );
    expect([root.tagName, root.getAttribute("a"), root.getAttribute("b"), root.getAttribute("c"), root.getAttribute("missing")]).toEqual(["w:document", "1", "x & y", "bare", null]);
    expect(children(root).map((c) => c.tagName)).toEqual(["w:t", "w:t", "w:br"]);
    expect(children(root, "w:t").map((t) => t.textContent)).toEqual([" <a> é😀 &nbsp;", "<raw> & text"]);
    expect(root.getAttribute("constructor")).toBeNull();
  });

  test("a DTD's entities are never expanded (no billion laughs); a DOCTYPE with an internal subset is skipped whole", () => {
    const lol = `<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><d>&c;</d>`;
    const root = parseXml(lol, "DOCX", "x.xml");
    expect(root.tagName).toBe("d");
    expect(root.textContent).toBe("&c;");
  });

  test("recovery: an unmatched end tag closes up to its element, open elements close at the end; no root is corrupt", () => {
    const root = parseXml("<a><b><c>one</b><d>two</a>", "ODT", "content.xml");
    expect(children(root).map((c) => c.tagName)).toEqual(["b", "d"]);
    expect(descendants(root, "c")[0]!.textContent).toBe("one");
    expect(parseXml("<a><b>never closed", "ODT", "x").textContent).toBe("never closed");
    expect(() => parseXml("not xml at all", "DOCX", "word/document.xml")).toThrow(DocumentCorruptError);
  });

  test("any input, XML-like or not: a tree or SCRAPE_DOCUMENT_CORRUPT, never another error", () => {
    const piece = fc.constantFrom("<", ">", "/", "</", "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>", "<!DOCTYPE", "[", "]", "&", "&amp;", "&#x", "&#", ";", '"', "'", "=", " ", "a", "w:p", "x:y", "\u0000", "\uD800");
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string({ maxLength: 5 })), { maxLength: 60 }), (parts) => {
        const xml = parts.join("");
        try {
          const root = parseXml(xml, "DOCX", "x.xml");
          void root.textContent;
          void descendants(root, "a");
        } catch (err) {
          if (!(err instanceof DocumentCorruptError)) throw err;
        }
      }),
      { numRuns: 3_000 },
    );
  });

  test("linear on declarations and stray end tags (each `<!x>` searched the rest of the part for `[`; each stray end tag the open elements)", () => {
    const timed = (f: () => unknown) => {
      const t = performance.now();
      f();
      return performance.now() - t;
    };
    expect(timed(() => parseXml(`<w:document><w:body>${"<!x>".repeat(600_000)}[</w:body></w:document>`, "DOCX", "x"))).toBeLessThan(2_000);
    expect(timed(() => parseXml("<e>".repeat(60_000) + "</z>".repeat(60_000), "DOCX", "x"))).toBeLessThan(2_000);
    // A DOCTYPE's internal subset is still skipped whole.
    expect(parseXml("<!DOCTYPE d [<!ELEMENT d ANY>]><d>x</d>", "DOCX", "x").textContent).toBe("x");
  }, 60_000);

  test("100k nested elements are read and walked without recursion", () => {
    const depth = 100_000;
    const root = parseXml("<e>".repeat(depth) + "deep" + "</e>".repeat(depth), "DOCX", "x");
    expect(root.textContent).toBe("deep");
    expect(descendants(root, "e")).toHaveLength(depth - 1);
  });

  test("a 30 MiB part: parsed in one pass, its tree holds under 12 bytes of heap per byte of XML (linkedom's held ~17)", () => {
    const para = "<w:p><w:r><w:t>Lorem ipsum dolor sit amet consectetur</w:t></w:r></w:p>";
    const xml = `<w:document><w:body>${para.repeat(Math.floor((30 * 1024 * 1024) / para.length))}</w:body></w:document>`;
    Bun.gc(true);
    const before = heapStats().heapSize;
    const root = parseXml(xml, "DOCX", "word/document.xml");
    Bun.gc(true);
    const held = heapStats().heapSize - before;
    expect(children(children(root)[0]!).length).toBe(Math.floor((30 * 1024 * 1024) / para.length));
    expect(held / xml.length).toBeLessThan(12);
  }, 60_000);
});
