/**
 * @module documents/office/xlsx-package
 * Finds a workbook's parts as the package names them (ECMA-376 Part 2, Open Packaging Conventions: opc-package.ts),
 * not by their usual names: the package's relationships (`_rels/.rels`) name the main part (`officeDocument`), and
 * that part's own relationships name its sheets, shared strings and styles. Excel writes `xl/workbook.xml`, but other
 * exporters write `xl/workbook2.xml` and the like, and such a workbook was refused as damaged ("xl/workbook.xml is
 * missing"). A package without the relationship falls back to the usual name (`xl/workbook.xml`, `xl/styles.xml`):
 * some writers leave the relationships of the styles or shared strings out, and Excel reads such files. So does a
 * package whose `officeDocument` names a part that is missing or is no workbook (a sheet, a binary part): the
 * workbook was otherwise read as one without sheets, and the document came out empty without a word.
 *
 * Parts are inflated in rounds, each round only the parts the previous one named, within one allowance of
 * decompressed bytes for the whole workbook (opc-package.ts {@link PackageReader}).
 */
import { DocumentCorruptError } from "../errors.ts";
import { PACKAGE_RELS, PackageReader, partOfType, readRelationships, relsPartOf, type PackageParts, type Relationship } from "./opc-package.ts";
import { localName } from "./xlsx-scan.ts";
import { parseXml, type XmlElement } from "./xml.ts";

export type { PackageParts, Relationship } from "./opc-package.ts";

/** Relationship id → relationship, from relationships part `relsPart` (none when `bytes` is missing). */
export function relationships(bytes: Uint8Array | undefined, relsPart: string): Map<string, Relationship> {
  const out = new Map<string, Relationship>();
  if (!bytes) return out;
  for (const r of readRelationships(bytes, relsPart, "XLSX")) out.set(r.id, r);
  return out;
}

/** A workbook package opened: its main part, that part's relationships, and the parts read so far. */
export interface WorkbookPackage {
  /** The main part's name (`xl/workbook.xml`). */
  workbookPart: string;
  /** The main part, parsed: its root is a `workbook` element. */
  workbook: XmlElement;
  /** The main part's relationships, targets resolved to part names. */
  rels: Map<string, Relationship>;
  /** The core properties part (`docProps/core.xml`), when there is one. */
  core?: Uint8Array;
  /** Reads the parts `names` names, within what is left of the workbook's allowance of decompressed bytes. */
  read(names: Iterable<string>): PackageParts;
}

/** The main part's name when the package does not say (no `_rels/.rels`, or no `officeDocument` in it). */
const CONVENTIONAL_WORKBOOK = "xl/workbook.xml";

const decoder = new TextDecoder();

/**
 * Opens the workbook in `bytes`: its main part through the package's relationships, else under its usual name.
 * Throws SCRAPE_DOCUMENT_CORRUPT when neither is a workbook.
 */
export function openWorkbook(bytes: Uint8Array): WorkbookPackage {
  const reader = new PackageReader(bytes, "XLSX");
  const root = packageRelationships(reader.read([PACKAGE_RELS]).part(PACKAGE_RELS));
  const declared = partOfType(root.values(), "officeDocument", CONVENTIONAL_WORKBOOK);
  const corePart = partOfType(root.values(), "core-properties", "docProps/core.xml");
  reader.read([declared, relsPartOf(declared), corePart]);
  let main = mainPart(reader, declared);
  // A main part the package names but does not hold, or one that is no workbook: the usual one, if it is there.
  if ("reason" in main && declared.toLowerCase() !== CONVENTIONAL_WORKBOOK) {
    reader.read([CONVENTIONAL_WORKBOOK, relsPartOf(CONVENTIONAL_WORKBOOK)]);
    const conventional = mainPart(reader, CONVENTIONAL_WORKBOOK);
    if ("workbook" in conventional) main = conventional;
  }
  if ("reason" in main) throw new DocumentCorruptError("XLSX", main.reason);
  const rels = relationships(reader.part(relsPartOf(main.name)), relsPartOf(main.name));
  return { workbookPart: main.name, workbook: main.workbook, rels, core: reader.part(corePart), read: (names) => reader.read(names) };
}

/** Part `name` parsed when it is a workbook (its root a `workbook` element), else why it is not one. */
function mainPart(reader: PackageReader, name: string): { name: string; workbook: XmlElement } | { reason: string } {
  const bytes = reader.part(name);
  if (!bytes) return { reason: `${name} is missing` };
  let root: XmlElement;
  try {
    root = parseXml(decoder.decode(bytes), "XLSX", name);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return { reason: (err.details as { reason: string }).reason };
    throw err;
  }
  return localName(root.tagName) === "workbook" ? { name, workbook: root } : { reason: `${name} is not a workbook (its root element is <${root.tagName}>)` };
}

/**
 * The package's own relationships (`_rels/.rels`); none when the part is missing or is not XML: the workbook is then
 * looked for under its usual name, as before this reader followed relationships.
 */
function packageRelationships(bytes: Uint8Array | undefined): Map<string, Relationship> {
  try {
    return relationships(bytes, PACKAGE_RELS);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return new Map();
    throw err;
  }
}
