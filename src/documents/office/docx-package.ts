/**
 * @module documents/office/docx-package
 * A DOCX as an Open Packaging Conventions package (ECMA-376 Part 2): which part is the document, and which parts are
 * its styles, numbering, notes, core properties and imported chunks, found by following relationships rather than
 * by fixed names. Word for the web saves its body as `word/document2.xml` (refused as "word/document.xml is missing"
 * when the names were fixed); any writer may name parts as it likes, and the relationships say which is which.
 *
 * Read in passes over the zip's central directory: first the relationship parts and `[Content_Types].xml` (a few
 * kilobytes), then exactly the parts they name, so media and embedded files are still never inflated, then the
 * chunks the document imports (apart: a damaged one is left out, not the document). All passes count against one
 * {@link MAX_OFFICE_UNZIPPED_BYTES}. A package without relationships (a zip holding just
 * `word/document.xml`, as some generators write) is read by the conventional names.
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";
import { children, parseXml, type XmlElement } from "./xml.ts";

/** One relationship of a part: its id, its type's last segment (lower-case: `styles`, `afchunk`), its target. */
export interface Relationship {
  id: string;
  type: string;
  /** The part it names (resolved against the source part's folder), or the external address as written. */
  target: string;
  external: boolean;
}

/**
 * Most imported parts read one at a time, when reading them together failed (one of them damaged): each such read
 * goes through the zip's directory again. Real documents import a few; a merge of a hundred documents, a hundred.
 */
const MAX_SEPARATE_CHUNKS = 1000;

/** The main part's name when the package says nothing (no `_rels/.rels`, or a target it does not hold). */
const CONVENTIONAL_MAIN = "word/document.xml";

/** The relationship types the converter follows from the main part, and the name each has when none is declared. */
const MAIN_PART_TYPES = ["styles", "numbering", "footnotes", "endnotes"] as const;
/** A part the converter looks up by relationship type: the main part's styles, numbering and notes, the package's core properties. */
export type DocxPartType = (typeof MAIN_PART_TYPES)[number] | "core-properties";

const decoder = new TextDecoder();

/**
 * `target` resolved against the folder of `source` (a part name without a leading slash; "" for the package):
 * absolute targets (`/word/afchunk.htm`) from the package root, `..` and `.` segments followed, `%20` decoded.
 */
export function resolvePartName(source: string, target: string): string {
  let path = target.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape is kept as written
  }
  const out = path.startsWith("/") ? [] : source.split("/").slice(0, -1);
  for (const segment of path.split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out.join("/");
}

/** The relationship part of `part` (`word/document2.xml` → `word/_rels/document2.xml.rels`; "" → `_rels/.rels`). */
function relationshipPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** The parts of one DOCX the converter reads, by relationship. */
export class DocxPackage {
  /** The main part's name (`word/document.xml`, Word for the web's `word/document2.xml`). */
  readonly main: string;
  /** Part names by lower-case name: OPC part names compare case-insensitively, zip names do not. */
  private readonly names = new Map<string, string>();
  private readonly files: Record<string, Uint8Array>;
  private readonly rels = new Map<string, Relationship[]>();
  private readonly defaults = new Map<string, string>();
  private readonly overrides = new Map<string, string>();
  /** Bytes the passes inflated. */
  readonly spentBytes: number;
  private readonly chunkErrors = new Map<string, string>();

  /** Reads the package's relationships, then the parts they name; `maxBytes` bounds what the passes inflate. */
  constructor(bytes: Uint8Array, maxBytes: number = MAX_OFFICE_UNZIPPED_BYTES) {
    const meta = unzipParts(bytes, "DOCX", (name) => {
      this.names.set(name.toLowerCase(), name);
      return name.toLowerCase().endsWith(".rels") || name === "[Content_Types].xml";
    }, maxBytes);
    let spent = 0;
    for (const [name, data] of Object.entries(meta)) {
      spent += data.length;
      if (name === "[Content_Types].xml") this.readContentTypes(data);
      else this.rels.set(name.toLowerCase(), readRelationships(data, name));
    }
    this.main = this.related("", "officedocument").find((name) => this.has(name)) ?? CONVENTIONAL_MAIN;
    const wanted = new Set<string>([this.main.toLowerCase()]);
    for (const type of MAIN_PART_TYPES) {
      const name = this.part(type);
      if (name) wanted.add(name.toLowerCase());
    }
    const core = this.part("core-properties");
    if (core) wanted.add(core.toLowerCase());
    try {
      this.files = unzipParts(bytes, "DOCX", (name) => wanted.has(name.toLowerCase()), maxBytes - spent);
    } catch (err) {
      // The limit is the document's, whatever the first pass spent of it.
      if (err instanceof DocumentTooLargeError) throw new DocumentTooLargeError(maxBytes);
      throw err;
    }
    for (const data of Object.values(this.files)) spent += data.length;
    spent += this.readChunks(bytes, maxBytes - spent);
    for (const name of Object.keys(this.files)) this.names.set(name.toLowerCase(), name);
    this.spentBytes = spent;
  }

