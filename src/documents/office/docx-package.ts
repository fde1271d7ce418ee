/**
 * @module documents/office/docx-package
 * A DOCX as an Open Packaging Conventions package (ECMA-376 Part 2): which part is the document, and which parts are
 * its styles, numbering, notes, core properties and imported chunks, found by following relationships rather than
 * by fixed names (opc-package.ts, shared with the XLSX reader). Word for the web saves its body as `word/document2.xml` (refused as
 * "word/document.xml is missing" when the names were fixed); any writer may name parts as it likes, and the
 * relationships say which is which. A part `_rels/.rels` names that is not a Word document (typed as something
 * else in `[Content_Types].xml`, or XML whose root is not `w:document`: `word/styles.xml`) is not taken for one: the
 * conventional `word/document.xml` is read instead.
 *
 * Read in passes over the zip's central directory: first `_rels/.rels`, `[Content_Types].xml` and the conventional
 * main part's relationships (a few kilobytes), then exactly the parts they name, so media, embedded files and the
 * relationships of parts not read (a chart's) are never inflated, then the chunks the document imports (apart: a
 * damaged one is left out, not the document; docx-chunk-parts.ts). All passes count against one `maxBytes`
 * ({@link MAX_OFFICE_UNZIPPED_BYTES} for a document). A package without relationships (a zip holding just
 * `word/document.xml`, as some generators write) is read by the conventional names.
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import { type ChunkAllowance, chunkAllowance, readChunkParts } from "./docx-chunk-parts.ts";
import { docxRelationships, rootLocalName } from "./docx-relationships.ts";
import { CONTENT_TYPES, ContentTypes, PACKAGE_RELS, type Relationship, relsPartOf } from "./opc-package.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";
import { parseXml, type XmlElement } from "./xml.ts";

/** The main part's name when the package says nothing (no `_rels/.rels`, or a target it does not hold). */
const CONVENTIONAL_MAIN = "word/document.xml";

/** The relationship types the converter follows from the main part, and the name each has when none is declared. */
const MAIN_PART_TYPES = ["styles", "numbering", "footnotes", "endnotes"] as const;
/** A part the converter looks up by relationship type: the main part's styles, numbering and notes, the package's core properties. */
export type DocxPartType = (typeof MAIN_PART_TYPES)[number] | "core-properties";

/**
 * Content types of a WordprocessingML main part (ECMA-376 Part 1 §11.3.10): a document or a template, with macros or
 * without. A part the package types otherwise (styles, an image) is not the document, whatever `_rels/.rels` says.
 */
const MAIN_CONTENT_TYPES = new Set([
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
  "application/vnd.ms-word.document.macroenabled.main+xml",
  "application/vnd.ms-word.template.macroenabledtemplate.main+xml",
]);
/** Content types that say only "XML" (or nothing): such a part may be the document when its name ends in `.xml`. */
const GENERIC_XML_TYPES = new Set(["", "application/xml", "text/xml"]);

const decoder = new TextDecoder();

/** The parts of one DOCX the converter reads, by relationship. */
export class DocxPackage {
  /** The main part's name (`word/document.xml`, Word for the web's `word/document2.xml`). */
  main = CONVENTIONAL_MAIN;
  /** Why the part `_rels/.rels` names as the document is not the one read, when it is not. */
  private mainNote?: string;
  /** Part names by lower-case name: OPC part names compare case-insensitively, zip names do not. */
  private readonly names = new Map<string, string>();
  /** The parts read, by lower-case name. */
  private readonly files = new Map<string, Uint8Array>();
  /** Relationships by lower-case name of their relationship part. */
  private readonly rels = new Map<string, Relationship[]>();
  private contentTypes = new ContentTypes(undefined);
  /** Bytes the passes inflated. */
  spentBytes = 0;
  private readonly chunkErrors = new Map<string, string>();

