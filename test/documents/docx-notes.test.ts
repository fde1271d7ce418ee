/**
 * DOCX footnotes and endnotes (documents/office/docx.ts): a reference in the text becomes a GFM footnote reference
 * (`[^1]`, a linked superscript in HTML), labelled in the order the text first refers to the notes (endnotes numbered
 * on from the footnotes), and the notes are listed at the end; Word's separator notes are not notes, a note referred
 * to twice is listed once, a reference to a note the file does not have leaves nothing, and a note's links resolve in
 * its own part's relationships.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const run = (t: string) => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`;
const ref = (kind: "footnote" | "endnote", id: number) => `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:${kind}Reference w:id="${id}"/></w:r>`;
const note = (kind: "footnote" | "endnote", id: number, ...paragraphs: string[]) =>
  `<w:${kind} w:id="${id}">${paragraphs.map((t) => `<w:p><w:r><w:${kind}Ref/></w:r>${run(` ${t}`)}</w:p>`).join("")}</w:${kind}>`;

function docx(body: string, footnotes?: string, endnotes?: string, parts: Record<string, string> = {}): Uint8Array {
  const separators = (kind: string) => `<w:${kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:${kind}><w:${kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:${kind}>`;
  return zipSync({
    "word/document.xml": strToU8(`<w:document ${W}><w:body>${body}</w:body></w:document>`),
    ...(footnotes !== undefined ? { "word/footnotes.xml": strToU8(`<w:footnotes ${W}>${separators("footnote")}${footnotes}</w:footnotes>`) } : {}),
    ...(endnotes !== undefined ? { "word/endnotes.xml": strToU8(`<w:endnotes ${W}>${separators("endnote")}${endnotes}</w:endnotes>`) } : {}),
    ...Object.fromEntries(Object.entries(parts).map(([name, xml]) => [name, strToU8(xml)])),
  });
}

describe("DOCX notes", () => {
  test("references become [^n] in the order the text meets them, and the notes are listed at the end", () => {
    const bytes = docx(
      `<w:p>${run("Tomatoes need light")}${ref("footnote", 2)}${run(" and warmth")}${ref("endnote", 1)}${run(".")}</w:p>` +
        `<w:p>${run("Water them daily")}${ref("footnote", 1)}${run(", as noted")}${ref("footnote", 2)}${run(".")}</w:p>` +
        `<w:p>${run("A missing note")}${ref("footnote", 9)}${run(" leaves nothing.")}</w:p>`,
      note("footnote", 1, "In the morning.") + note("footnote", 2, "Eight hours a day.", "More in winter."),
      note("endnote", 1, "Between 18 and 24 °C."),
    );
    const doc = convertOffice("docx", bytes);
    expect(doc.markdown).toBe(
      [
        "Tomatoes need light[^1] and warmth[^2].",
        "",
        "Water them daily[^3], as noted[^1].",
        "",
        "A missing note leaves nothing.",
        "",
        "[^1]: Eight hours a day. More in winter.",
        "[^2]: Between 18 and 24 °C.",
        "[^3]: In the morning.",
        "",
      ].join("\n"),
    );
    expect(doc.html).toContain('light<sup><a href="#fn-1" id="fnref-1">1</a></sup> and warmth');
    expect(doc.html).toContain('<section class="footnotes"><ol><li id="fn-1">Eight hours a day. More in winter.</li><li id="fn-2">Between 18 and 24 °C.</li><li id="fn-3">In the morning.</li></ol></section>');
  });

  test("a note's link is a link, its target from the notes part's own relationships (the body's ids mean other things)", () => {
    const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    const rels = (target: string) => `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${target}" TargetMode="External"/></Relationships>`;
    const linked = (kind: "footnote" | "endnote", id: number, text: string) => `<w:${kind} w:id="${id}" ${R}><w:p><w:hyperlink r:id="rId1">${run(text)}</w:hyperlink></w:p></w:${kind}>`;
    const bytes = docx(
      `<w:p ${R}><w:hyperlink r:id="rId1">${run("Body link")}</w:hyperlink>${ref("footnote", 1)}${ref("endnote", 1)}</w:p>`,
      linked("footnote", 1, "the climate guide"),
      linked("endnote", 1, "the seed list"),
      {
        "word/_rels/document.xml.rels": rels("https://example.org/body"),
        "word/_rels/footnotes.xml.rels": rels("https://example.org/climate"),
        "word/_rels/endnotes.xml.rels": rels("https://example.org/seeds"),
      },
    );
    expect(convertOffice("docx", bytes).markdown).toBe(
      "[Body link](https://example.org/body)[^1][^2]\n\n[^1]: [the climate guide](https://example.org/climate)\n[^2]: [the seed list](https://example.org/seeds)\n",
    );
  });

  test("what follows a reference stays text: a `:` (a definition at a line's start) and a `(` (a link) are escaped", () => {
    const bytes = docx(`<w:p>${run("Body")}${ref("footnote", 1)}</w:p><w:p>${ref("footnote", 2)}${run(": applies to all tables.")}</w:p><w:p>${run("Smith")}${ref("footnote", 1)}${run("(2019) found it.")}</w:p>`, note("footnote", 1, "One.") + note("footnote", 2, "Two."));
    expect(convertOffice("docx", bytes).markdown).toBe("Body[^1]\n\n[^2]\\: applies to all tables.\n\nSmith[^1]\\(2019) found it.\n\n[^1]: One.\n[^2]: Two.\n");
  });

  test("a reference stands where it is in its run; a custom mark after it is left out; a heading's note is not in the title", () => {
    const inRun = `<w:p><w:r><w:t>word</w:t><w:footnoteReference w:id="1"/><w:t xml:space="preserve"> after</w:t></w:r></w:p>`;
    const custom = `<w:p>${run("Custom")}<w:r><w:footnoteReference w:customMarkFollows="1" w:id="2"/><w:t>*</w:t></w:r>${run(" mark.")}</w:p>`;
    const heading = `<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr>${run("Annual Report")}${ref("footnote", 1)}</w:p>`;
    const doc = convertOffice("docx", docx(heading + inRun + custom, note("footnote", 1, "One.") + note("footnote", 2, "Two.")));
    expect(doc.markdown).toBe("# Annual Report[^1]\n\nword[^1] after\n\nCustom[^2] mark.\n\n[^1]: One.\n[^2]: Two.\n");
    expect(doc.metadata.title).toBe("Annual Report");
    // Only a note's first reference carries the id its backlink would use.
    expect(doc.html.match(/id="fnref-1"/g)).toHaveLength(1);
  });

  test("a notes part that is not XML leaves the notes out; the body still converts", () => {
    const bytes = zipSync({ "word/document.xml": strToU8(`<w:document ${W}><w:body><w:p>${run("Body")}${ref("footnote", 1)}</w:p></w:body></w:document>`), "word/footnotes.xml": strToU8("not xml <<<") });
    expect(convertOffice("docx", bytes).markdown).toBe("Body\n");
  });

  test("a document without notes, or whose notes part has only Word's separators, has no notes block", () => {
    expect(convertOffice("docx", docx(`<w:p>${run("Plain.")}</w:p>`)).markdown).toBe("Plain.\n");
    expect(convertOffice("docx", docx(`<w:p>${run("Plain.")}</w:p>`, "", "")).markdown).toBe("Plain.\n");
  });
});
