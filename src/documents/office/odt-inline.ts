/**
 * @module documents/office/odt-inline
 * The text of an ODT's paragraphs: their runs with the marks their styles give (odt-styles.ts), web links, hard
 * line breaks, spaces and tabs, and references to footnotes and endnotes. A drawing in a paragraph (a text box, a
 * shape with text, a picture) is not its text: it is handed back to the caller, which reads a text box's paragraphs
 * as paragraphs of their own after it; a picture's title and description (its alt text) are not read at all.
 */
import type { Inline, Marks } from "../layout/model.ts";
import { InlineRuns } from "./inline-runs.ts";
import { NoteLabels } from "./note-labels.ts";
import type { OdtStyles, RunStyle } from "./odt-styles.ts";
import type { TextBudget } from "./text-budget.ts";
import { checkDepth, child, children, intAttr, type XmlElement } from "./xml.ts";

/** Most spaces one `text:s` stands for: `text:c="300000000"` made a 443-byte file answer 300 MB. */
export const MAX_SPACE_RUN = 100;

/**
 * Link targets a reader of the markdown can follow: web, mail and FTP addresses, as a DOC's or an RTF's HYPERLINK
 * field (inline-runs.ts `hyperlinkTarget`). A bookmark in the document (`#later`), a relative file and a script
 * (`javascript:`) leave their text unlinked.
 */
const WEB_LINK = /^(?:https?|mailto|ftp):/i;

/**
 * Drawings whose content is never text: a picture (its `svg:title` and `svg:desc` are alt text, which the DOCX reader
 * leaves out too), an embedded object (a formula, a chart), a plug-in. Other drawings (`draw:frame`,
 * `draw:text-box`, shapes, groups, `draw:a`) hold text boxes and shapes' paragraphs.
 */
const NO_TEXT_DRAWINGS = new Set(["draw:image", "draw:object", "draw:object-ole", "draw:plugin", "draw:applet", "draw:floating-frame"]);

/** Whether `el` is a drawing that may hold paragraphs (a text box, a shape with text, a group of them). */
export function holdsParagraphs(el: XmlElement): boolean {
  return el.tagName.startsWith("draw:") && !NO_TEXT_DRAWINGS.has(el.tagName);
}

/** The link target of `href` the markdown keeps: a web, mail or FTP address (see {@link WEB_LINK}). */
export function webLink(href: string | null): string | undefined {
  const target = href?.trim();
  return target && WEB_LINK.test(target) ? target : undefined;
}

/**
 * The document's footnotes and endnotes (ODF 1.2 §6.3). A `text:note` is its reference and its text at once, where
 * the text refers to it: labelled there, as note-labels.ts labels every word-processing format's notes (in the order
 * the text meets them, endnotes in the same sequence as footnotes, whatever `text:note-class` says), its
 * `text:note-body` read at the end. Its `text:note-citation` (the number or custom mark the file shows) is not read:
 * the label stands for it, as a DOCX's custom mark becomes the number.
 */
