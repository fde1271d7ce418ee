/**
 * @module documents/office/docx
 * DOCX (WordprocessingML) → blocks: the parts read (the document, its styles, numbering, relationships, notes and
 * core properties, found by relationship: docx-package.ts), the footnotes and endnotes, the chunks the body imports
 * (docx-alt-chunk.ts), and the title. The body is read by docx-blocks.ts (headings, lists,
 * quotations, code, tables), its paragraphs by docx-inline.ts (runs, marks, links, fields), with the styles of
 * docx-styles.ts and the list numbering of docx-numbering.ts. Read straight from the XML; no rendering engine.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { type ChunkContext, ChunkWarnings, DocxAltChunks } from "./docx-alt-chunk.ts";
import { DocxBody } from "./docx-blocks.ts";
import { chunkAllowance } from "./docx-chunk-parts.ts";
import { type DocxContext, piecesInline, readParagraph } from "./docx-inline.ts";
import { DocxNumbering } from "./docx-numbering.ts";
import { DocxPackage } from "./docx-package.ts";
import { DocxStyles, isMonospace } from "./docx-styles.ts";
import { NoteLabels } from "./note-labels.ts";
import { TextBudget } from "./text-budget.ts";
import { child, children, descendants, type XmlElement } from "./xml.ts";

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

  constructor(pkg: DocxPackage) {
    const footnotes = pkg.part("footnotes");
    const endnotes = pkg.part("endnotes");
    this.byKind = { footnote: Notes.read(pkg.optionalXml(footnotes), "w:footnote"), endnote: Notes.read(pkg.optionalXml(endnotes), "w:endnote") };
    this.rels = {
      footnote: footnotes ? pkg.targets(footnotes) : new Map(),
      endnote: endnotes ? pkg.targets(endnotes) : new Map(),
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

/** A note's paragraphs as spans; its links resolved in its own part's relationships. */
function noteParagraphs(note: XmlElement, ctx: DocxContext, budget: TextBudget): Inline[][] {
  return descendants(note, "w:p").map((p) => {
    const style = ctx.styles.paragraph(child(child(p, "w:pPr"), "w:pStyle")?.getAttribute("w:val") ?? "");
    return piecesInline(readParagraph(p, ctx, { base: style.props, marks: true, mono: isMonospace(style.props.font) }).pieces, budget);
  });
}

/**
 * Converts DOCX bytes to blocks and the document's title (core properties), if any, within the text `budget`; with a
 * `warning` when the document imports content (`w:altChunk`, docx-alt-chunk.ts) that is not shown.
 */
export function docxToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string; warning?: string } {
  const chunks: ChunkContext = { allowance: chunkAllowance(), warnings: new ChunkWarnings() };
  const { blocks, title } = readDocx(bytes, budget, chunks, 0);
  const warnings = chunks.warnings.lines();
  return warnings.length ? { blocks, title, warning: `The DOCX document imports content that is not shown: ${warnings.join("; ")}.` } : { blocks, title };
}

/**
 * Reads one DOCX: the document (`nesting` 0), or a DOCX chunk imported `nesting` deep into one, whose parts are
 * charged to the chunks' shared allowance as its own chunks are (one that fails is charged by docx-alt-chunk.ts).
 */
function readDocx(bytes: Uint8Array, budget: TextBudget, chunks: ChunkContext, nesting: number): { blocks: Block[]; title?: string } {
  // The parts are found by relationship (docx-package.ts): Word for the web's body is word/document2.xml.
  const { allowance } = chunks;
  const pkg = nesting ? new DocxPackage(bytes, allowance, allowance.bytesLeft) : new DocxPackage(bytes, allowance);
  if (nesting) allowance.bytesLeft -= pkg.spentBytes;
  const document = pkg.xml(pkg.main);
  const body = document?.tagName === "w:document" ? child(document, "w:body") : undefined;
  if (!body) throw new DocumentCorruptError("DOCX", pkg.mainProblem(document));
  const styles = new DocxStyles(pkg.xml(pkg.part("styles")));
  const numbering = new DocxNumbering(pkg.xml(pkg.part("numbering")), styles);
  const rels = pkg.targets(pkg.main);
  const core = pkg.xml(pkg.part("core-properties"));
  const title = core ? descendants(core, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  const notes = new Notes(pkg);
  const imports = new DocxAltChunks(pkg, budget, chunks, nesting, readDocx);

  const reader = new DocxBody({ rels, styles, notes }, numbering, budget, (id) => imports.blocks(id));
  reader.visit(body, 0);
  reader.end();
  const blocks = reader.blocks;
  // A note's links are resolved in its own part's relationships (footnotes.xml.rels), not the body's; a reference
  // inside a note is not one (a note does not refer to notes).
  const noteBlock = notes.labels.block(({ note, rels }) => noteParagraphs(note, { rels, styles }, budget));
  if (noteBlock) blocks.push(noteBlock);
  return { blocks, title };
}
