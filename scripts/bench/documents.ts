/**
 * Document benchmark, in one run:
 * 1. text layer: pages/s of our PDF parser (`fast` mode: mupdf WASM + layout + markdown) against `pdftotext`
 *    (poppler-utils) on the same PDFs, and word accuracy: the share of pdftotext's words (multiset) that our
 *    markdown contains;
 * 2. OCR: pages/min of our `ocr` mode (render + tesseract.js pool, one worker per core) against the `tesseract`
 *    CLI (Debian's tesseract-ocr, one process per core, OMP_THREAD_LIMIT=1) on the same page images at the same
 *    resolution.
 * Corpus: generated multi-page PDFs (pdf-builder) plus any PDFs under /usr/share/doc. Needs poppler-utils and
 * tesseract-ocr (`apt-get install -y poppler-utils tesseract-ocr`); installs nothing itself.
 *
 *   bun scripts/bench/documents.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createParserRegistry } from "../../plugins/parsers/index.ts";
import { loadMupdf } from "../../src/documents/pdf/mupdf.ts";
import { buildPdf, paragraph, type TextRun } from "../../test/fixtures/documents/pdf-builder.ts";

const CORES = availableParallelism();
const OCR_DPI = 200;
for (const tool of ["pdftotext", "tesseract"]) {
  if (!Bun.which(tool)) {
    console.error(`${tool} not found: apt-get install -y poppler-utils tesseract-ocr`);
    process.exit(1);
  }
}

const LOREM = "the committee reviewed every proposal carefully and agreed that the new budget would support research teaching and maintenance across all departments while keeping reserves for unexpected repairs during the winter".split(" ");
function text(words: number, seed: number): string {
  return Array.from({ length: words }, (_, i) => LOREM[(i * 7 + seed * 13) % LOREM.length]).join(" ");
}

async function generatedPdf(pages: number): Promise<Uint8Array> {
  return buildPdf(
    Array.from({ length: pages }, (_, p) => {
      const runs: TextRun[] = [{ text: `Section ${p + 1}`, x: 72, y: 80, size: 16, bold: true }];
      let y = 110;
      for (let k = 0; k < 8; k++) {
        const para = paragraph(text(70, p * 10 + k), 72, y, 85);
        runs.push(...para.runs);
        y = para.y + 10;
      }
      return { runs };
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), "crawlbox-bench-docs-"));
const corpus: { name: string; bytes: Uint8Array }[] = [{ name: "generated-40p.pdf", bytes: await generatedPdf(40) }];
for (const p of ["/usr/share/doc/libtasn1-doc/libtasn1.pdf", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"]) {
  try {
    corpus.push({ name: p.split("/").pop()!, bytes: readFileSync(p) });
  } catch {
    // Optional real-world PDFs.
  }
}

const registry = createParserRegistry({ ocrWorkers: CORES, ocrDpi: OCR_DPI });
const m = await loadMupdf();
const spec = (mode: string) => ({ parsers: [{ type: "pdf", mode }], timeoutMs: 600_000, formats: [{ type: "markdown" }], location: undefined }) as never;
const page = (body: Uint8Array) => ({ body, contentType: "application/pdf", headers: {}, elapsedMs: 0, finalUrl: "file:///bench.pdf", requestedUrl: "", statusCode: 200, engine: "http" }) as never;

function words(s: string): string[] {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").split(" ").filter((w) => w.length > 1);
}

/** Share of `reference`'s words (as a multiset) found in `ours`. */
function wordRecall(ours: string, reference: string): number {
  const bag = new Map<string, number>();
  for (const w of words(ours)) bag.set(w, (bag.get(w) ?? 0) + 1);
  const ref = words(reference);
  let hit = 0;
  for (const w of ref) {
    const n = bag.get(w) ?? 0;
    if (n > 0) {
      hit++;
      bag.set(w, n - 1);
    }
  }
  return ref.length ? hit / ref.length : 1;
}

console.log(`## Text layer (${CORES} cores)\n`);
console.log("| PDF | pages | crawlbox pages/s | pdftotext pages/s | ratio | word recall vs pdftotext |");
console.log("|---|---|---|---|---|---|");
let totalPages = 0, oursMs = 0, theirsMs = 0;
const parser = registry.find(page(corpus[0]!.bytes), spec("fast"))!;
await parser.parse(page(corpus[0]!.bytes), spec("fast")); // warm-up (WASM init)
for (const doc of corpus) {
  const pages = m.Document.openDocument(doc.bytes, "application/pdf").countPages();
  const path = join(dir, doc.name);
  writeFileSync(path, doc.bytes);
  const reps = 3;
  let t = performance.now();
  let md = "";
  for (let i = 0; i < reps; i++) md = (await parser.parse(page(doc.bytes), spec("fast"))).markdown;
  const ours = (performance.now() - t) / reps;
  t = performance.now();
  for (let i = 0; i < reps; i++) Bun.spawnSync(["pdftotext", path, join(dir, "out.txt")]);
  const theirs = (performance.now() - t) / reps;
  const reference = readFileSync(join(dir, "out.txt"), "utf8");
  totalPages += pages; oursMs += ours; theirsMs += theirs;
  const r = (pages / (ours / 1000)).toFixed(0), p = (pages / (theirs / 1000)).toFixed(0);
  console.log(`| ${doc.name} | ${pages} | ${r} | ${p} | ${(theirs / ours).toFixed(2)} | ${wordRecall(md, reference).toFixed(3)} |`);
}
console.log(`| **all** | ${totalPages} | ${(totalPages / (oursMs / 1000)).toFixed(0)} | ${(totalPages / (theirsMs / 1000)).toFixed(0)} | ${(theirsMs / oursMs).toFixed(2)} | |\n`);