export class OdtNotes {
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

/** What reading a document's text needs: its budget, its styles, and its notes (none inside a note: ODF allows none there). */
export interface OdtText {
  budget: TextBudget;
  styles: OdtStyles;
  notes?: OdtNotes;
}

/** How one paragraph is read. */
export interface ParagraphOptions {
  /** Where the drawings met in the paragraph go, in order. */
  drawings: XmlElement[];
  /** No marks at all (a heading: its style's bold is its look, not emphasis). */
  plain?: boolean;
  /** Numbered by the reader (a list item, a heading of a numbered outline): a `text:number` in it, the label a writer may cache, is not text. */
  numbered?: boolean;
}

/** `style` over `under`: what `style` says wins. */
function over(under: RunStyle, style: RunStyle): RunStyle {
  return style === under || Object.keys(style).length === 0 ? under : { ...under, ...style };
}

/**
 * A paragraph's (`text:p` or `text:h`) spans, counted against the document's text budget: each run's marks over
 * its paragraph's (a `text:h`'s none), code where a run is set in a monospace font or a code style and its paragraph
 * is not; hidden text left out.
 */
export function paragraphInline(p: XmlElement, text: OdtText, options: ParagraphOptions): Inline[] {
  const { budget, styles, notes } = text;
  const paragraph = styles.paragraph(p.getAttribute("text:style-name"));
  if (paragraph.hidden) return [];
  const runs = new InlineRuns(budget);
  // The marks of the latest style, kept: a paragraph's runs mostly share one.
  let last: [RunStyle, Marks] | undefined;
  const shown = (m: RunStyle): Marks | undefined => {
    if (options.plain) return undefined;
    if (last?.[0] !== m) last = [m, { bold: m.bold, italic: m.italic, strike: m.strike, code: m.code && !paragraph.mono }];
    return last[1];
  };
  const walk = (node: XmlElement, href: string | undefined, marks: RunStyle, depth: number) => {
    checkDepth(depth, "ODT");
    for (const e of node.childNodes) {
      if (budget.cut) return;
      if (typeof e === "string") runs.push(e.replace(/\s+/g, " "), href, shown(marks));
      else if (e.tagName === "text:s") runs.push(" ".repeat(intAttr(e.getAttribute("text:c"), 0, MAX_SPACE_RUN, 1)), href, shown(marks));
      else if (e.tagName === "text:tab") runs.push(" ", href, shown(marks));
      else if (e.tagName === "text:line-break") runs.lineBreak();
      else if (e.tagName === "text:a") walk(e, webLink(e.getAttribute("xlink:href")), over(marks, styles.run(e.getAttribute("text:style-name"))), depth + 1);
      else if (e.tagName === "text:span") {
        const style = over(marks, styles.run(e.getAttribute("text:style-name")));
        if (!style.hidden) walk(e, href, style, depth + 1);
      } else if (e.tagName === "text:note") {
        const label = notes?.label(e);
        if (label) runs.note(label);
      } else if (e.tagName.startsWith("draw:")) options.drawings.push(e);
      else if (e.tagName !== "office:annotation" && !(options.numbered && e.tagName === "text:number")) walk(e, href, marks, depth + 1);
    }
  };
  walk(p, undefined, p.tagName === "text:h" ? {} : paragraph.marks, 0);
  return runs.spans();
}

/**
 * Whether all of paragraph `p`'s text is set in a monospace font or a code style (code typed in Liberation Mono, not
 * in a code paragraph style): a line of a code block then, as a DOCX's. Read without counting: nothing is kept.
 */
export function allMonospace(p: XmlElement, styles: OdtStyles): boolean {
  const paragraph = styles.paragraph(p.getAttribute("text:style-name"));
  let any = false;
  const walk = (node: XmlElement, mono: boolean, depth: number): boolean => {
    checkDepth(depth, "ODT");
    for (const e of node.childNodes) {
      if (typeof e === "string") {
        if (!e.trim()) continue;
        if (!mono) return false;
        any = true;
      } else if (e.tagName === "text:span" || e.tagName === "text:a") {
        const style = styles.run(e.getAttribute("text:style-name"));
        if (!style.hidden && !walk(e, style.code ?? mono, depth + 1)) return false;
      } else if (!e.tagName.startsWith("draw:") && e.tagName !== "text:note" && e.tagName !== "office:annotation" && !walk(e, mono, depth + 1)) return false;
    }
    return true;
  };
  return walk(p, paragraph.mono, 0) && any;
}

/**
 * A code paragraph's text as its lines show it: `text:s` spaces kept (the indentation), a `text:tab` a tab, a
 * `text:line-break` a new line, a note's reference its label in brackets; the white space of the XML collapses as
 * ODF says, and is trimmed at a line's start. Hidden text and comments leave nothing; drawings go to `drawings`.
 */
export function codeLine(p: XmlElement, text: OdtText, drawings: XmlElement[]): string {
  const { budget, styles, notes } = text;
  let out = "";
  const add = (s: string) => (out += budget.take(s));
  const walk = (node: XmlElement, depth: number) => {
    checkDepth(depth, "ODT");
    for (const e of node.childNodes) {
      if (budget.cut) return;
      if (typeof e === "string") add(/(^|\n)$/.test(out) ? e.replace(/\s+/g, " ").trimStart() : e.replace(/\s+/g, " "));
      else if (e.tagName === "text:s") add(" ".repeat(intAttr(e.getAttribute("text:c"), 0, MAX_SPACE_RUN, 1)));
      else if (e.tagName === "text:tab") add("\t");
      else if (e.tagName === "text:line-break") add("\n");
      else if (e.tagName === "text:span") {
        if (!styles.run(e.getAttribute("text:style-name")).hidden) walk(e, depth + 1);
      } else if (e.tagName === "text:note") {
        const label = notes?.label(e);
        if (label) add(`[${label}]`);
      } else if (e.tagName.startsWith("draw:")) drawings.push(e);
      else if (e.tagName !== "office:annotation") walk(e, depth + 1);
    }
  };
  if (!styles.paragraph(p.getAttribute("text:style-name")).hidden) walk(p, 0);
  return out.replace(/[ \t]+$/gm, "");
}

/** Elements whose paragraphs are not the text around them: notes and comments, hidden or generated content. */
const NOT_TEXT = new Set(["text:note", "office:annotation", "table:covered-table-cell", "text:tracked-changes", ...NO_TEXT_DRAWINGS]);

/**
 * The paragraphs inside `el` (a table cell, a note's body), in order, through the lists, tables, sections and text
 * boxes that may hold them, each as its spans. Iterative, its depth counted from
 * `nesting`. A cell's list items, its nested table's cells, a text box in it: each one more paragraph.
 */
export function* paragraphsIn(el: XmlElement, text: OdtText, nesting: number): Generator<Inline[]> {
  const stack: [XmlElement, number][] = [[el, nesting]];
  while (stack.length > 0 && !text.budget.cut) {
    const [node, depth] = stack.pop()!;
    checkDepth(depth, "ODT");
    if (node.tagName === "text:p" || node.tagName === "text:h") {
      const drawings: XmlElement[] = [];
      yield paragraphInline(node, text, { drawings, plain: node.tagName === "text:h" });
      for (let i = drawings.length - 1; i >= 0; i--) stack.push([drawings[i]!, depth + 1]);
    } else if (!NOT_TEXT.has(node.tagName)) {
      const inner = children(node);
      for (let i = inner.length - 1; i >= 0; i--) stack.push([inner[i]!, depth + 1]);
    }
  }
}
