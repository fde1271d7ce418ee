/**
 * What a Word 97–2003 document says beyond its paragraphs' text, read as a DOCX's is (documents/office/doc*.ts):
 * character properties (CHPX: a tracked deletion, sprmCFRMarkDel, and hidden text, sprmCFVanish 0x083C, are not
 * text: they were printed, "The result was very REMOVEDWORDS good."; bold, italic, strike and monospace runs are
 * marked, toggles relative to the style); a hard line break (0x0B) is one, not a space; list items are numbered as
 * Word counts (a start value, a count going on after a paragraph, another list or a restart a new list block, a
 * numbered sub-list under a bullet in its parent's list); Title, Quote and preformatted styles; a numbered heading's
 * number; a text box's paragraphs after the paragraph anchoring it.
 *
 * The documents are built here byte by byte (a compound file of a WordDocument and a 1Table stream): the FIB, one
 * UTF-16 piece, the paragraph and character property pages, a style sheet, a font table, lists and text boxes, each
 * as MS-DOC lays it out and as LibreOffice 7.4 writes it.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";

const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const utf16 = (s: string) => [...s].flatMap((c) => u16(c.charCodeAt(0)));

/** Character sprms (MS-DOC 2.6.1), operand included. */
const C = {
  bold: (v = 1) => [0x35, 0x08, v],
  italic: (v = 1) => [0x36, 0x08, v],
  strike: (v = 1) => [0x37, 0x08, v],
  doubleStrike: (v = 1) => [0x53, 0x2a, v],
  vanish: (v = 1) => [0x3c, 0x08, v],
  deleted: () => [0x00, 0x08, 1],
  inserted: () => [0x01, 0x08, 1],
  font: (ftc: number) => [0x4f, 0x4a, ...u16(ftc)],
  style: (istd: number) => [0x30, 0x4a, ...u16(istd)],
};

/** A run of text with its character sprms. */
interface Run {
  text: string;
  chpx?: number[];
}

/** A paragraph: its runs (its mark, `\r`, is added), style, list override and level, extra paragraph sprms. */
interface Para {
  runs: (Run | string)[];
  istd?: number;
  ilfo?: number;
  ilvl?: number;
}

/** A style at its istd: a paragraph style (stk 1) or a character style (stk 2), its sti, base and character sprms. */
interface Style {
  name: string;
  stk?: 1 | 2;
  sti?: number;
  base?: number;
  chpx?: number[];
}

interface Doc {
  paras: Para[];
  styles?: (Style | undefined)[];
  /** Fonts by ftc: name, family (3 modern) and character set. */
  fonts?: { name: string; ff?: number; chs?: number }[];
  /** Lists: lsid and levels (start, nfc: 0 decimal, 23 bullet; text with \x00–\x08 for the levels' numbers). */
  lists?: { lsid: number; levels: { start?: number; nfc: number; text: string }[] }[];
  /** List overrides (ilfo 1, 2, …): the list and the levels they restart. */
  overrides?: { lsid: number; restart?: { level: number; start: number }[] }[];
  /** Text boxes: the shape id and its text; their shapes are anchored at the body's 0x08 characters, in order. */
  boxes?: { spid: number; text: string }[];
}

const TEXT_AT = 1024;

/** A 512-byte formatted disk page of `runs` (their stream offsets and property bytes): PAPX (13-byte BX) or CHPX. */
function fkp(runs: { start: number; end: number; data: number[] }[], papx: boolean): number[] {
  const page = new Array(512).fill(0);
  const crun = runs.length;
  runs.forEach((r, j) => page.splice(j * 4, 4, ...u32(r.start)));
  page.splice(crun * 4, 4, ...u32(runs[crun - 1]!.end));
  let free = 511;
  runs.forEach((r, j) => {
    if (r.data.length === 0) return;
    const bytes = papx ? [0, r.data.length / 2, ...r.data] : [r.data.length, ...r.data];
    free = (free - bytes.length) & ~1;
    if (free < 4 * (crun + 1) + (papx ? 13 : 1) * crun) throw new Error("the runs do not fit one page");
    page.splice(free, bytes.length, ...bytes);
    page[4 * (crun + 1) + (papx ? 13 : 1) * j] = free / 2;
  });
  page[511] = crun;
  return page;
}