  /**
   * Reads the package's relationships, then the parts they name; `maxBytes` bounds what the passes inflate (for a
   * DOCX chunk, what the document's chunks may still inflate to), and failed reads of imported parts are charged to
   * `allowance` (docx-chunk-parts.ts).
   */
  constructor(
    private readonly zip: Uint8Array,
    allowance: ChunkAllowance = chunkAllowance(),
    private readonly maxBytes: number = MAX_OFFICE_UNZIPPED_BYTES,
  ) {
    // Only the relationship parts the converter follows are read: the package's, the main part's and the notes'
    // (a chart's may be megabytes: a 31 MB one made a 122 KB document too large).
    this.read([PACKAGE_RELS, CONTENT_TYPES, relsPartOf(CONVENTIONAL_MAIN)], true);
    this.relsOf(PACKAGE_RELS);
    this.contentTypes = new ContentTypes(this.files.get(CONTENT_TYPES.toLowerCase()));
    const declared = this.related("", "officedocument");
    this.main = declared.find((name) => this.has(name) && this.mayBeDocument(name)) ?? CONVENTIONAL_MAIN;
    const named = declared[0];
    if (named !== undefined && named.toLowerCase() !== this.main.toLowerCase()) {
      this.mainNote = this.has(named)
        ? `_rels/.rels names ${named}, typed ${this.contentType(named) || "as nothing"} and not a Word document`
        : `_rels/.rels names ${named}, which the package does not hold`;
    }
    this.readMain();
    // A part named as the document whose root is not w:document: the conventional name instead, if held.
    const data = this.bytes(this.main);
    const root = data && rootLocalName(data);
    if (root !== undefined && root !== "document" && this.main !== CONVENTIONAL_MAIN && this.has(CONVENTIONAL_MAIN)) {
      this.mainNote = `_rels/.rels names ${this.main}, whose root element is ${root}, not a Word document's`;
      this.main = CONVENTIONAL_MAIN;
      this.readMain();
    }
    const chunks = new Set<string>();
    for (const r of this.relationships(this.main)) if (r.type === "afchunk" && !r.external && this.has(r.target)) chunks.add(r.target.toLowerCase());
    if (chunks.size === 0) return;
    const read = readChunkParts(zip, chunks, maxBytes - this.spentBytes, allowance);
    for (const [name, data] of Object.entries(read.files)) this.files.set(name.toLowerCase(), data);
    this.spentBytes += read.spentBytes;
    for (const [name, why] of read.errors) this.chunkErrors.set(name, why);
  }

  /** Reads the main part's relationships, then the main part, the parts they name and the notes' relationships. */
  private readMain(): void {
    this.read([relsPartOf(this.main)]);
    this.relsOf(relsPartOf(this.main));
    const wanted = [this.main];
    for (const type of MAIN_PART_TYPES) {
      const name = this.part(type);
      if (name) wanted.push(name);
      if (name && (type === "footnotes" || type === "endnotes")) wanted.push(relsPartOf(name));
    }
    const core = this.part("core-properties");
    if (core) wanted.push(core);
    this.read(wanted);
    for (const type of ["footnotes", "endnotes"] as const) {
      const name = this.part(type);
      if (name) this.relsOf(relsPartOf(name));
    }
  }

  /**
   * One pass over the zip for the parts `wanted` names that are held and not read yet (none: no pass), charged to
   * the bytes spent; the first pass learns every part's name. Past `maxBytes` the document is too large, and the
   * limit named is the whole of it, not what was left for the pass.
   */
  private read(wanted: string[], first = false): void {
    const names = new Set(wanted.map((n) => n.toLowerCase()).filter((n) => first || (this.names.has(n) && !this.files.has(n))));
    if (names.size === 0) return;
    const keep = (name: string) => {
      const lower = name.toLowerCase();
      if (first) this.names.set(lower, name);
      return names.has(lower) && !this.files.has(lower);
    };
    let parts: Record<string, Uint8Array>;
    try {
      parts = unzipParts(this.zip, "DOCX", keep, this.maxBytes - this.spentBytes);
    } catch (err) {
      throw err instanceof DocumentTooLargeError ? new DocumentTooLargeError(this.maxBytes) : err;
    }
    for (const [name, data] of Object.entries(parts)) {
      this.spentBytes += data.length;
      // Two entries whose names differ only in case are one part: the first is kept.
      if (!this.files.has(name.toLowerCase())) this.files.set(name.toLowerCase(), data);
    }
  }