  /**
   * Inflates the parts the main part imports (`aFChunk`, docx-alt-chunk.ts) within `maxBytes`, returning the bytes
   * spent. Apart from the document's own parts: a chunk that is damaged or too large is left out (and said so, by
   * {@link chunkError}), not the document; then the chunks are read one by one, at most {@link MAX_SEPARATE_CHUNKS}.
   */
  private readChunks(bytes: Uint8Array, maxBytes: number): number {
    const names = new Set<string>();
    for (const r of this.relationships(this.main)) if (r.type === "afchunk" && !r.external && this.has(r.target)) names.add(r.target.toLowerCase());
    if (names.size === 0) return 0;
    const add = (parts: Record<string, Uint8Array>) => {
      let spent = 0;
      for (const [name, data] of Object.entries(parts)) {
        this.files[name] = data;
        spent += data.length;
      }
      return spent;
    };
    try {
      return add(unzipParts(bytes, "DOCX", (name) => names.has(name.toLowerCase()), maxBytes));
    } catch (err) {
      if (!(err instanceof DocumentCorruptError || err instanceof DocumentTooLargeError)) throw err;
    }
    let spent = 0;
    for (const name of [...names].slice(0, MAX_SEPARATE_CHUNKS)) {
      try {
        spent += add(unzipParts(bytes, "DOCX", (entry) => entry.toLowerCase() === name, maxBytes - spent));
      } catch (err) {
        if (!(err instanceof DocumentCorruptError || err instanceof DocumentTooLargeError)) throw err;
        this.chunkErrors.set(name, err.message);
      }
    }
    return spent;
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
    return this.rels.get(relationshipPartOf(source).toLowerCase()) ?? [];
  }

  /** Relationship id → target of part `source`, as the body's links look them up. */
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
    const actual = this.names.get(name.toLowerCase());
    return actual === undefined ? undefined : this.files[actual];
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
    const override = this.overrides.get(name.toLowerCase());
    if (override !== undefined) return override;
    const dot = name.lastIndexOf(".");
    return dot < 0 ? "" : (this.defaults.get(name.slice(dot + 1).toLowerCase()) ?? "");
  }

  /** The parts `source`'s relationships of `type` name, in order. */
  private related(source: string, type: string): string[] {
    return this.relationships(source)
      .filter((r) => r.type === type && !r.external)
      .map((r) => r.target);
  }

  private readContentTypes(data: Uint8Array): void {
    let root: XmlElement;
    try {
      root = parseXml(decoder.decode(data), "DOCX", "[Content_Types].xml");
    } catch (err) {
      if (err instanceof DocumentCorruptError) return;
      throw err;
    }
    const type = (el: XmlElement) => (el.getAttribute("ContentType") ?? "").split(";")[0]!.trim().toLowerCase();
    for (const d of children(root, "Default")) this.defaults.set((d.getAttribute("Extension") ?? "").toLowerCase(), type(d));
    for (const o of children(root, "Override")) this.overrides.set(resolvePartName("", o.getAttribute("PartName") ?? "").toLowerCase(), type(o));
  }
}

/** The relationships of a `.rels` part named `name`; one that is not XML has none. */
function readRelationships(data: Uint8Array, name: string): Relationship[] {
  let root: XmlElement;
  try {
    root = parseXml(decoder.decode(data), "DOCX", name);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return [];
    throw err;
  }
  // `word/_rels/document.xml.rels` speaks for `word/document.xml`: targets resolve against `word/`.
  const source = name.replace(/(^|\/)_rels\/([^/]*)\.rels$/i, "$1$2");
  return children(root, "Relationship").map((r) => {
    const target = r.getAttribute("Target") ?? "";
    // A hyperlink's address is external even where a writer left out TargetMode: it is no part name.
    const external = /^external$/i.test(r.getAttribute("TargetMode") ?? "") || /^[a-z][a-z0-9+.-]*:/i.test(target);
    const type = r.getAttribute("Type") ?? "";
    return { id: r.getAttribute("Id") ?? "", type: type.slice(type.lastIndexOf("/") + 1).toLowerCase(), target: external ? target : resolvePartName(source, target), external };
  });
}