/** A compound file (MS-CFB, 512-byte sectors) of root streams, each padded to 4 KiB at least (no mini stream). */
function compoundFile(streams: { name: string; data: number[] }[]): Uint8Array {
  const SECTOR = 512;
  const padded = streams.map((s) => {
    const size = Math.max(4096, Math.ceil(s.data.length / SECTOR) * SECTOR);
    return { ...s, bytes: Uint8Array.from([...s.data, ...new Array(size - s.data.length).fill(0)]) };
  });
  const dataSectors = padded.reduce((n, s) => n + s.bytes.length / SECTOR, 0);
  const dirSector = dataSectors;
  const fatStart = dataSectors + 1;
  const fat = new Uint32Array(128).fill(0xffffffff);
  if (dataSectors + 2 > 128) throw new Error("too big for one FAT sector");
  const out = new Uint8Array(SECTOR * (1 + dataSectors + 2));
  const v = new DataView(out.buffer);
  out.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  v.setUint16(0x18, 0x3e, true);
  v.setUint16(0x1a, 3, true);
  v.setUint16(0x1c, 0xfffe, true);
  v.setUint16(0x1e, 9, true);
  v.setUint16(0x20, 6, true);
  v.setUint32(0x2c, 1, true);
  v.setUint32(0x30, dirSector, true);
  v.setUint32(0x38, 4096, true);
  v.setUint32(0x3c, 0xfffffffe, true);
  v.setUint32(0x44, 0xfffffffe, true);
  for (let i = 0; i < 109; i++) v.setUint32(0x4c + i * 4, i === 0 ? fatStart : 0xffffffff, true);
  const dir = SECTOR * (1 + dirSector);
  const entry = (n: number, name: string, type: number, child: number, right: number, start: number, size: number) => {
    const at = dir + n * 128;
    [...name].forEach((c, i) => v.setUint16(at + i * 2, c.charCodeAt(0), true));
    v.setUint16(at + 0x40, (name.length + 1) * 2, true);
    out[at + 0x42] = type;
    v.setUint32(at + 0x44, 0xffffffff, true);
    v.setUint32(at + 0x48, right, true);
    v.setUint32(at + 0x4c, child, true);
    v.setUint32(at + 0x74, start, true);
    v.setUint32(at + 0x78, size, true);
  };
  entry(0, "Root Entry", 5, 1, 0xffffffff, 0xfffffffe, 0);
  let sector = 0;
  padded.forEach((s, i) => {
    const count = s.bytes.length / SECTOR;
    for (let k = 0; k < count; k++) fat[sector + k] = k === count - 1 ? 0xfffffffe : sector + k + 1;
    out.set(s.bytes, SECTOR * (1 + sector));
    entry(i + 1, s.name, 2, 0xffffffff, i < padded.length - 1 ? i + 2 : 0xffffffff, sector, s.bytes.length);
    sector += count;
  });
  for (let n = padded.length + 1; n < 4; n++) entry(n, "", 0, 0xffffffff, 0xffffffff, 0, 0);
  fat[dirSector] = 0xfffffffe;
  fat[fatStart] = 0xfffffffd;
  new Uint32Array(out.buffer, SECTOR * (1 + fatStart), 128).set(fat);
  return out;
}

