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
 * twice, as Word shows it twice), and a DOCX chunk's own chunks at most {@link MAX_CHUNK_NESTING} deep.
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import type { DocxPackage } from "./docx-package.ts";
import { htmlChunkBlocks } from "./docx-html-chunk.ts";
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
 * What the chunks of one document may still be read from, one object shared by the document and the DOCX chunks in
 * it (however deep): a chunk's bytes, and what a DOCX chunk's own parts inflate to (charged by the DOCX reader).
 */
export interface ChunkAllowance {
  bytesLeft: number;
}

/** A fresh allowance, for a document read from the top. */
export function chunkAllowance(): ChunkAllowance {
  return { bytesLeft: MAX_OFFICE_UNZIPPED_BYTES };
}

/**
 * Reads a DOCX chunk's bytes into blocks, `nesting` chunks deep, its parts and chunks charged to `allowance` (the
 * DOCX reader, handed in: it is the one that reads chunks).
 */
export type DocxChunkReader = (bytes: Uint8Array, budget: TextBudget, allowance: ChunkAllowance, nesting: number) => { blocks: Block[]; warnings: string[] };

/** The chunks of one part (the main document), read as their `w:altChunk`s come. */
export class DocxAltChunks {
  /** What was left out, one line each, for the document's `warning`. */
  readonly warnings: string[] = [];
  /** The main part's `aFChunk` relationships: id → part name. */
  private readonly rels = new Map<string, string>();

  constructor(
    private readonly pkg: DocxPackage,
    private readonly budget: TextBudget,
    private readonly allowance: ChunkAllowance,
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
    const unread = name === undefined ? undefined : this.pkg.chunkError(name);
    if (unread) {
      this.warn(`${name} could not be read (${unread})`);
      return [];
    }
    if (name === undefined || !bytes) {
      this.warn(`an imported chunk (w:altChunk ${JSON.stringify(id)}) names no part the file holds`);
      return [];
    }
    const kind = this.kindOf(name, bytes);
    if (!kind) {
      this.warn(`${name} (${this.pkg.contentType(name) || "of an unknown type"}) is imported content this reader does not convert`);
      return [];
    }
    const cost = bytes.length + CHUNK_READ_OVERHEAD_BYTES;
    if (cost > this.allowance.bytesLeft) {
      this.warn(`${name} is past the ${MAX_OFFICE_UNZIPPED_BYTES} bytes the imported chunks of a document may be read from together`);
      return [];
    }
    this.allowance.bytesLeft -= cost;
    try {
      if (kind === "html") return htmlChunkBlocks(decodeChunk(bytes, true), this.budget);
      if (kind === "text") return textBlocks(decodeChunk(bytes, false), this.budget);
      if (kind === "rtf") return rtfToBlocks(bytes, this.budget).blocks;
      if (this.nesting + 1 > MAX_CHUNK_NESTING) {
        this.warn(`${name} is a document imported ${MAX_CHUNK_NESTING} levels deep; deeper ones are not read`);
        return [];
      }
      const inner = this.readDocx(bytes, this.budget, this.allowance, this.nesting + 1);
      for (const w of inner.warnings) this.warn(w);
      return inner.blocks;
    } catch (err) {
      // A damaged chunk leaves the chunk out, not the document: its body around the chunk is still read.
      if (!(err instanceof DocumentCorruptError || err instanceof DocumentTooLargeError)) throw err;
      this.warn(`${name} could not be read (${err.message})`);
      return [];
    }
  }

  private warn(what: string): void {
    if (this.warnings.length < 10) this.warnings.push(what);
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

/** A plain-text chunk: a paragraph per line, as Word imports a text file. */
function textBlocks(text: string, budget: TextBudget): Block[] {
  const out: Block[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (budget.cut) break;
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
