/**
 * @module documents/office/docx
 * DOCX (WordprocessingML) → blocks: headings from paragraph styles (outline level, or the built-in
 * "heading N"/"Title" styles), bulleted and numbered lists from numbering definitions, tables, and external
 * hyperlinks from the relationships part. Read straight from the XML; no rendering engine.
 */
import { unzipParts } from "./unzip.ts";
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { InlineRuns } from "./inline-runs.ts";
import { NoteLabels } from "./note-labels.ts";
import { TextBudget } from "./text-budget.ts";
import { checkDepth, child, children, descendants, intAttr, MAX_LIST_DEPTH, parseXml, type XmlElement } from "./xml.ts";

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

/** The heading level (1–6) of a `w:outlineLvl` value (0–8; 9 is body text), if it names one. */
function outlineLevel(value: string | null | undefined): number | undefined {
  const n = intAttr(value, -1, 9, -1);
  return n >= 0 && n < 9 ? Math.min(6, n + 1) : undefined;
}

/** Style id → heading level (1–6), from styles.xml. */
function headingStyles(styles: XmlElement | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!styles) return out;
  for (const s of children(styles, "w:style")) {
    const id = s.getAttribute("w:styleId") ?? "";
    const name = (child(s, "w:name")?.getAttribute("w:val") ?? "").toLowerCase();
    const outline = child(child(s, "w:pPr"), "w:outlineLvl")?.getAttribute("w:val");
    let level = outlineLevel(outline);
    const m = /^heading\s*(\d)$/.exec(name);
    if (m) level = Number(m[1]);
    if (name === "title") level = 1;
    if (level) out.set(id, Math.min(6, Math.max(1, level)));
  }
  return out;
}

/** numId → (level → ordered?), from numbering.xml. */
function numberingFormats(numbering: XmlElement | undefined): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  if (!numbering) return out;
  const abstract = new Map<string, Map<string, boolean>>();
  for (const a of children(numbering, "w:abstractNum")) {
    const levels = new Map<string, boolean>();
    for (const lvl of children(a, "w:lvl")) {
      const fmt = child(lvl, "w:numFmt")?.getAttribute("w:val") ?? "bullet";
      levels.set(lvl.getAttribute("w:ilvl") ?? "0", fmt !== "bullet" && fmt !== "none");
    }
    abstract.set(a.getAttribute("w:abstractNumId") ?? "", levels);
  }
  for (const n of children(numbering, "w:num")) {
    const abs = child(n, "w:abstractNumId")?.getAttribute("w:val") ?? "";
    out.set(n.getAttribute("w:numId") ?? "", abstract.get(abs) ?? new Map());
  }
  return out;
}

/** Relationship id → external target, from document.xml.rels. */
function relationships(rels: XmlElement | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!rels) return out;
  for (const r of children(rels, "Relationship")) out.set(r.getAttribute("Id") ?? "", r.getAttribute("Target") ?? "");
  return out;
}

/** The text one child of a run stands for (text, a tab, a break, a non-breaking hyphen); "" for the rest. */
function runPartText(c: XmlElement): string {
  if (c.tagName === "w:t") return c.textContent ?? "";
  if (c.tagName === "w:tab" || c.tagName === "w:br" || c.tagName === "w:cr") return " ";
  if (c.tagName === "w:noBreakHyphen") return "-";
  return "";
}

function runText(run: XmlElement): string {
  let s = "";
  for (const c of children(run)) s += runPartText(c);
  return s;
}

/**
 * One run's text and note references, in their order in the run. A reference with `w:customMarkFollows` is followed
 * by its own mark (a `*`, a dagger) as text: the reference stands for it, so the mark is left out.
 */
function runInline(run: XmlElement, href: string | undefined, runs: InlineRuns, notes?: Notes): void {
  if (!notes || !(child(run, "w:footnoteReference") ?? child(run, "w:endnoteReference"))) return runs.push(runText(run), href);
  let skipMark = false;
  for (const c of children(run)) {
    if (c.tagName === "w:footnoteReference" || c.tagName === "w:endnoteReference") {
      const label = notes.label(c.tagName === "w:footnoteReference" ? "footnote" : "endnote", c.getAttribute("w:id") ?? "");
      if (label) runs.note(label);
      skipMark = label !== undefined && /^(1|true|on)$/.test(c.getAttribute("w:customMarkFollows") ?? "");
    } else if (skipMark && c.tagName === "w:t") skipMark = false;
    else runs.push(runPartText(c), href);
  }
}

