/**
 * @module documents/office/opc-package
 * What DOCX, XLSX (and any other Office Open XML file) share as Open Packaging Conventions packages (ECMA-376
 * Part 2): part names, relationships, content types and reading parts from the zip. Each format's reader
 * (xlsx-package.ts, docx-package.ts) says which parts it wants; the rules for naming and finding them are the
 * package's, not the format's, and live here once.
 *
 * - **Part names** compare case-insensitively (Part 2 §6.2.2.3) while zip entry names do not: parts are kept by
 *   lower-case name.
 * - **Relationships** (`_rels/<part>.rels`, the package's own in `_rels/.rels`) name the parts a part uses, by
 *   target relative to the part's folder or absolute from the package root, and their type says what each is.
 *   Writers name parts as they like (`xl/workbook2.xml`, `word/document2.xml`, openpyxl's absolute targets), so the
 *   relationships, not the usual names, say which part is which.
 * - **Reads** go through the zip's central directory in rounds, each round only the parts the previous one named,
 *   within one allowance of decompressed bytes for the whole package (unzip.ts): media and embedded files are never
 *   inflated, and a package cannot spend its allowance once per round.
 *
 * Targets and attribute values come from the file: they are scanned with `indexOf` and `lastIndexOf`, never with a
 * regex that backtracks (a 200,000-character target of `?`s took 12 s through `/[?#].*$/`).
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";
import { children, parseXml, type XmlElement } from "./xml.ts";

/** One relationship of a part. */
export interface Relationship {
  id: string;
  /** The type's last segment, lower-case (`officedocument`, `worksheet`, `sharedstrings`, `afchunk`): writers vary its case. */
  type: string;
  /** The part it names (resolved against the source part's folder), or the external address as written. */
  target: string;
  external: boolean;
}

/** The package's own relationships part: it names the main part (`officeDocument`) and the core properties. */
export const PACKAGE_RELS = "_rels/.rels";
/** The part that gives each part's content type, by extension or by name. */
export const CONTENT_TYPES = "[Content_Types].xml";

const decoder = new TextDecoder();

/** The folder holding `part` (`xl/workbook.xml` → `xl`; a part at the root → ""). */
export const folderOf = (part: string) => part.slice(0, Math.max(0, part.lastIndexOf("/")));

/** The relationships part of `part` (`xl/worksheets/sheet1.xml` → `xl/worksheets/_rels/sheet1.xml.rels`; "" → `_rels/.rels`). */
export function relsPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/**
 * The folder a relationships part's targets are relative to: its source part's (`word/_rels/document.xml.rels` →
 * `word`; `_rels/.rels` → "", the package root).
 */
export function sourceFolderOf(relsPart: string): string {
  const folder = folderOf(relsPart);
  const last = folder.slice(folder.lastIndexOf("/") + 1);
  return last.toLowerCase() === "_rels" ? folderOf(folder) : folder;
}

/**
 * A part name from a relationship target: relative to `folder`, or absolute from the package root (`/xl/…`); `..`
 * and `.` followed, percent escapes decoded (`sheet%201.xml`), a query or fragment dropped. The cut is found with
 * `indexOf`: a regex such as `/[?#].*$/` rescans to the end from every `?` of a crafted target.
 */
export function resolvePart(folder: string, target: string): string {
  const query = target.indexOf("?");
  const fragment = target.indexOf("#");
  const cut = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  let path = cut < 0 ? target : target.slice(0, cut);
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape is kept as written
  }
  const out: string[] = [];
  for (const segment of (path.startsWith("/") ? path : `${folder}/${path}`).split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out.join("/");
}

/** Whether a target is an address outside the package: `TargetMode="External"`, or a URI with a scheme (`https:`). */
function isExternal(mode: string | null, target: string): boolean {
  // A hyperlink's address is external even where a writer left TargetMode out: it is no part name.
  if (mode !== null && mode.toLowerCase() === "external") return true;
  const colon = target.indexOf(":");
  return colon > 0 && /^[a-z][a-z0-9+.-]*$/i.test(target.slice(0, colon));
}

/**
 * The relationships in relationships part `relsPart` (`bytes`), internal targets resolved to part names against its
 * source part's folder. Throws SCRAPE_DOCUMENT_CORRUPT (naming `kind`) when the part is not XML: whether a package
 * reads without it is the caller's call (a document's own relationships are needed; a sheet's links are not).
 */
export function readRelationships(bytes: Uint8Array, relsPart: string, kind: string): Relationship[] {
  const folder = sourceFolderOf(relsPart);
  return children(parseXml(decoder.decode(bytes), kind, relsPart), "Relationship").map((r) => {
    const target = r.getAttribute("Target") ?? "";
    const external = isExternal(r.getAttribute("TargetMode"), target);
    const type = r.getAttribute("Type") ?? "";
    return { id: r.getAttribute("Id") ?? "", type: type.slice(type.lastIndexOf("/") + 1).toLowerCase(), target: external ? target : resolvePart(folder, target), external };
  });
}

