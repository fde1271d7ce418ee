/**
 * OCR of ruled tables. tesseract's page layout dropped most of a bordered table: of a scanned 5-column table with
 * a header and 10 rows, 2 rows came through (a 10-page LibreOffice report: 0 of 60 rows), and the vertical borders
 * were read as `|` glued to the cells. The OCR worker now erases ruling lines before recognition
 * (documents/ocr/ruling-lines.ts), and a line of OCR'd words is cut at a table's gap (documents/ocr/tsv.ts).
 * Through the real /v2/scrape API (PDF and image parsers), and the pieces on their own: the PNG decoder, the rule
 * finder (rules go, text, bars and large type stay; a page without rules is handed on byte for byte) and the cut.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { decodePngGray, encodePgm, type GrayImage } from "../../src/documents/ocr/gray-image.ts";
import { removeRulingLines, withoutRulingLines } from "../../src/documents/ocr/ruling-lines.ts";
import { tsvToLines } from "../../src/documents/ocr/tsv.ts";
import { buildRuledScanPdf, paragraph, renderRuledPng, type RulingLine, type TextRun } from "../fixtures/documents/pdf-builder.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const HEADER = ["Vessel", "Owner", "Length", "Berth", "Permit"];
const VESSELS = ["Seagull", "Northern Star", "Marlin", "Kestrel", "Blue Heron", "Osprey", "Polaris", "Albatross", "Tern", "Cormorant"];
const OWNERS = ["Hansen Fisheries", "Larsen Brothers", "Coastal Cooperative", "Eriksen Marine", "Dahl Family", "Berg Trawling", "Nilsen Catch", "Moller Boats", "Holm Seafood", "Lund Harbour"];
const ROWS = [HEADER, ...VESSELS.map((v, i) => [v, OWNERS[i]!, `${12 + ((i * 7) % 23)}.${(i * 3) % 10}`, `B-${101 + i * 4}`, `P${4410 + i * 37}`])];
/** The second page's table: other names and numbers. */
const ROWS2 = [HEADER, ...["Puffin", "Gannet", "Fulmar", "Skua", "Petrel", "Shearwater", "Guillemot", "Razorbill", "Eider", "Merganser"].map((v, i) => [v, `${["Vik", "Strand", "Aas", "Bakke", "Foss"][i % 5]} Shipping`, `${30 - i}.${(i * 7) % 10}`, `C-${210 + i * 3}`, `Q${7730 - i * 41}`])];
const INTRO =
  "The harbour authority received eleven applications for berths during the spring season, most of them from fishing cooperatives along the northern coast.";
const OUTRO = "Fees are payable at the office on the quay between nine and four on weekdays; a receipt is issued for each payment.";

/** A page with a heading, a paragraph, a bordered table of {@link ROWS} (borders `border` pt wide), a paragraph. */
function tablePage(border: number, rows = ROWS): { runs: TextRun[]; lines: RulingLine[] } {
  const cols = [72, 170, 300, 370, 440, 530];
  const [top, rowH, size] = [250, 22, 10];
  const runs: TextRun[] = [{ text: "Berth allocation", x: 72, y: 80, size: 18, bold: true }, ...paragraph(INTRO, 72, 120, 95).runs];
  const bottom = top + rows.length * rowH;
  const lines: RulingLine[] = [];
  for (let r = 0; r <= rows.length; r++) lines.push({ x0: cols[0]!, y0: top + r * rowH, x1: cols.at(-1)!, y1: top + r * rowH, width: border });
  for (const x of cols) lines.push({ x0: x, y0: top, x1: x, y1: bottom, width: border });
  rows.forEach((row, r) => row.forEach((cell, c) => runs.push({ text: cell, x: cols[c]! + 5, y: top + r * rowH + rowH / 2 + size * 0.35, size, bold: r === 0 })));
  runs.push(...paragraph(OUTRO, 72, bottom + 30, 95).runs);
  return { runs, lines };
}

/** Letters and digits only, lower-cased: OCR may drop or add a blank, and a table renders with pipes. */
const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/** Rows of `rows` that no line of `markdown` holds, cell after cell. */
function missingRows(markdown: string, rows: string[][]): string[] {
  const lines = markdown.split("\n").map(squash);
  const inOrder = (line: string, row: string[]) => {
    let at = 0;
    for (const cell of row) {
      const k = line.indexOf(squash(cell), at);
      if (k < 0) return false;
      at = k + squash(cell).length;
    }
    return true;
  };
  return rows.filter((row) => !lines.some((l) => inOrder(l, row))).map((row) => row.join(" | "));
}

