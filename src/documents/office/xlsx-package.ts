/**
 * @module documents/office/xlsx-package
 * Finds a workbook's parts as the package names them (ECMA-376 Part 2, Open Packaging Conventions), not by their
 * usual names: the package's relationships (`_rels/.rels`) name the main part (`officeDocument`), and that part's
 * own relationships name its sheets, shared strings and styles. Excel writes `xl/workbook.xml`, but other exporters
 * write `xl/workbook2.xml` and the like, and such a workbook was refused as damaged ("xl/workbook.xml is missing").
 * Targets are relative to the folder of the part whose relationships they are (`worksheets/sheet1.xml`), or absolute
 * from the package root (`/xl/worksheets/sheet1.xml`, as openpyxl writes them). A package without the relationship
 * falls back to the usual name (`xl/workbook.xml`, `xl/styles.xml`): some writers leave the relationships of the
 * styles or shared strings out, and Excel reads such files.
 *
 * Parts are inflated in rounds, each round only the parts the previous one named, within one allowance of
 * decompressed bytes for the whole workbook (unzip.ts).
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";
import { children, parseXml } from "./xml.ts";

/** One relationship of a part: where it points and what it is (its type's last segment: `worksheet`, `styles`…). */
export interface Relationship {
  target: string;
  external: boolean;
  type: string;
}

const decoder = new TextDecoder();

/** The folder holding `part` (`xl/workbook.xml` → `xl`; a part at the root → ""). */
export const folderOf = (part: string) => part.slice(0, Math.max(0, part.lastIndexOf("/")));

/** The relationships part of a part (`xl/worksheets/sheet1.xml` → `xl/worksheets/_rels/sheet1.xml.rels`). */
export function relsPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/**
 * A package part name from a relationship target: relative to `folder`, or absolute from the package root; `..` and
 * `.` followed, percent escapes decoded (`sheet%201.xml`), a query or fragment dropped.
 */
export function resolvePart(folder: string, target: string): string {
  let path = target.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape is kept as written
  }
  const parts = (path.startsWith("/") ? path.slice(1) : `${folder}/${path}`).split(/[/\\]/);
  const out: string[] = [];
  for (const p of parts) {
    if (p === "..") out.pop();
    else if (p !== "." && p !== "") out.push(p);
  }
  return out.join("/");
}

/** Relationship id → relationship, internal targets resolved against `folder` (the folder of the part they belong to). */
export function relationships(bytes: Uint8Array | undefined, folder: string): Map<string, Relationship> {
  const out = new Map<string, Relationship>();
  if (!bytes) return out;
  for (const r of children(parseXml(decoder.decode(bytes), "XLSX", "relationships"), "Relationship")) {
    const target = r.getAttribute("Target") ?? "";
    const external = r.getAttribute("TargetMode") === "External";
    const type = (r.getAttribute("Type") ?? "").replace(/.*\//, "");
    out.set(r.getAttribute("Id") ?? "", { target: external ? target : resolvePart(folder, target), external, type });
  }
  return out;
}

/** The part the first internal relationship of `type` names, else `fallback`. */
export function partOfType(rels: ReadonlyMap<string, Relationship>, type: string, fallback: string): string {
  for (const r of rels.values()) if (r.type === type && !r.external && r.target) return r.target;
  return fallback;
}

/** Parts read from a package, by name: part names compare case-insensitively (OPC), zip entry names do not. */
export type PackageParts = ReadonlyMap<string, Uint8Array> & { part(name: string): Uint8Array | undefined };

/** A workbook package opened: its main part, that part's relationships, and the parts read so far. */
export interface WorkbookPackage {
  /** The main part's name (`xl/workbook.xml`). */
  workbookPart: string;
  workbook: Uint8Array;
  /** The main part's relationships, targets resolved to part names. */
  rels: Map<string, Relationship>;
  /** The core properties part (`docProps/core.xml`), when there is one. */
  core?: Uint8Array;
  /** Reads the parts `names` names, within what is left of the workbook's allowance of decompressed bytes. */
  read(names: Iterable<string>): PackageParts;
}

/** Opens the workbook in `bytes`: its main part through the package's relationships; throws when it has none. */
export function openWorkbook(bytes: Uint8Array): WorkbookPackage {
  let spent = 0;
  const read = (names: Iterable<string>): PackageParts => {
    const wanted = new Set([...names].map((n) => n.toLowerCase()));
    let files: Record<string, Uint8Array>;
    try {
      files = unzipParts(bytes, "XLSX", (name) => wanted.has(name.toLowerCase()), MAX_OFFICE_UNZIPPED_BYTES - spent);
    } catch (err) {
      // The limit is the workbook's, whichever round reached it: not what was left of it for that round.
      throw err instanceof DocumentTooLargeError ? new DocumentTooLargeError(MAX_OFFICE_UNZIPPED_BYTES) : err;
    }
    const out = new Map<string, Uint8Array>();
    for (const [name, data] of Object.entries(files)) {
      spent += data.length;
      if (!out.has(name.toLowerCase())) out.set(name.toLowerCase(), data);
    }
    return Object.assign(out, { part: (name: string) => out.get(name.toLowerCase()) });
  };
  const root = packageRelationships(read(["_rels/.rels"]).part("_rels/.rels"));
  const declared = partOfType(root, "officeDocument", CONVENTIONAL_WORKBOOK);
  const corePart = partOfType(root, "core-properties", "docProps/core.xml");
  let files = read([declared, relsPartOf(declared), corePart]);
  let workbookPart = declared;
  // A main part the package names but does not hold: the usual one, if it is there.
  if (!files.part(declared) && declared.toLowerCase() !== CONVENTIONAL_WORKBOOK) {
    workbookPart = CONVENTIONAL_WORKBOOK;
    files = read([workbookPart, relsPartOf(workbookPart), corePart]);
  }
  const workbook = files.part(workbookPart);
  if (!workbook) throw new DocumentCorruptError("XLSX", `${workbookPart} is missing`);
  const rels = relationships(files.part(relsPartOf(workbookPart)), folderOf(workbookPart));
  return { workbookPart, workbook, rels, core: files.part(corePart), read };
}

/** The main part's name when the package does not say (no `_rels/.rels`, or no `officeDocument` in it). */
const CONVENTIONAL_WORKBOOK = "xl/workbook.xml";

/**
 * The package's own relationships (`_rels/.rels`); none when the part is missing or is not XML: the workbook is then
 * looked for under its usual name, as before this reader followed relationships.
 */
function packageRelationships(bytes: Uint8Array | undefined): Map<string, Relationship> {
  try {
    return relationships(bytes, "");
  } catch (err) {
    if (err instanceof DocumentCorruptError) return new Map();
    throw err;
  }
}