/** The part the first internal relationship of `type` (its last segment, any case) names, else `fallback`. */
export function partOfType(rels: Iterable<Relationship>, type: string, fallback: string): string {
  const wanted = type.toLowerCase();
  for (const r of rels) if (r.type === wanted && !r.external && r.target) return r.target;
  return fallback;
}

/** The content types `[Content_Types].xml` gives parts: by name (`Override`), else by extension (`Default`). */
export class ContentTypes {
  private readonly defaults = new Map<string, string>();
  private readonly overrides = new Map<string, string>();

  /** Reads `bytes` (the part); none are known when it is missing or not XML, which a package can do without. */
  constructor(bytes: Uint8Array | undefined) {
    if (!bytes) return;
    let root: XmlElement;
    try {
      root = parseXml(decoder.decode(bytes), "OPC", CONTENT_TYPES);
    } catch (err) {
      if (err instanceof DocumentCorruptError) return;
      throw err;
    }
    const type = (el: XmlElement) => (el.getAttribute("ContentType") ?? "").split(";")[0]!.trim().toLowerCase();
    for (const d of children(root, "Default")) this.defaults.set((d.getAttribute("Extension") ?? "").toLowerCase(), type(d));
    for (const o of children(root, "Override")) this.overrides.set(resolvePart("", o.getAttribute("PartName") ?? "").toLowerCase(), type(o));
  }

  /** The content type of part `name` (lower-case, no parameters), or "" when the package does not say. */
  of(name: string): string {
    const override = this.overrides.get(name.toLowerCase());
    if (override !== undefined) return override;
    const dot = name.lastIndexOf(".");
    return dot < 0 || dot < name.lastIndexOf("/") ? "" : (this.defaults.get(name.slice(dot + 1).toLowerCase()) ?? "");
  }
}

/** Parts read in one round, by name: {@link PackageParts.part} compares names case-insensitively, as OPC does. */
export type PackageParts = ReadonlyMap<string, Uint8Array> & { part(name: string): Uint8Array | undefined };

/**
 * Reads a package's parts in rounds, all within one allowance of decompressed bytes ({@link MAX_OFFICE_UNZIPPED_BYTES}
 * unless told): a round reads only what it is asked for, and what the rounds inflate adds up.
 */
export class PackageReader {
  /** Bytes the rounds inflated so far. */
  spentBytes = 0;
  /** Every entry of the zip, by lower-case name (known after the first round). */
  readonly entries = new Set<string>();
  private readonly parts = new Map<string, Uint8Array>();

  constructor(
    private readonly bytes: Uint8Array,
    /** The format named in errors (`XLSX`, `DOCX`). */
    private readonly kind: string,
    private readonly maxBytes: number = MAX_OFFICE_UNZIPPED_BYTES,
  ) {}

  /**
   * Reads the parts `wanted` names (or accepts) that were not read yet, within what is left of the allowance. Throws
   * SCRAPE_DOCUMENT_CORRUPT for a damaged zip or part, and a too-large error naming the whole allowance.
   */
  read(wanted: Iterable<string> | ((name: string) => boolean)): PackageParts {
    const names = typeof wanted === "function" ? undefined : new Set([...wanted].map((n) => n.toLowerCase()));
    const keep = (name: string) => {
      const lower = name.toLowerCase();
      this.entries.add(lower);
      return !this.parts.has(lower) && (names ? names.has(lower) : (wanted as (name: string) => boolean)(name));
    };
    let files: Record<string, Uint8Array>;
    try {
      files = unzipParts(this.bytes, this.kind, keep, this.maxBytes - this.spentBytes);
    } catch (err) {
      // The limit is the package's, whichever round reached it: not what was left of it for that round.
      throw err instanceof DocumentTooLargeError ? new DocumentTooLargeError(this.maxBytes) : err;
    }
    const round = new Map<string, Uint8Array>();
    for (const [name, data] of Object.entries(files)) {
      this.spentBytes += data.length;
      const lower = name.toLowerCase();
      // Two entries whose names differ only in case are one part: the first is kept.
      if (!this.parts.has(lower)) this.parts.set(lower, data);
      round.set(lower, this.parts.get(lower)!);
    }
    // Parts asked for again are the ones already read.
    for (const name of names ?? []) {
      const data = this.parts.get(name);
      if (data) round.set(name, data);
    }
    return Object.assign(round, { part: (name: string) => round.get(name.toLowerCase()) });
  }

  /** Whether the zip holds part `name` (any case); only known after the first round. */
  has(name: string): boolean {
    return this.entries.has(name.toLowerCase());
  }

  /** Part `name` if any round read it. */
  part(name: string): Uint8Array | undefined {
    return this.parts.get(name.toLowerCase());
  }
}
