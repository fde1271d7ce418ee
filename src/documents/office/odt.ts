/**
 * @module documents/office/odt
 * ODT (OpenDocument text) → blocks: `text:h` headings with their outline level, paragraphs, lists (nesting
 * from list depth), tables and `text:a` links, and footnotes and endnotes as a DOCX's are (note-labels.ts).
 */
import { unzipParts } from "./unzip.ts";
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { InlineRuns } from "./inline-runs.ts";
import { NoteLabels } from "./note-labels.ts";
import { TextBudget } from "./text-budget.ts";
import { checkDepth, child, children, descendants, intAttr, MAX_LIST_DEPTH, parseXml, type XmlElement } from "./xml.ts";

/** Most spaces one `text:s` stands for: `text:c="300000000"` made a 443-byte file answer 300 MB. */
const MAX_SPACE_RUN = 100;

/** Row groups a table's rows may sit in (ODF 1.2 §9.1). */
const ROW_GROUPS = new Set(["table:table-header-rows", "table:table-rows", "table:table-row-group"]);

/**
 * A table's own rows, in order, through its row groups: not a nested table's, whose text is already in the cell
 * holding it (all descendant rows printed it twice). Row groups nest (a group of groups), so the walk counts its
 * depth from the table's `nesting`: 200,000 nested `table:table-row-group`s in a 23 KB file overflowed the stack.
 */
function ownRows(table: XmlElement, nesting: number): XmlElement[] {
  const rows: XmlElement[] = [];
  const walk = (el: XmlElement, depth: number) => {
    checkDepth(depth, "ODT");
    for (const c of children(el)) {
      if (c.tagName === "table:table-row") rows.push(c);
      else if (ROW_GROUPS.has(c.tagName)) walk(c, depth + 1);
    }
  };
  walk(table, nesting);
  return rows;
}

/**
 * The document's footnotes and endnotes (ODF 1.2 §6.3). A `text:note` is its reference and its text at once, where
 * the text refers to it: labelled there, as note-labels.ts labels every word-processing format's notes (in the order
 * the text meets them, endnotes in the same sequence as footnotes, whatever `text:note-class` says), its
 * `text:note-body` read at the end. Its `text:note-citation` (the number or custom mark the file shows) is not read:
 * the label stands for it, as a DOCX's custom mark becomes the number.
 */
class OdtNotes {
  readonly labels = new NoteLabels<XmlElement>();
  /** Each note element's key: an element walked twice is one note (a `text:id` may be missing or repeated). */
  private readonly keys = new Map<XmlElement, string>();

  /** The label of `note`; undefined for a note without a body (its reference leaves nothing). */
  label(note: XmlElement): string | undefined {
    const body = child(note, "text:note-body");
    if (body === undefined) return undefined;
    let key = this.keys.get(note);
    if (key === undefined) this.keys.set(note, (key = `note:${this.keys.size}`));
    return this.labels.label(key, body);
  }
}

/**
 * An element's spans, counted against the document's text `budget`; with `notes`, a `text:note` becomes a reference
 * to its label. Without (a note's own text), a note inside is left out: ODF allows none there.
 */
function inlineOf(el: XmlElement, budget: TextBudget, notes?: OdtNotes): Inline[] {
  const runs = new InlineRuns(budget);
  const push = (text: string, href?: string) => runs.push(text, href);
  const walk = (node: XmlElement, href: string | undefined, depth: number) => {
    checkDepth(depth, "ODT");
    for (const e of node.childNodes) {
      if (budget.cut) return;
      if (typeof e === "string") push(e.replace(/\s+/g, " "), href);
      else {
        if (e.tagName === "text:s") push(" ".repeat(intAttr(e.getAttribute("text:c"), 0, MAX_SPACE_RUN, 1)), href);
        else if (e.tagName === "text:tab" || e.tagName === "text:line-break") push(" ", href);
        else if (e.tagName === "text:a") walk(e, e.getAttribute("xlink:href") ?? undefined, depth + 1);
        else if (e.tagName === "text:note") {
          const label = notes?.label(e);
          if (label) runs.note(label);
        } else if (e.tagName !== "office:annotation") walk(e, href, depth + 1);
      }
    }
  };
  walk(el, undefined, 0);
  return runs.spans();
}