// OCR: the first 6 pages of the generated PDF as scans.
const OCR_PAGES = 6;
const src = m.Document.openDocument(corpus[0]!.bytes, "application/pdf");
const pngs: string[] = [];
for (let i = 0; i < OCR_PAGES; i++) {
  const pix = src.loadPage(i).toPixmap(m.Matrix.scale(OCR_DPI / 72, OCR_DPI / 72), m.ColorSpace.DeviceGray, false, true);
  const p = join(dir, `page-${i}.png`);
  writeFileSync(p, pix.asPNG());
  pngs.push(p);
}
const subset = await (async () => {
  const d = new m.PDFDocument(corpus[0]!.bytes as Uint8Array);
  d.rearrangePages(Array.from({ length: OCR_PAGES }, (_, i) => i));
  return d.saveToBuffer("").asUint8Array().slice();
})();
await registry.find(page(subset), spec("ocr"))!.parse(page(subset), { ...(spec("ocr") as object), parsers: [{ type: "pdf", mode: "ocr", maxPages: CORES }] } as never); // warm the pool
let t = performance.now();
const ocrMd = (await parser.parse(page(subset), spec("ocr"))).markdown;
const oursOcr = performance.now() - t;
t = performance.now();
const texts: string[] = [];
for (let i = 0; i < pngs.length; i += CORES) {
  const batch = pngs.slice(i, i + CORES).map((p) => Bun.spawn(["tesseract", p, "-", "--oem", "1", "--dpi", String(OCR_DPI)], { stdout: "pipe", stderr: "ignore", env: { ...process.env, OMP_THREAD_LIMIT: "1" } }));
  texts.push(...(await Promise.all(batch.map((b) => new Response(b.stdout).text()))));
}
const cliOcr = performance.now() - t;
// The same run with the CLI on *our* model (tesseract.js's eng best_int), to separate engine from model.
const tessdata = join(dir, "tessdata");
mkdirSync(tessdata);
writeFileSync(join(tessdata, "eng.traineddata"), gunzipSync(readFileSync(join(import.meta.dir, "../../node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz"))));
t = performance.now();
const textsSame: string[] = [];
for (let i = 0; i < pngs.length; i += CORES) {
  const batch = pngs.slice(i, i + CORES).map((p) => Bun.spawn(["tesseract", p, "-", "--oem", "1", "--dpi", String(OCR_DPI), "--tessdata-dir", tessdata], { stdout: "pipe", stderr: "ignore", env: { ...process.env, OMP_THREAD_LIMIT: "1" } }));
  textsSame.push(...(await Promise.all(batch.map((b) => new Response(b.stdout).text()))));
}
const cliSame = performance.now() - t;
console.log(`## OCR (${OCR_PAGES} A4 pages at ${OCR_DPI} dpi, ${CORES} workers / processes)\n`);
console.log("| engine | pages/min | time | word recall vs the text layer |");
console.log("|---|---|---|---|");
const truth = (await parser.parse(page(subset), spec("fast"))).markdown;
console.log(`| crawlbox (tesseract.js WASM) | ${((OCR_PAGES / oursOcr) * 60_000).toFixed(1)} | ${(oursOcr / 1000).toFixed(1)} s | ${wordRecall(ocrMd, truth).toFixed(3)} |`);
console.log(`| tesseract CLI (native), same model (eng best_int) | ${((OCR_PAGES / cliSame) * 60_000).toFixed(1)} | ${(cliSame / 1000).toFixed(1)} s | ${wordRecall(textsSame.join("\n"), truth).toFixed(3)} |`);
console.log(`| tesseract CLI (native), Debian's eng (tessdata_fast) | ${((OCR_PAGES / cliOcr) * 60_000).toFixed(1)} | ${(cliOcr / 1000).toFixed(1)} s | ${wordRecall(texts.join("\n"), truth).toFixed(3)} |`);
console.log(`\nOCR time ratio crawlbox / CLI: ${(oursOcr / cliSame).toFixed(2)}× (same model), ${(oursOcr / cliOcr).toFixed(2)}× (Debian's model)`);
await registry.close();
rmSync(dir, { recursive: true, force: true });
