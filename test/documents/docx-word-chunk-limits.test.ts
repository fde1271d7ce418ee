/**
 * What a DOCX's imported chunks (documents/office/docx-alt-chunk.ts, docx-chunk-parts.ts) may cost: every read is
 * charged, a failed one too (a read that fails for size spent all that was left; other failures are counted), the
 * chunks are read in one pass over the zip's directory (one more per damaged chunk, not one per chunk), HTML chunks
 * are parsed from at most 4 MiB of markup together, and what was left out is said once per problem. Each package is
 * built here byte by byte where a real zip writer would not write it (one local entry named by many directory
 * entries), else with fflate.
 */
import { describe, expect, test } from "bun:test";
import { deflateSync, strToU8, zipSync } from "fflate";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";

const R_URI = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${R_URI}"`;
const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
const chunk = (id: string) => `<w:altChunk r:id="${id}"/>`;
const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join("");
const documentXml = (body: string) => `<w:document ${NS}><w:body>${body}</w:body></w:document>`;
const relsXml = (rels: string) => `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`;
const chunkRel = (id: string, target: string) => `<Relationship Id="${id}" Type="${R_URI}/aFChunk" Target="${target}"/>`;

/** A DOCX of `body` whose chunks are `chunks` (relationship id → target under `word/` and bytes). */
function docx(body: string, chunks: Record<string, [string, string | Uint8Array]>): Uint8Array {
  return zipSync({
    "word/document.xml": strToU8(documentXml(body)),
    "word/_rels/document.xml.rels": strToU8(relsXml(Object.entries(chunks).map(([id, [name]]) => chunkRel(id, name)).join(""))),
    ...Object.fromEntries(Object.values(chunks).map(([target, data]) => [`word/${target}`, typeof data === "string" ? strToU8(data) : data])),
  });
}

/** One zip entry as written: its name, compression method, stored bytes, and the size its headers declare. */
interface RawEntry {
  name: string;
  method: number;
  data: Uint8Array;
  size: number;
}

/** A zip of `entries`, plus directory entries `aliases` ([name, index of an entry]) that share that entry's local header. */
function rawZip(entries: RawEntry[], aliases: [string, number][] = []): Uint8Array {
  const out: Uint8Array[] = [];
  let offset = 0;
  const header = (size: number, fill: (v: DataView) => void, name: string) => {
    const bytes = new Uint8Array(size + strToU8(name).length);
    fill(new DataView(bytes.buffer));
    bytes.set(strToU8(name), size);
    out.push(bytes);
    offset += bytes.length;
  };
  const locals = entries.map((e) => {
    const at = offset;
    header(30, (v) => (v.setUint32(0, 0x04034b50, true), v.setUint16(8, e.method, true), v.setUint32(18, e.data.length, true), v.setUint32(22, e.size, true), v.setUint16(26, strToU8(e.name).length, true)), e.name);
    out.push(e.data);
    offset += e.data.length;
    return at;
  });
  const start = offset;
  const all: [string, number][] = [...entries.map((e, i): [string, number] => [e.name, i]), ...aliases];
  for (const [name, i] of all) {
    const e = entries[i]!;
    header(46, (v) => (v.setUint32(0, 0x02014b50, true), v.setUint16(10, e.method, true), v.setUint32(20, e.data.length, true), v.setUint32(24, e.size, true), v.setUint16(28, strToU8(name).length, true), v.setUint32(42, locals[i]!, true)), name);
  }
  header(22, (v) => (v.setUint32(0, 0x06054b50, true), v.setUint16(8, Math.min(all.length, 0xffff), true), v.setUint16(10, Math.min(all.length, 0xffff), true), v.setUint32(12, offset - start, true), v.setUint32(16, start, true)), "");
  return Buffer.concat(out);
}

const deflated = (name: string, text: string): RawEntry => ({ name, method: 8, data: deflateSync(strToU8(text)), size: strToU8(text).length });

