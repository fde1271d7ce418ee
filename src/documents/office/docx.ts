/**
 * @module documents/office/docx
 * DOCX (WordprocessingML) → blocks: the parts read (the document, its styles, numbering, relationships, notes and
 * core properties), the footnotes and endnotes, and the title. The body is read by docx-blocks.ts (headings, lists,
 * quotations, code, tables), its paragraphs by docx-inline.ts (runs, marks, links, fields), with the styles of
 * docx-styles.ts and the list numbering of docx-numbering.ts. Read straight from the XML; no rendering engine.
 */
import { unzipParts } from "./unzip.ts";
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { DocxBody } from "./docx-blocks.ts";
import { type DocxContext, piecesInline, readParagraph } from "./docx-inline.ts";
import { DocxNumbering } from "./docx-numbering.ts";
import { DocxStyles, isMonospace } from "./docx-styles.ts";
import { NoteLabels } from "./note-labels.ts";
import { TextBudget } from "./text-budget.ts";
import { child, children, descendants, parseXml, type XmlElement } from "./xml.ts";

/**
 * The parts the converter reads. Only these are inflated: media and embedded files (`word/media/*`,
 * `word/embeddings/*`) were inflated into memory, against the size limit, and never looked at.
 */
const DOCX_PARTS = new Set([
  "word/document.xml",
  "word/styles.xml",
  "word/numbering.xml",
  "word/_rels/document.xml.rels",
  "docProps/core.xml",
  "word/footnotes.xml",
  "word/endnotes.xml",
  "word/_rels/footnotes.xml.rels",
  "word/_rels/endnotes.xml.rels",
]);

/** A note, with the relationships of the part it is in (its links' targets). */
interface DocxNote {
  note: XmlElement;
  rels: Map<string, string>;
}

/**
 * The document's footnotes and endnotes by kind and id, labelled and listed as note-labels.ts does for every
 * word-processing format (in the order the text first refers to them, endnotes numbered on from the footnotes).
 */
class Notes {
  readonly labels = new NoteLabels<DocxNote>();
  private readonly byKind: Record<"footnote" | "endnote", Map<string, XmlElement>>;
  private readonly rels: Record<"footnote" | "endnote", Map<string, string>>;

  constructor(files: Record<string, Uint8Array>) {
    this.byKind = { footnote: Notes.read(optionalPart(files, "word/footnotes.xml"), "w:footnote"), endnote: Notes.read(optionalPart(files, "word/endnotes.xml"), "w:endnote") };
    this.rels = {
      footnote: relationships(optionalPart(files, "word/_rels/footnotes.xml.rels")),
      endnote: relationships(optionalPart(files, "word/_rels/endnotes.xml.rels")),
    };
  }

  /** The notes of a part by id; the separators Word keeps there (`w:type` other than normal) are not notes. */
  private static read(root: XmlElement | undefined, tag: string): Map<string, XmlElement> {
    const out = new Map<string, XmlElement>();
    if (!root) return out;
    for (const n of children(root, tag)) {
      const type = n.getAttribute("w:type");
      if (!type || type === "normal") out.set(n.getAttribute("w:id") ?? "", n);
    }
    return out;
  }

  /** The label of the note a reference points to; undefined when the document has no such note. */
  label(kind: "footnote" | "endnote", id: string): string | undefined {
    const note = this.byKind[kind].get(id);
    return this.labels.label(`${kind}:${id}`, note && { note, rels: this.rels[kind] });
  }
}

const decoder = new TextDecoder();

function part(files: Record<string, Uint8Array>, name: string): XmlElement | undefined {
  const bytes = files[name];
  return bytes ? parseXml(decoder.decode(bytes), "DOCX", name) : undefined;
}

/** A part the document reads without: one that is not XML leaves it out (the body still converts). */
function optionalPart(files: Record<string, Uint8Array>, name: string): XmlElement | undefined {
  try {
    return part(files, name);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return undefined;
    throw err;
  }
}

/** Relationship id → external target, from document.xml.rels. */
function relationships(rels: XmlElement | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!rels) return out;
  for (const r of children(rels, "Relationship")) out.set(r.getAttribute("Id") ?? "", r.getAttribute("Target") ?? "");
  return out;
}

/** A note's paragraphs as spans; its links resolved in its own part's relationships. */
function noteParagraphs(note: XmlElement, ctx: DocxContext, budget: TextBudget): Inline[][] {
  return descendants(note, "w:p").map((p) => {
    const style = ctx.styles.paragraph(child(child(p, "w:pPr"), "w:pStyle")?.getAttribute("w:val") ?? "");
    return piecesInline(readParagraph(p, ctx, { base: style.props, marks: true, mono: isMonospace(style.props.font) }).pieces, budget);
  });
}

/** Converts DOCX bytes to blocks and the document's title (core properties), if any, within the text `budget`. */
export function docxToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "DOCX", (name) => DOCX_PARTS.has(name));
  const document = part(files, "word/document.xml");
  const body = document && child(document, "w:body");
  if (!body) throw new DocumentCorruptError("DOCX", "word/document.xml is missing");
  const styles = new DocxStyles(part(files, "word/styles.xml"));
  const numbering = new DocxNumbering(part(files, "word/numbering.xml"), styles);
  const rels = relationships(part(files, "word/_rels/document.xml.rels"));
  const core = part(files, "docProps/core.xml");
  const title = core ? descendants(core, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  const notes = new Notes(files);

  const reader = new DocxBody({ rels, styles, notes }, numbering, budget);
  reader.visit(body, 0);
  const blocks = reader.blocks;
  // A note's links are resolved in its own part's relationships (footnotes.xml.rels), not the body's; a reference
  // inside a note is not one (a note does not refer to notes).
  const noteBlock = notes.labels.block(({ note, rels }) => noteParagraphs(note, { rels, styles }, budget));
  if (noteBlock) blocks.push(noteBlock);
  return { blocks, title };
}