  /** Reads relationship part `name` into the relationships, if it was read and is not yet. */
  private relsOf(name: string): void {
    const data = this.files.get(name.toLowerCase());
    if (data && !this.rels.has(name.toLowerCase())) this.rels.set(name.toLowerCase(), docxRelationships(data, name));
  }

  /** Whether part `name` may be a Word document: typed as one, or typed as XML (or not at all) and named `….xml`. */
  private mayBeDocument(name: string): boolean {
    const type = this.contentType(name);
    return MAIN_CONTENT_TYPES.has(type) || (GENERIC_XML_TYPES.has(type) && name.toLowerCase().endsWith(".xml"));
  }

  /**
   * What is wrong with the main part, whose root (parsed) is `root`, for the error a document without a body is:
   * it is missing, it is not a Word document, or it has no `w:body`; with what `_rels/.rels` named instead.
   */
  mainProblem(root: XmlElement | undefined): string {
    const note = this.mainNote ? ` (${this.mainNote})` : "";
    if (!root) return `${this.main} is missing${note}`;
    if (root.tagName !== "w:document") return `${this.main} is not a Word document: its root element is ${root.tagName}${note}`;
    return `${this.main} has no w:body`;
  }

  /** Why imported part `name` could not be read (damaged, or past the size limit), if it could not. */
  chunkError(name: string): string | undefined {
    return this.chunkErrors.get(name.toLowerCase());
  }

  /** Whether the package holds a part of that name. */
  has(name: string): boolean {
    return this.names.has(name.toLowerCase());
  }

  /** The relationships of part `source` ("" for the package's own). */
  relationships(source: string): Relationship[] {
    return this.rels.get(relsPartOf(source).toLowerCase()) ?? [];
  }

  /**
   * Relationship id → target of part `source`, as the body's links look them up. Ids are unique in a valid part
   * (Part 2 §9.3.2.2); of two with one id, the first counts, as it does for the other parts read by relationship
   * (docx-alt-chunk.ts; the XLSX reader does the same).
   */
  targets(source: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.relationships(source)) if (!out.has(r.id)) out.set(r.id, r.target);
    return out;
  }

  /**
   * The name of the main part's styles, numbering, footnotes or endnotes part, or the package's core properties:
   * what a relationship of that type names, else the conventional name when the package holds it.
   */
  part(type: DocxPartType): string | undefined {
    const source = type === "core-properties" ? "" : this.main;
    const declared = this.related(source, type).find((name) => this.has(name));
    if (declared) return declared;
    const conventional = type === "core-properties" ? "docProps/core.xml" : `word/${type}.xml`;
    return this.has(conventional) ? conventional : undefined;
  }

  /** The bytes of part `name`, if it was read. */
  bytes(name: string): Uint8Array | undefined {
    return this.files.get(name.toLowerCase());
  }

  /** Part `name` parsed; undefined when it was not read. Throws SCRAPE_DOCUMENT_CORRUPT when it is not XML. */
  xml(name: string | undefined): XmlElement | undefined {
    const data = name === undefined ? undefined : this.bytes(name);
    return data ? parseXml(decoder.decode(data), "DOCX", name!) : undefined;
  }

  /** Part `name` parsed, or undefined when it is missing or not XML: a part the document reads without. */
  optionalXml(name: string | undefined): XmlElement | undefined {
    try {
      return this.xml(name);
    } catch (err) {
      if (err instanceof DocumentCorruptError) return undefined;
      throw err;
    }
  }

  /** The content type `[Content_Types].xml` gives part `name` (lower-case, no parameters), or "". */
  contentType(name: string): string {
    return this.contentTypes.of(name);
  }

  /** The parts `source`'s relationships of `type` name, in order. */
  private related(source: string, type: string): string[] {
    return this.relationships(source)
      .filter((r) => r.type === type && !r.external)
      .map((r) => r.target);
  }
}