/**
 * A paragraph's spans, counted against the document's text `budget`; with `notes`, a footnote or endnote reference
 * becomes a reference to its label.
 */
function paragraphInline(p: XmlElement, rels: Map<string, string>, budget: TextBudget, notes?: Notes): Inline[] {
  const runs = new InlineRuns(budget);
  const walk = (el: XmlElement, href: string | undefined, depth: number) => {
    checkDepth(depth, "DOCX");
    for (const c of children(el)) {
      if (budget.cut) return;
      if (c.tagName === "w:r") runInline(c, href, runs, notes);
      else if (c.tagName === "w:hyperlink") {
        const target = rels.get(c.getAttribute("r:id") ?? "");
        walk(c, target && /^(https?:|mailto:)/i.test(target) ? target : undefined, depth + 1);
      } else if (["w:ins", "w:smartTag", "w:sdt", "w:sdtContent", "w:fldSimple", "w:customXml"].includes(c.tagName)) walk(c, href, depth + 1);
    }
  };
  walk(p, undefined, 0);
  return runs.spans();
}

/** Converts DOCX bytes to blocks and the document's title (core properties), if any, within the text `budget`. */
export function docxToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "DOCX", (name) => DOCX_PARTS.has(name));
  const document = part(files, "word/document.xml");
  const body = document && child(document, "w:body");
  if (!body) throw new DocumentCorruptError("DOCX", "word/document.xml is missing");
  const headings = headingStyles(part(files, "word/styles.xml"));
  const numbering = numberingFormats(part(files, "word/numbering.xml"));
  const rels = relationships(part(files, "word/_rels/document.xml.rels"));
  const core = part(files, "docProps/core.xml");
  const title = core ? descendants(core, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  const notes = new Notes(files);

  const blocks: Block[] = [];
  const visit = (container: XmlElement, nesting: number) => {
    checkDepth(nesting, "DOCX");
    for (const el of children(container)) {
      if (budget.cut) return; // the converter ends the document with a line saying so
      if (el.tagName === "w:sdt") {
        const content = child(el, "w:sdtContent");
        if (content) visit(content, nesting + 1);
      } else if (el.tagName === "w:p") {
        const content = paragraphInline(el, rels, budget, notes);
        if (content.length === 0) continue;
        const pPr = child(el, "w:pPr");
        const style = child(pPr, "w:pStyle")?.getAttribute("w:val") ?? "";
        const outline = child(pPr, "w:outlineLvl")?.getAttribute("w:val");
        const level = headings.get(style) ?? outlineLevel(outline);
        const numPr = child(pPr, "w:numPr");
        if (level) {
          blocks.push({ kind: "heading", level, content });
        } else if (numPr || /^list(bullet|number|paragraph)/i.test(style)) {
          const depth = intAttr(child(numPr, "w:ilvl")?.getAttribute("w:val"), 0, MAX_LIST_DEPTH, 0);
          const numId = child(numPr, "w:numId")?.getAttribute("w:val") ?? "";
          const ordered = numbering.get(numId)?.get(String(depth)) ?? /number/i.test(style);
          const last = blocks[blocks.length - 1];
          if (last?.kind === "list" && (last.ordered === ordered || depth > 0)) last.items.push({ depth, content });
          else blocks.push({ kind: "list", ordered, items: [{ depth, content }] });
        } else {
          blocks.push({ kind: "paragraph", content });
        }
      } else if (el.tagName === "w:tbl") {
        const rows = children(el, "w:tr").map((tr) =>
          children(tr, "w:tc").map((tc) => {
            const cell: Inline[] = [];
            for (const p of descendants(tc, "w:p")) {
              const c = paragraphInline(p, rels, budget, notes);
              if (c.length && cell.length) cell.push({ text: " " });
              for (const span of c) cell.push(span); // not push(...c): a paragraph of a million spans passes the argument limit
            }
            return cell;
          }),
        );
        if (rows.length) blocks.push({ kind: "table", rows });
      }
    }
  };
  visit(body, 0);
  // A note's links are resolved in its own part's relationships (footnotes.xml.rels), not the body's.
  const noteBlock = notes.labels.block(({ note, rels }) => descendants(note, "w:p").map((p) => paragraphInline(p, rels, budget)));
  if (noteBlock) blocks.push(noteBlock);
  return { blocks, title };
}