/** A package whose body imports `n` HTML chunks `word/c0.htm`…, all named in the directory, all one local entry `target`. */
function aliasedChunks(n: number, target: RawEntry, extra: [string, number][] = []): Uint8Array {
  const entries = [
    deflated("word/document.xml", documentXml(para("Body.") + repeat(n, (i) => chunk(`c${i}`)) + para("End."))),
    deflated("word/_rels/document.xml.rels", relsXml(repeat(n, (i) => chunkRel(`c${i}`, `c${i}.htm`)))),
    { ...target, name: "word/c0.htm" },
  ];
  return rawZip(entries, [...Array.from({ length: n - 1 }, (_, i): [string, number] => [`word/c${i + 1}.htm`, 2]), ...extra]);
}

const texts = (blocks: { kind: string; content?: { text: string }[] }[]) => blocks.map((b) => b.content?.map((s) => s.text).join("") ?? b.kind);

describe("failed chunk reads are charged", () => {
  test("a DOCX chunk of 40 MB of spaces imported 60 times is read once: the failed read spent the allowance (85 s for 5,000 before)", () => {
    const inner = zipSync({ "word/document.xml": strToU8(documentXml(`<w:p/>${" ".repeat(40_000_000)}`)) }, { level: 9 });
    const bytes = docx(para("Before.") + repeat(60, () => chunk("c")) + para("After."), { c: ["c.docx", inner] });
    const started = performance.now();
    const result = docxToBlocks(bytes);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(texts(result.blocks)).toEqual(["Before.", "After."]);
    // One line for the 60 imports, naming the real limit (not what was left of it: "limit of 33514080 bytes").
    expect(result.warning).toBe(
      "The DOCX document imports content that is not shown: word/c.docx (60 times): could not be read (the document's parts and imported chunks reach the 33,554,432 bytes they may inflate to).",
    );
  }, 20_000);

  test("100 directory entries naming one 40 MB entry that declares 0xFFFFFFF0 bytes: one read, not 100 (192 s for 1,000 before)", () => {
    const bomb: RawEntry = { name: "", method: 8, data: deflateSync(strToU8(" ".repeat(40_000_000)), { level: 9 }), size: 0xfffffff0 };
    const bytes = aliasedChunks(100, bomb);
    const started = performance.now();
    const result = docxToBlocks(bytes);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(texts(result.blocks)).toEqual(["Body.", "End."]);
    expect(result.warning).toContain("word/c0.htm, word/c1.htm, word/c2.htm, … (100 times): could not be read (the document's parts and imported chunks reach the 33,554,432 bytes");
  }, 20_000);

  test("1,000 damaged chunks among 60,000 other entries: a few passes over the directory, not 1,000 (4.9 s before)", () => {
    const bytes = aliasedChunks(1000, { name: "", method: 99, data: strToU8("xx"), size: 2 }, Array.from({ length: 60_000 }, (_, i): [string, number] => [`d/${i}`, 1]));
    const started = performance.now();
    const result = docxToBlocks(bytes);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(texts(result.blocks)).toEqual(["Body.", "End."]);
    // The first four say why; the rest, one line.
    expect(result.warning).toContain("word/c3.htm: could not be read (The DOCX document is damaged and could not be read: word/c3.htm: unsupported compression method 99)");
    expect(result.warning).toContain("word/c4.htm, word/c5.htm, word/c6.htm, … (996 times): could not be read (4 imported chunks of the document could not be read before it)");
  }, 20_000);

  test("a damaged chunk among good ones leaves out only itself, the good ones read in one more pass", () => {
    const entries = [
      deflated("word/document.xml", documentXml(chunk("a") + chunk("bad") + chunk("b"))),
      deflated("word/_rels/document.xml.rels", relsXml(chunkRel("a", "a.txt") + chunkRel("bad", "bad.txt") + chunkRel("b", "b.txt"))),
      deflated("word/a.txt", "First."),
      { name: "word/bad.txt", method: 99, data: strToU8("x"), size: 1 },
      deflated("word/b.txt", "Second."),
    ];
    const result = docxToBlocks(rawZip(entries));
    expect(texts(result.blocks)).toEqual(["First.", "Second."]);
    expect(result.warning).toContain("word/bad.txt: could not be read");
  });
});