/** The DOC file of `doc`. */
function buildDoc(doc: Doc): Uint8Array {
  // The body's text, its paragraphs' and runs' CP ranges; a text box story after it.
  let body = "";
  const papx: { start: number; end: number; data: number[] }[] = [];
  const chpx: { start: number; end: number; data: number[] }[] = [];
  for (const p of doc.paras) {
    const from = body.length;
    for (const r of p.runs) {
      const run = typeof r === "string" ? { text: r } : r;
      chpx.push({ start: body.length, end: body.length + run.text.length, data: run.chpx ?? [] });
      body += run.text;
    }
    chpx.push({ start: body.length, end: body.length + 1, data: [] });
    body += "\r";
    const sprms = [...(p.ilfo ? [0x0a, 0x26, p.ilvl ?? 0, 0x0b, 0x46, ...u16(p.ilfo)] : [])];
    const data = [...u16(p.istd ?? 0), ...sprms];
    if (data.length % 2) data.push(0);
    papx.push({ start: from, end: body.length, data });
  }
  const boxStory = doc.boxes ? doc.boxes.map((b) => b.text + "\r").join("") + "\r" : "";
  const text = body + boxStory;
  const fcOf = (cp: number) => TEXT_AT + cp * 2;
  const textEnd = TEXT_AT + text.length * 2;
  const papxPage = Math.ceil(textEnd / 512);
  const word: number[] = new Array((papxPage + 2) * 512).fill(0);
  word.splice(TEXT_AT, text.length * 2, ...utf16(text));
  word.splice(papxPage * 512, 512, ...fkp(papx.map((r) => ({ ...r, start: fcOf(r.start), end: fcOf(r.end) })), true));
  word.splice((papxPage + 1) * 512, 512, ...fkp(chpx.map((r) => ({ ...r, start: fcOf(r.start), end: fcOf(r.end) })), false));

  // The table stream: each structure at the offset its FIB pair names.
  const table: number[] = [];
  const pairs: Record<number, [number, number]> = {};
  const put = (index: number, bytes: number[], lcb = bytes.length) => {
    pairs[index] = [table.length, lcb];
    table.push(...bytes);
  };
  put(33, [2, ...u32(16), ...u32(0), ...u32(text.length), 0, 0, ...u32(TEXT_AT), 0, 0]);
  put(13, [...u32(fcOf(0)), ...u32(textEnd), ...u32(papxPage)]);
  put(12, [...u32(fcOf(0)), ...u32(textEnd), ...u32(papxPage + 1)]);
  const styles = doc.styles ?? [{ name: "Normal", sti: 0 }];
  const std = (s: Style | undefined) => {
    if (!s) return [0, 0];
    const stk = s.stk ?? 1;
    const upx = (bytes: number[]) => [...u16(bytes.length), ...bytes, ...(bytes.length % 2 ? [0] : [])];
    const upxs = stk === 1 ? [...upx([0, 0]), ...upx(s.chpx ?? [])] : upx(s.chpx ?? []);
    const bytes = [...u16(s.sti ?? 0xffe), ...u16(stk | ((s.base ?? 0xfff) << 4)), ...u16((stk === 1 ? 2 : 1) | (0 << 4)), 0, 0, 0, 0, ...u16(s.name.length), ...utf16(s.name), 0, 0, ...upxs];
    return [...u16(bytes.length), ...bytes];
  };
  put(1, [...u16(18), ...u16(styles.length), ...u16(10), ...new Array(14).fill(0), ...styles.flatMap(std)]);
  const fonts = doc.fonts ?? [{ name: "Times New Roman", ff: 1 }];
  put(15, [...u16(fonts.length), 0, 0, ...fonts.flatMap((f) => [39 + (f.name.length + 1) * 2, ((f.ff ?? 1) << 4) | 2, 0x90, 0x01, f.chs ?? 0, 0, ...new Array(34).fill(0), ...utf16(f.name), 0, 0])]);
  if (doc.lists) {
    // rgbxchNums: where (1-based) the text's level placeholders stand, as Word writes them.
    const places = (text: string) => [...[...text].flatMap((c, i) => (c.charCodeAt(0) < 9 ? [i + 1] : [])), 0, 0, 0, 0, 0, 0, 0, 0, 0].slice(0, 9);
    const lvl = (l: { start?: number; nfc: number; text: string }) => [...u32(l.start ?? 1), l.nfc, 0, ...places(l.text), 0, ...u32(0), ...u32(0), 0, 0, 0, 0, ...u16(l.text.length), ...utf16(l.text)];
    const headers = doc.lists.flatMap((l) => [...u32(l.lsid), ...u32(0), ...new Array(18).fill(0xff), 0, 0]);
    const levels = doc.lists.flatMap((l) => Array.from({ length: 9 }, (_, k) => lvl(l.levels[k] ?? l.levels[l.levels.length - 1]!)).flat());
    put(73, [...u16(doc.lists.length), ...headers, ...levels], 2 + headers.length);
    const overrides: NonNullable<Doc["overrides"]> = doc.overrides ?? doc.lists.map((l) => ({ lsid: l.lsid }));
    put(74, [
      ...u32(overrides.length),
      ...overrides.flatMap((o) => [...u32(o.lsid), ...new Array(8).fill(0), o.restart?.length ?? 0, 0, 0, 0]),
      ...overrides.flatMap((o) => [...u32(0xffffffff), ...(o.restart ?? []).flatMap((r) => [...u32(r.start), ...u32(r.level | 0x10)])]),
    ]);
  }
  if (doc.boxes) {
    const anchors = [...body].flatMap((c, cp) => (c === "\x08" ? [cp] : []));
    let cp = 0;
    const cps = [0, ...doc.boxes.map((b) => (cp += b.text.length + 1)), cp + 1];
    const ftxbxs = (lid: number) => [...u32(1), ...u32(0), 0, 0, ...u32(0xffffffff), ...u32(lid), ...u32(0)];
    put(56, [...cps.flatMap(u32), ...doc.boxes.flatMap((b) => ftxbxs(b.spid)), ...new Array(22).fill(0)]);
    put(40, [...[...anchors, body.length].flatMap(u32), ...doc.boxes.flatMap((b) => [...u32(b.spid), ...new Array(22).fill(0)])]);
  }

  // The FIB: Word 97's identifier, 1Table, the story lengths, 93 pairs.
  const fib = new DataView(new Uint8Array(0x9a + 93 * 8).buffer);
  fib.setUint16(0, 0xa5ec, true);
  fib.setUint16(2, 0x00c1, true);
  fib.setUint16(0x0a, 0x0200, true);
  fib.setInt32(0x4c, body.length, true);
  fib.setInt32(0x64, boxStory.length, true);
  fib.setUint16(0x98, 93, true);
  for (const [index, [fc, lcb]] of Object.entries(pairs)) {
    fib.setUint32(0x9a + Number(index) * 8, fc, true);
    fib.setUint32(0x9a + Number(index) * 8 + 4, lcb, true);
  }
  word.splice(0, fib.byteLength, ...new Uint8Array(fib.buffer));
  return compoundFile([
    { name: "WordDocument", data: word },
    { name: "1Table", data: table },
  ]);
}