/**
 * The paragraphs (and headings) of a note's body, in order, through the lists, tables and sections that may hold
 * them, each as its spans; counted against `budget` as they are read. Another note or a comment there is not this
 * note's text.
 */
function* noteParagraphs(body: XmlElement, budget: TextBudget): Generator<Inline[]> {
  const stack: [XmlElement, number][] = [[body, 0]];
  while (stack.length > 0 && !budget.cut) {
    const [el, depth] = stack.pop()!;
    checkDepth(depth, "ODT");
    if (el.tagName === "text:p" || el.tagName === "text:h") yield inlineOf(el, budget);
    else if (el.tagName !== "text:note" && el.tagName !== "office:annotation") {
      const inner = children(el);
      for (let i = inner.length - 1; i >= 0; i--) stack.push([inner[i]!, depth + 1]);
    }
  }
}

/** Converts ODT bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function odtToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "ODT", (name) => name === "content.xml" || name === "meta.xml");
  if (!files["content.xml"]) throw new DocumentCorruptError("ODT", "content.xml is missing");
  const root = parseXml(new TextDecoder().decode(files["content.xml"]), "ODT", "content.xml");
  const text = descendants(root, "office:text")[0];
  const meta = files["meta.xml"] ? parseXml(new TextDecoder().decode(files["meta.xml"]), "ODT", "meta.xml") : undefined;
  const title = meta ? descendants(meta, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  const notes = new OdtNotes();
  const blocks: Block[] = [];
  const visit = (container: XmlElement, nesting: number) => {
    checkDepth(nesting, "ODT");
    for (const el of children(container)) {
      if (budget.cut) return; // the converter ends the document with a line saying so
      if (el.tagName === "text:h") {
        const content = inlineOf(el, budget, notes);
        if (content.length) blocks.push({ kind: "heading", level: intAttr(el.getAttribute("text:outline-level"), 1, 6, 1), content });
      } else if (el.tagName === "text:p") {
        const content = inlineOf(el, budget, notes);
        if (content.length) blocks.push({ kind: "paragraph", content });
      } else if (el.tagName === "text:list") {
        visitList(el, 0, nesting + 1);
      } else if (el.tagName === "table:table") {
        // A cell's paragraphs are joined with a space, as a DOCX cell's are (they ran together: "First lineSecond").
        const rows = ownRows(el, nesting + 1).map((r) => children(r, "table:table-cell").map((c) => cellInline(c)));
        if (rows.length) blocks.push({ kind: "table", rows });
      } else if (el.tagName === "text:section") visit(el, nesting + 1);
    }
  };
  const cellInline = (cell: XmlElement): Inline[] => {
    const paragraphs = children(cell).filter((c) => c.tagName === "text:p" || c.tagName === "text:h");
    if (paragraphs.length === 0) return inlineOf(cell, budget, notes);
    const out: Inline[] = [];
    for (const p of paragraphs) {
      const c = inlineOf(p, budget, notes);
      if (c.length && out.length) out.push({ text: " " });
      for (const span of c) out.push(span);
    }
    return out;
  };
  const visitList = (list: XmlElement, listDepth: number, nesting: number) => {
    checkDepth(nesting, "ODT");
    const depth = Math.min(listDepth, MAX_LIST_DEPTH);
    for (const item of children(list, "text:list-item")) {
      for (const c of children(item)) {
        if (budget.cut) return;
        if (c.tagName === "text:list") {
          visitList(c, listDepth + 1, nesting + 1);
          continue;
        }
        const content = inlineOf(c, budget, notes);
        if (!content.length) continue;
        const last = blocks[blocks.length - 1];
        if (last?.kind === "list") last.items.push({ depth, content });
        else blocks.push({ kind: "list", ordered: false, items: [{ depth, content }] });
      }
    }
  };
  if (text) visit(text, 0);
  const noteBlock = notes.labels.block((body) => noteParagraphs(body, budget));
  if (noteBlock) blocks.push(noteBlock);
  return { blocks, title };
}