describe("HTML chunks", () => {
  test("are parsed from at most 4 MiB of markup together: a longer one is cut there, with a warning (32 MB peaked at 5 GB)", () => {
    const html = "<p>x</p>".repeat(1_000_000); // 8 MB
    const result = docxToBlocks(docx(chunk("c") + chunk("d") + para("After."), { c: ["c.htm", html], d: ["d.htm", "<p>never</p>"] }));
    // The first chunk's first 4 MiB are its first 524,288 paragraphs; the second chunk is past the bound.
    expect(result.blocks.length).toBe((4 * 1024 * 1024) / 8 + 1);
    expect(texts(result.blocks).at(-1)).toBe("After.");
    expect(result.warning).toContain("word/c.htm: cut: the HTML chunks of a document are read from at most 4,194,304 characters of markup together");
    expect(result.warning).toContain("word/d.htm: not read: the HTML chunks of a document are read from at most 4,194,304 characters");
  }, 20_000);

});

describe("empty table rows count against the text budget", () => {
  const rows = (blocks: { kind: string }[]) => (blocks.find((b) => b.kind === "table") as { rows: unknown[][] } | undefined)?.rows.length;

  test("an HTML chunk's: they stop at the cut (118,671 rows came after it)", () => {
    const html = `<table><tr><td>a</td><td>b</td><td>c</td></tr>${"<tr></tr>".repeat(240_000)}</table>`;
    const budget = new TextBudget(100_000);
    const { blocks } = docxToBlocks(docx(chunk("c"), { c: ["c.htm", html] }), budget);
    expect(rows(blocks)).toBeLessThanOrEqual(100_000 / 4 + 1);
    expect(budget.cut).toBe(true);
  });

  test("a Word table's <w:tr/>: each is a line of markdown (4.5 million gave 22.5 million characters, 2.5 GB)", () => {
    const body = `<w:tbl><w:tr><w:tc>${para("a")}</w:tc></w:tr>${"<w:tr/>".repeat(240_000)}</w:tbl>`;
    const budget = new TextBudget(100_000);
    const { blocks } = docxToBlocks(docx(body, {}), budget);
    expect(rows(blocks)).toBeLessThanOrEqual(100_000 / 4 + 1);
    expect(budget.cut).toBe(true);
  });
});

describe("warnings", () => {
  test("one line per problem, with a count: a part past the allowance imported ten times", () => {
    const spaces = " ".repeat(20_000_000);
    const result = docxToBlocks(docx(repeat(10, () => chunk("c")) + para("After."), { c: ["c.txt", spaces] }));
    expect(texts(result.blocks)).toEqual(["After."]);
    expect(result.warning).toBe(
      "The DOCX document imports content that is not shown: word/c.txt (9 times): could not be read (past the 33,554,432 bytes the imported chunks of a document may be read from together).",
    );
  });

  test("the depth a chunk is read at is said right: the fourth level is the first left out", () => {
    let bytes: Uint8Array = docx(para("innermost"), {});
    for (let level = 1; level <= 5; level++) bytes = docx(para(`level ${level}`) + chunk("d"), { d: ["d.docx", bytes] });
    const result = docxToBlocks(bytes);
    expect(texts(result.blocks)).toEqual(["level 5", "level 4", "level 3", "level 2"]);
    expect(result.warning).toBe("The DOCX document imports content that is not shown: word/d.docx: not read: a document imported 4 levels deep (chunks are read at most 3 deep).");
  });
});

describe("a plain-text chunk", () => {
  test("of 32 million line ends is read line by line (6.5 s and a 1.4 GB peak when split at once; 1.4 s and 0.36 GB)", () => {
    const bytes = docx(chunk("c"), { c: ["c.txt", `${"\n".repeat(32_000_000)}end`] });
    const started = performance.now();
    const { blocks } = docxToBlocks(bytes);
    expect(texts(blocks)).toEqual(["end"]);
    // 1.0–1.1 s on an idle machine (3.7–4.6 s before, splitting the text at once), 3.3 s once in a whole-suite run.
    expect(performance.now() - started).toBeLessThan(4500);
  }, 20_000);
});