const markdown = (doc: Doc) => convertOffice("doc", buildDoc(doc)).markdown;

/** LibreOffice's style sheet, as far as these documents use it (istd 10 is the default character style). */
const STYLES: (Style | undefined)[] = [
  { name: "Normal", sti: 0 },
  { name: "Heading 1", sti: 1, chpx: C.bold() },
  { name: "Heading 2", sti: 2, chpx: C.bold() },
  ...new Array(7).fill(undefined),
  { name: "Default Paragraph Font", stk: 2, sti: 65 },
  { name: "Source Text", stk: 2, chpx: C.font(1) },
  { name: "Strong Emphasis", stk: 2, chpx: C.bold() },
  { name: "Table Heading", chpx: C.bold() },
  { name: "Title", sti: 62 },
  { name: "Quotations" },
  { name: "Preformatted Text", chpx: C.font(1) },
  { name: "HTML Preformatted" },
];
const [SOURCE_TEXT, STRONG, TABLE_HEADING, TITLE, QUOTATIONS, PREFORMATTED, HTML_PREFORMATTED] = [11, 12, 13, 14, 15, 16, 17];
const FONTS = [{ name: "Liberation Serif", ff: 1 }, { name: "Liberation Mono", ff: 3 }, { name: "Courier New", ff: 3 }, { name: "MS Gothic", ff: 3, chs: 128 }];

describe("DOC text that is not shown", () => {
  test("a tracked deletion and hidden text are left out; inserted text stays", () => {
    const doc: Doc = {
      paras: [
        { runs: ["The result was ", { text: "very ", chpx: C.inserted() }, { text: "REMOVEDWORDS ", chpx: C.deleted() }, "good."] },
        { runs: ["Visible ", { text: "SECRET-HIDDEN ", chpx: C.vanish() }, "text."] },
      ],
    };
    expect(markdown(doc)).toBe("The result was very good.\n\nVisible text.\n");
  });
});

