/**
 * @module documents/office/docx-alt-chunk
 * `w:altChunk` (ECMA-376 §17.17.2.1): content a DOCX imports from another part of its package, its `aFChunk`
 * relationship's target. Word converts the chunk when it opens the file and saves the result as ordinary paragraphs;
 * a file made by code and never opened in Word still holds it. HTML-to-Word converters put the whole body there
 * (HTML mostly, sometimes plain text or RTF), and the Open XML SDK's way of merging documents is a DOCX chunk per
 * document merged: read without them, such a file came out empty, with no sign that anything was left out.
 *
 * An HTML chunk is read by docx-html-chunk.ts, a plain-text one as a paragraph per line, an RTF one by the RTF reader
 * (rtf.ts) and a DOCX one by the DOCX reader; anything else (an MHT web archive, Word 2003 XML) is not read, and the
 * document's `warning` says so. The kind comes from `[Content_Types].xml`, else the part's extension, else its first
 * bytes. All chunks are read against the document's text budget; together they may be read from at most
 * {@link MAX_OFFICE_UNZIPPED_BYTES} (the limit the document's own parts inflate to; a part referred to twice is read
 * twice, as Word shows it twice), HTML from at most {@link MAX_HTML_CHUNK_CHARS} of markup, and a DOCX chunk's own
 * chunks at most {@link MAX_CHUNK_NESTING} deep. A chunk that could not be read is not read again where the body
 * imports it again. What was left out is said once per problem, naming the first parts it concerns and how many times it
 * happened ({@link ChunkWarnings}): a document importing one part 5,000 times, or 1,000 parts that fail alike, has one
 * line, not ten copies of one (`word/c.htm is past …` ×9) and a silent rest.
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { type ChunkAllowance, CHUNKS_PAST_LIMIT, MAX_HTML_CHUNK_CHARS, TOO_MANY_FAILED } from "./docx-chunk-parts.ts";
import { htmlChunkBlocks } from "./docx-html-chunk.ts";
import type { DocxPackage } from "./docx-package.ts";
import { InlineRuns } from "./inline-runs.ts";
import { rtfToBlocks } from "./rtf.ts";
import type { TextBudget } from "./text-budget.ts";
import { MAX_OFFICE_UNZIPPED_BYTES } from "./unzip.ts";

/** Deepest nesting of DOCX chunks read (a chunk in a chunk in the document); a zip can hold a copy of itself. */
export const MAX_CHUNK_NESTING = 3;

/**
 * What reading a chunk costs beyond its bytes, charged to the allowance: setting up a reader (an HTML parser) costs
 * about what a kilobyte of markup does. A 6 KB file of 100,000 `w:altChunk`s of one tiny HTML part took 0.6 s; a
 * 32 MiB body of them would have taken 8 s. Charged so, at most 32,768 chunks are read (0.3 s); a merge of a hundred
 * documents has a hundred.
 */
const CHUNK_READ_OVERHEAD_BYTES = 1024;

/** The chunk kinds read. */
type ChunkKind = "html" | "text" | "rtf" | "docx";

/** Chunk kinds by the content type `[Content_Types].xml` gives the part (lower-case, no parameters). */
const BY_CONTENT_TYPE: Record<string, ChunkKind> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/plain": "text",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": "docx",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.template": "docx",
  "application/vnd.ms-word.document.macroenabled.12": "docx",
  "application/vnd.ms-word.document.macroenabled.main+xml": "docx",
};
/** Chunk kinds by the part's extension, for packages that declare no content type for it. */
const BY_EXTENSION: Record<string, ChunkKind> = { htm: "html", html: "html", xhtml: "html", txt: "text", text: "text", rtf: "rtf", docx: "docx", docm: "docx", dotx: "docx" };

/**
 * Reads a DOCX chunk's bytes into blocks, `nesting` chunks deep, its parts and chunks charged to the shared `chunks`
 * (the DOCX reader, handed in: it is the one that reads chunks).
 */
export type DocxChunkReader = (bytes: Uint8Array, budget: TextBudget, chunks: ChunkContext, nesting: number) => { blocks: Block[] };

/** What the chunks of one document share, however deep in DOCX chunks: what they may still cost, and what they left out. */
export interface ChunkContext {
  allowance: ChunkAllowance;
  warnings: ChunkWarnings;
}