describe("OCR of a scanned bordered table, through the API", () => {
  let h: Harness;
  let site: ReturnType<typeof Bun.serve>;
  const files: Record<string, [Uint8Array, string]> = {};

  beforeAll(async () => {
    files["/tables.pdf"] = [await buildRuledScanPdf([tablePage(0.75), tablePage(1.5, ROWS2)]), "application/pdf"];
    const thin = tablePage(0.5);
    files["/table.png"] = [await renderRuledPng(thin.runs, thin.lines, 150), "image/png"];
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => {
        const file = files[new URL(req.url).pathname];
        return file ? new Response(file[0].slice().buffer, { headers: { "content-type": file[1] } }) : new Response("no", { status: 404 });
      },
    });
    h = await createHarness({ ocrWorkers: 2 });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    site?.stop(true);
  });

  const scrape = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}${path}`, timeout: 60_000, ...extra } });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("every row of a 0.75 pt and a 1.5 pt grid comes through, cell after cell (pdf, auto and ocr modes)", async () => {
    for (const mode of ["auto", "ocr"]) {
      const r = await scrape("/tables.pdf", { parsers: [{ type: "pdf", mode }] });
      expect(r.status).toBe(200);
      const md: string = r.body.data.markdown;
      expect(missingRows(md, ROWS)).toEqual([]); // page 1, 0.75 pt grid
      expect(missingRows(md, ROWS2)).toEqual([]); // page 2, 1.5 pt grid
      expect(squash(md)).toContain(squash(INTRO));
      expect(squash(md)).toContain(squash(OUTRO));
      // No border read as a bar glued to a cell (`|570`).
      expect(md).not.toMatch(/\|[\p{L}\p{N}]/u);
    }
  }, 90_000);

  test("an image of a bordered table comes through row by row (image parser)", async () => {
    const r = await scrape("/table.png");
    expect(r.status).toBe(200);
    expect(missingRows(r.body.data.markdown, ROWS)).toEqual([]);
  }, 60_000);
});

describe("ruling lines", () => {
  const differing = (a: GrayImage, b: GrayImage) => {
    let n = 0;
    for (let i = 0; i < a.data.length; i++) if (Math.abs(a.data[i]! - b.data[i]!) > 96) n++;
    return n / a.data.length;
  };
  const inked = (g: GrayImage) => g.data.filter((v) => v < 128).length / g.data.length;

  test("a table's grid is erased and its text left as it was", async () => {
    const { runs, lines } = tablePage(0.75);
    const ruled = await renderRuledPng(runs, lines);
    const plain = decodePngGray(await renderRuledPng(runs, []))!;
    const before = decodePngGray(ruled)!;
    const out = withoutRulingLines(ruled);
    expect(out).not.toBe(ruled);
    expect(new TextDecoder().decode(out.subarray(0, 2))).toBe("P5");
    const after = { ...before, data: out.subarray(out.length - before.data.length) };
    expect(differing(before, plain)).toBeGreaterThan(0.004); // the grid: ~1 % of the page
    expect(differing(after, plain)).toBeLessThan(0.0005); // a few pixels where a letter touches a border
    expect(inked(after)).toBeCloseTo(inked(plain), 3);
  });

  test("a page without rules is handed on as the same bytes: prose, a thick bar, large type", async () => {
    const prose = await renderRuledPng([{ text: "Harbour notice", x: 72, y: 80, size: 18, bold: true }, ...paragraph(`${INTRO} ${OUTRO} ${INTRO}`, 72, 120, 95).runs], []);
    expect(withoutRulingLines(prose)).toBe(prose);
    // A 20 pt bar (shading behind a title) is no rule; nor are the stems and bars of 96 pt letters.
    const bar = await renderRuledPng([{ text: "Till Hill", x: 40, y: 200, size: 96 }, { text: "little lilies", x: 40, y: 330, size: 60 }], [{ x0: 72, y0: 500, x1: 540, y1: 500, width: 20 }]);
    expect(withoutRulingLines(bar)).toBe(bar);
    // Not a PNG (a JPEG's first bytes), or a damaged one: as it came.
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);
    expect(withoutRulingLines(jpeg)).toBe(jpeg);
    const cut = prose.subarray(0, 200);
    expect(withoutRulingLines(cut)).toBe(cut);
  });

  test("a rule under a heading goes; ink touching it stays but for a pixel beside the rule", () => {
    const width = 400;
    const height = 200;
    const data = new Uint8Array(width * height).fill(255);
    const ink = (x0: number, y0: number, x1: number, y1: number) => {
      for (let y = y0; y <= y1; y++) data.fill(0, y * width + x0, y * width + x1 + 1);
    };
    ink(20, 100, 380, 101); // a 2-pixel rule
    ink(50, 80, 53, 99); // a stem standing on it
    const image = { width, height, data };
    expect(removeRulingLines(image)).toBe(1);
    expect(data[100 * width + 200]).toBe(255);
    expect(data[90 * width + 51]).toBe(0);
    expect(data.filter((v) => v === 0).length).toBe(4 * 19); // the stem's last row, beside the rule, went with it
  });
});

describe("the OCR worker's PNG decoder", () => {
  /** A PNG of raw samples (one row per array, channels interleaved), each row with filter `y % 5`. */
  function png(width: number, type: number, depth: number, rows: number[][], extra: [string, number[]][] = [], interlace = 0): Uint8Array {
    const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[type]!;
    const bpp = Math.max(1, (channels * depth) >> 3);
    const stride = Math.ceil((width * channels * depth) / 8);
    const packed = rows.map((samples) => {
      const row = new Uint8Array(stride);
      samples.forEach((v, i) => {
        if (depth === 16) [row[i * 2], row[i * 2 + 1]] = [v >> 8, v & 255];
        else if (depth === 8) row[i] = v;
        else row[(i * depth) >> 3]! |= v << (8 - depth - ((i * depth) & 7));
      });
      return row;
    });
    const raw: number[] = [];
    packed.forEach((row, y) => {
      const up = packed[y - 1] ?? new Uint8Array(stride);
      const f = y % 5;
      raw.push(f);
      for (let x = 0; x < stride; x++) {
        const a = x >= bpp ? row[x - bpp]! : 0;
        const b = up[x]!;
        const c = x >= bpp ? up[x - bpp]! : 0;
        const p = a + b - c;
        const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
        raw.push((row[x]! - [0, a, b, (a + b) >> 1, paeth][f]! + 256) & 255);
      }
    });
    const chunk = (name: string, body: ArrayLike<number>) => {
      const out = new Uint8Array(12 + body.length);
      new DataView(out.buffer).setUint32(0, body.length);
      out.set([...name].map((ch) => ch.charCodeAt(0)), 4);
      out.set(body, 8);
      return out; // the CRC is not checked
    };
    const ihdr = new Uint8Array(13);
    new DataView(ihdr.buffer).setUint32(0, width);
    new DataView(ihdr.buffer).setUint32(4, rows.length);
    ihdr.set([depth, type, 0, 0, interlace], 8);
    const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), ...extra.map(([n, b]) => chunk(n, b)), chunk("IDAT", deflateSync(new Uint8Array(raw))), chunk("IEND", [])];
    return new Uint8Array(parts.flatMap((p) => [...p]));
  }
  const grid = (w: number, h: number, f: (x: number, y: number) => number[]) => Array.from({ length: h }, (_, y) => Array.from({ length: w }, (_, x) => f(x, y)).flat());
  const gray = (p: Uint8Array) => Array.from(decodePngGray(p)!.data);

  test("grey at 1, 8 and 16 bits, through every filter", () => {
    const g8 = grid(7, 6, (x, y) => [(x * 37 + y * 53) % 256]);
    expect(gray(png(7, 0, 8, g8))).toEqual(g8.flat());
    const g1 = grid(11, 5, (x, y) => [(x + y) % 2]);
    expect(gray(png(11, 0, 1, g1))).toEqual(g1.flat().map((v) => v * 255));
    const g16 = grid(5, 5, (x, y) => [(x * 11 + y * 13) * 257]);
    expect(gray(png(5, 0, 16, g16))).toEqual(g16.flat().map((v) => v >> 8));
  });

  test("colour, alpha over white, and a palette with transparency", () => {
    const rgb = grid(6, 5, (x, y) => [x * 40, y * 50, 200]);
    expect(gray(png(6, 2, 8, rgb))).toEqual(grid(6, 5, (x, y) => [(x * 40 * 77 + y * 50 * 150 + 200 * 29) >> 8]).flat());
    const rgba = grid(4, 5, (x) => [0, 0, 0, x * 85]); // black at alpha 0, 85, 170, 255
    expect(gray(png(4, 6, 8, rgba))).toEqual(grid(4, 5, (x) => [255 - x * 85]).flat());
    const ga = grid(3, 5, (x) => [100, x === 0 ? 0 : 255]);
    expect(gray(png(3, 4, 8, ga))).toEqual(grid(3, 5, (x) => [x === 0 ? 255 : 100]).flat());
    const indexed = grid(9, 5, (x) => [x % 3]);
    const palette: [string, number[]][] = [["PLTE", [0, 0, 0, 255, 255, 255, 10, 20, 30]], ["tRNS", [0]]];
    expect(gray(png(9, 3, 4, indexed, palette))).toEqual(grid(9, 5, (x) => [[255, 255, (10 * 77 + 20 * 150 + 30 * 29) >> 8][x % 3]!]).flat());
  });

  test("interlaced, damaged or not a PNG: undefined; a grey image round-trips as PGM", () => {
    const rows = grid(4, 4, () => [9]);
    expect(decodePngGray(png(4, 0, 8, rows, [], 1))).toBeUndefined();
    expect(decodePngGray(png(4, 0, 8, rows).subarray(0, 40))).toBeUndefined();
    expect(decodePngGray(new TextEncoder().encode("GIF89a........................................"))).toBeUndefined();
    // A second IHDR (the pixel limit read the first, 4 × 4) is refused, not decoded (32000 × 16000 behind 100 × 100
    // took 1 GB and 9 s); so is a first one over the OCR pixel limit.
    const lying = png(2000, 0, 1, grid(2000, 2000, () => [1])); // an image the second header describes
    const ihdrEnd = 8 + 12 + 13;
    const first = png(4, 0, 8, rows).subarray(8, ihdrEnd); // a small IHDR chunk, put in front of the real one
    const twoHeaders = new Uint8Array([...lying.subarray(0, 8), ...first, ...lying.subarray(8)]);
    expect(decodePngGray(lying)?.width).toBe(2000);
    expect(decodePngGray(twoHeaders)).toBeUndefined();
    const huge = png(4, 0, 8, rows);
    new DataView(huge.buffer).setUint32(16, 20000); // the IHDR's width: 20000 × 4 rows is fine…
    new DataView(huge.buffer).setUint32(20, 20000); // …but 20000 × 20000 is over 50 megapixels
    expect(decodePngGray(huge)).toBeUndefined();
    const pgm = encodePgm({ width: 2, height: 1, data: new Uint8Array([0, 255]) });
    expect(Array.from(pgm)).toEqual([...new TextEncoder().encode("P5\n2 1\n255\n"), 0, 255]);
  });
});

describe("OCR lines → layout lines", () => {
  /** A TSV word row: line `line` of block 1, at x..x+w, 20 px high. */
  const word = (line: number, x: number, w: number, text: string, conf = 95) => `5\t1\t1\t1\t${line}\t1\t${x}\t100\t${w}\t20\t${conf}\t${text}`;

  test("a line is cut where the gap is a table's, not where it is a word's", () => {
    // 20 px words with capitals: an em of ~28 px; word gaps of 10 px, a cell gap of 60 px.
    const tsv = [word(1, 0, 60, "Northern"), word(1, 70, 40, "Star"), word(1, 170, 60, "Larsen"), word(1, 240, 80, "Brothers"), word(2, 0, 50, "The"), word(2, 60, 90, "harbour")].join("\n");
    expect(tsvToLines(tsv, 1).map((l) => l.text)).toEqual(["Northern Star", "Larsen Brothers", "The harbour"]);
    const [a, b] = tsvToLines(tsv, 1);
    expect(a!.size).toBe(b!.size);
    expect(b!.x0).toBe(170);
    // A word dropped as noise still fills its gap: no cut there.
    const noisy = [word(1, 0, 60, "Northern"), word(1, 75, 80, "~", 5), word(1, 170, 60, "Larsen")].join("\n");
    expect(tsvToLines(noisy, 1).map((l) => l.text)).toEqual(["Northern Larsen"]);
  });
});