describe("DOC marks", () => {
  test("bold, italic, struck (single, double), monospace and code-styled runs; a split word keeps its mark", () => {
    const runs = ["This is ", { text: "bold", chpx: C.bold() }, ", ", { text: "italic", chpx: C.italic() }, ", ", { text: "struck", chpx: C.strike() }, ", ", { text: "double", chpx: C.doubleStrike() }];
    const more = [", ", { text: "code_span()", chpx: C.style(SOURCE_TEXT) }, ", ", { text: "x = 1", chpx: C.font(2) }, " and a split w", { text: "or", chpx: C.bold() }, "d."];
    expect(markdown({ paras: [{ runs: [...runs, ...more] }], styles: STYLES, fonts: FONTS })).toBe(
      "This is **bold**, *italic*, ~~struck~~, ~~double~~, `code_span()`, `x = 1` and a split w**or**d.\n",
    );
  });

  test("toggles go by the style: 0x81 reverses a bold character style, 0x80 keeps it, 0 ends it; an East Asian modern font is not code", () => {
    const runs = [{ text: "strong", chpx: C.style(STRONG) }, " ", { text: "reversed", chpx: [...C.style(STRONG), ...C.bold(0x81)] }, " ", { text: "kept", chpx: [...C.style(STRONG), ...C.bold(0x80)] }, " ", { text: "off", chpx: [...C.style(STRONG), ...C.bold(0)] }, " ", { text: "日本", chpx: C.font(3) }];
    expect(markdown({ paras: [{ runs }], styles: STYLES, fonts: FONTS })).toBe("**strong** reversed **kept** off 日本\n");
  });

  test("bold a paragraph style sets is not marked (a table's heading row), nor a heading's text; the author's bold is", () => {
    const doc: Doc = {
      paras: [{ runs: [{ text: "Results", chpx: C.italic() }], istd: 1 }, { runs: ["Name ", { text: "Age", chpx: C.bold(0x81) }], istd: TABLE_HEADING }, { runs: ["An ", { text: "important", chpx: C.bold() }, " point."] }],
      styles: STYLES,
      fonts: FONTS,
    };
    expect(markdown(doc)).toBe("# Results\n\nName Age\n\nAn **important** point.\n");
  });
});

describe("DOC line breaks", () => {
  test("0x0B is a hard line break inside the paragraph; a page break (0x0C) ends one", () => {
    expect(markdown({ paras: [{ runs: ["221B Baker Street\x0bLondon\x0bNW1 6XE"] }, { runs: ["Before page break\x0cafter page break"] }] })).toBe(
      "221B Baker Street\\\nLondon\\\nNW1 6XE\n\nBefore page break\n\nafter page break\n",
    );
  });
});