/** Parts a warning line names; the others are counted with them. */
const MAX_PARTS_PER_LINE = 3;
/** Warning lines of distinct problems; the rest are counted on a last line. */
const MAX_WARNING_LINES = 10;

/** One problem: the first distinct parts it concerns, whether there were others, and how many times it happened. */
interface Problem {
  parts: string[];
  others: boolean;
  count: number;
}

/** The problems of one document's chunks, its DOCX chunks' included (one object shared by them all). */
export class ChunkWarnings {
  private readonly problems = new Map<string, Problem>();
  private others = 0;

  /** Part (or chunk) `part` was left out or cut because of `problem` (the same words for the same problem). */
  add(part: string, problem: string): void {
    let entry = this.problems.get(problem);
    if (!entry) {
      if (this.problems.size >= MAX_WARNING_LINES) return void this.others++;
      entry = { parts: [], others: false, count: 0 };
      this.problems.set(problem, entry);
    }
    entry.count++;
    if (entry.parts.includes(part)) return;
    if (entry.parts.length < MAX_PARTS_PER_LINE) entry.parts.push(part);
    else entry.others = true;
  }

  /** One line per problem: `word/c.htm (9 times): could not be read (…)`. */
  lines(): string[] {
    const out: string[] = [];
    for (const [problem, { parts, others, count }] of this.problems) {
      const times = count > 1 ? ` (${count.toLocaleString("en-US")} times)` : "";
      out.push(`${parts.join(", ")}${others ? ", …" : ""}${times}: ${problem}`);
    }
    if (this.others) out.push(`${this.others.toLocaleString("en-US")} more chunks left out for other reasons`);
    return out;
  }
}

/** The chunks of one part (the main document), read as their `w:altChunk`s come. */
export class DocxAltChunks {
  /**
   * The main part's `aFChunk` relationships: id → part name. Ids are unique in a valid part; of two with one id, the
   * first counts, as for the body's links (docx-package.ts `targets`).
   */
  private readonly rels = new Map<string, string>();
  /** Parts that could not be read, and why: imported again, they are not read again. */
  private readonly failed = new Map<string, string>();

  constructor(
    private readonly pkg: DocxPackage,
    private readonly budget: TextBudget,
    private readonly chunks: ChunkContext,
    /** How deep in DOCX chunks the document whose chunks these are is (0: the document itself). */
    private readonly nesting: number,
    private readonly readDocx: DocxChunkReader,
  ) {
    for (const r of pkg.relationships(pkg.main)) if (r.type === "afchunk" && !r.external && !this.rels.has(r.id)) this.rels.set(r.id, r.target);
  }

  /** The blocks of the chunk `w:altChunk r:id="id"` imports; none (and a warning) when it cannot be read. */
  blocks(id: string): Block[] {
    const name = this.rels.get(id);
    const bytes = name === undefined ? undefined : this.pkg.bytes(name);
    const unread = name === undefined ? undefined : (this.failed.get(name.toLowerCase()) ?? this.pkg.chunkError(name));
    if (unread) return this.leaveOut(name!, `could not be read (${unread})`);
    if (name === undefined || !bytes) return this.leaveOut(`w:altChunk ${JSON.stringify(id.slice(0, 100))}`, "names no part the file holds");
    const kind = this.kindOf(name, bytes);
    if (!kind) return this.leaveOut(`${name} (${this.pkg.contentType(name) || "of an unknown type"})`, "imported content this reader does not convert");
    if (kind === "docx" && this.nesting + 1 > MAX_CHUNK_NESTING) {
      return this.leaveOut(name, `not read: a document imported ${this.nesting + 1} levels deep (chunks are read at most ${MAX_CHUNK_NESTING} deep)`);
    }
    const { allowance } = this.chunks;
    if (kind === "docx" && allowance.failedReadsLeft <= 0) return this.leaveOut(name, `could not be read (${TOO_MANY_FAILED})`);
    const cost = bytes.length + CHUNK_READ_OVERHEAD_BYTES;
    if (cost > allowance.bytesLeft) {
      return this.leaveOut(name, `could not be read (past the ${MAX_OFFICE_UNZIPPED_BYTES.toLocaleString("en-US")} bytes the imported chunks of a document may be read from together)`);
    }
    allowance.bytesLeft -= cost;
    try {
      if (kind === "html") return this.html(name, decodeChunk(bytes, true));
      if (kind === "text") return textBlocks(decodeChunk(bytes, false), this.budget);
      if (kind === "rtf") return rtfToBlocks(bytes, this.budget).blocks;
      return this.readDocx(bytes, this.budget, this.chunks, this.nesting + 1).blocks;
    } catch (err) {
      // A damaged chunk leaves the chunk out, not the document: its body around the chunk is still read. A DOCX
      // chunk too large had inflated all that was left (docx-chunk-parts.ts): nothing more is read.
      if (err instanceof DocumentTooLargeError) {
        allowance.bytesLeft = 0;
        this.failed.set(name.toLowerCase(), CHUNKS_PAST_LIMIT);
      } else if (err instanceof DocumentCorruptError) {
        if (kind === "docx") allowance.failedReadsLeft--;
        this.failed.set(name.toLowerCase(), err.message);
      } else throw err;
      return this.leaveOut(name, `could not be read (${this.failed.get(name.toLowerCase())})`);
    }
  }

  /** An HTML chunk's blocks, from at most what is left of {@link MAX_HTML_CHUNK_CHARS} of markup. */
  private html(name: string, html: string): Block[] {
    const { allowance } = this.chunks;
    if (allowance.htmlCharsLeft <= 0) return this.leaveOut(name, `not read: the HTML chunks of a document are read from at most ${MAX_HTML_CHUNK_CHARS.toLocaleString("en-US")} characters of markup together`);
    if (html.length > allowance.htmlCharsLeft) {
      this.chunks.warnings.add(name, `cut: the HTML chunks of a document are read from at most ${MAX_HTML_CHUNK_CHARS.toLocaleString("en-US")} characters of markup together`);
      html = html.slice(0, allowance.htmlCharsLeft);
    }
    allowance.htmlCharsLeft -= html.length;
    return htmlChunkBlocks(html, this.budget);
  }

  /** No blocks, and `problem` said of `part`. */
  private leaveOut(part: string, problem: string): Block[] {
    this.chunks.warnings.add(part, problem);
    return [];
  }

  /** The chunk's kind: by its declared content type, else its extension, else its first bytes (an MHT's are none of these). */
  private kindOf(name: string, bytes: Uint8Array): ChunkKind | undefined {
    const known = BY_CONTENT_TYPE[this.pkg.contentType(name)] ?? BY_EXTENSION[name.slice(name.lastIndexOf(".") + 1).toLowerCase()];
    if (known) return known;
    const head = new TextDecoder("windows-1252").decode(bytes.subarray(0, 512)).trimStart();
    if (head.startsWith("{\\rtf")) return "rtf";
    if (head.startsWith("PK\u0003\u0004")) return "docx";
    return /^(<!doctype html|<html|<body|<p[\s>])/i.test(head) ? "html" : undefined;
  }
}

/**
 * A plain-text chunk: a paragraph per line, as Word imports a text file. The lines are found one at a time: split at
 * once, 32 MB of line ends were 33 million strings (1.2 s, 630 MB).
 */
function textBlocks(text: string, budget: TextBudget): Block[] {
  const out: Block[] = [];
  const lineEnd = /\r\n|\r|\n/g;
  for (let from = 0; from <= text.length && !budget.cut; ) {
    const m = lineEnd.exec(text);
    const to = m ? m.index : text.length;
    const line = text.slice(from, to);
    from = m ? lineEnd.lastIndex : text.length + 1;
    if (!line.trim()) continue;
    const runs = new InlineRuns(budget);
    runs.push(line.replace(/\t/g, " "));
    const content = runs.spans();
    if (content.length) out.push({ kind: "paragraph", content });
  }
  return out;
}

/**
 * A chunk's bytes as text: by its byte order mark, else (HTML) the charset its `<meta>` declares, else UTF-8 when
 * the bytes are UTF-8, else windows-1252 (what Word assumes of a text file without a mark).
 */
function decodeChunk(bytes: Uint8Array, html: boolean): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const label = html ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(new TextDecoder("windows-1252").decode(bytes.subarray(0, 2048)))?.[1] : undefined;
  if (label) {
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // a charset TextDecoder does not know: read as below
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}