describe("DOC lists", () => {
  const numbered = (lsid: number, start = 1) => ({ lsid, levels: [{ start, nfc: 0, text: "\x00." }, { nfc: 0, text: "\x00.\x01." }] });
  const bullets = (lsid: number) => ({ lsid, levels: [{ nfc: 23, text: "\u2022" }, { nfc: 0, text: "\x01." }] });

  test("a list starting at 5, a count going on after a paragraph between items, another list a new block", () => {
    const doc: Doc = {
      paras: [
        { runs: ["Fifth"], ilfo: 1 },
        { runs: ["Sixth"], ilfo: 1 },
        { runs: ["Take care: the box is heavy."] },
        { runs: ["Seventh"], ilfo: 1 },
        { runs: ["Alpha"], ilfo: 2 },
        { runs: ["Beta"], ilfo: 2 },
      ],
      lists: [numbered(1, 5), numbered(2)],
    };
    expect(markdown(doc)).toBe("5. Fifth\n6. Sixth\n\nTake care: the box is heavy.\n\n7. Seventh\n\n1) Alpha\n2) Beta\n");
  });

  test("a numbered sub-list under bullets stays in its parent's list; an override that restarts its list starts a new one", () => {
    const doc: Doc = {
      paras: [
        { runs: ["Prepare"], ilfo: 1 },
        { runs: ["Wash"], ilfo: 1, ilvl: 1 },
        { runs: ["Cut"], ilfo: 1, ilvl: 1 },
        { runs: ["Cook"], ilfo: 1 },
        { runs: ["Mix"], ilfo: 2 },
        { runs: ["Bake"], ilfo: 2 },
        { runs: ["Chop"], ilfo: 3 },
        { runs: ["Fry"], ilfo: 3 },
      ],
      lists: [bullets(1), numbered(2)],
      overrides: [{ lsid: 1 }, { lsid: 2 }, { lsid: 2, restart: [{ level: 0, start: 1 }] }],
    };
    expect(markdown(doc)).toBe("- Prepare\n  1. Wash\n  2. Cut\n- Cook\n\n1. Mix\n2. Bake\n\n1) Chop\n2) Fry\n");
  });

  test("letters and roman numerals (nfc 4, 2, 1) are each item's label, and the HTML list's type", () => {
    const doc: Doc = {
      paras: [
        { runs: ["Definitions"], ilfo: 1 },
        { runs: ["Scope"], ilfo: 1, ilvl: 1 },
        { runs: ["Terms"], ilfo: 1, ilvl: 1 },
        { runs: ["Fees"], ilfo: 1 },
        { runs: ["Third part"], ilfo: 2 },
      ],
      lists: [
        { lsid: 1, levels: [{ nfc: 4, text: "\x00." }, { nfc: 2, text: "\x01." }] },
        { lsid: 2, levels: [{ start: 3, nfc: 1, text: "\x00." }] },
      ],
    };
    expect(markdown(doc)).toBe("- a. Definitions\n  - i. Scope\n  - ii. Terms\n- b. Fees\n\n* III. Third part\n");
    expect(convertOffice("doc", buildDoc(doc)).html).toContain('<ol type="a"><li>Definitions<ol type="i"><li>Scope</li><li>Terms</li></ol></li><li>Fees</li></ol>\n<ol start="3" type="I"><li>Third part</li></ol>');
  });

  test("a numbered heading's number is written before it, as an RTF's list text is", () => {
    const doc: Doc = {
      paras: [{ runs: ["Scope"], istd: 1, ilfo: 1 }, { runs: ["Text."] }, { runs: ["Details"], istd: 2, ilfo: 1, ilvl: 1 }, { runs: ["Next"], istd: 1, ilfo: 1 }],
      styles: STYLES,
      lists: [numbered(1)],
    };
    expect(markdown(doc)).toBe("# 1. Scope\n\nText.\n\n## 1.1. Details\n\n# 2. Next\n");
  });
});

describe("DOC paragraph styles and text boxes", () => {
  test("Title is a level-1 heading, Quotations a quotation, preformatted paragraphs one code block with their indentation", () => {
    const doc: Doc = {
      paras: [
        { runs: ["My Document"], istd: TITLE },
        { runs: ["To be or not to be."], istd: QUOTATIONS },
        { runs: ["x = 1"], istd: HTML_PREFORMATTED },
        { runs: [""], istd: HTML_PREFORMATTED },
        { runs: ["    indented\t= 2"], istd: HTML_PREFORMATTED },
        { runs: ["After."] },
        { runs: ["def hello():"], istd: PREFORMATTED },
        { runs: ['    print("hi")'], istd: PREFORMATTED },
      ],
      styles: STYLES,
      fonts: FONTS,
    };
    expect(markdown(doc)).toBe('# My Document\n\n> To be or not to be.\n\n```\nx = 1\n\n    indented\t= 2\n```\n\nAfter.\n\n```\ndef hello():\n    print("hi")\n```\n');
  });

  test("a document set all in a monospace font (its Normal style's) is text, not one long listing", () => {
    const styles = [{ name: "Normal", sti: 0, chpx: C.font(2) }, ...STYLES.slice(1)];
    const doc: Doc = { paras: [{ runs: ["INT. KITCHEN - NIGHT"] }, { runs: ["Ann enters, then ", { text: "grep", chpx: C.font(1) }, " and leaves."] }], styles, fonts: FONTS };
    expect(markdown(doc)).toBe("INT. KITCHEN - NIGHT\n\nAnn enters, then `grep` and leaves.\n");
  });

  test("a text box's paragraphs follow the paragraph its shape is anchored in", () => {
    const doc: Doc = { paras: [{ runs: ["Flyer body.\x08"] }, { runs: ["Fine print."] }], boxes: [{ spid: 1027, text: "CALLOUT: Offer ends Friday" }] };
    expect(markdown(doc)).toBe("Flyer body.\n\nCALLOUT: Offer ends Friday\n\nFine print.\n");
  });
});
