/**
 * @module documents/office/docx-inline
 * One DOCX paragraph's content, read as Word shows it: its runs with their marks (bold, italic, struck, code),
 * links (`w:hyperlink` with its `w:anchor` fragment, and HYPERLINK fields, complex or simple), hard line breaks, note
 * references, symbols (and text in symbol fonts), emoji (the fallback of Word 2016's `mc:AlternateContent`) and
 * equations, through the wrappers text sits in (insertions, moves, content controls, custom XML, smart tags,
 * bidirectional embeddings, ruby). What Word does not show is not read: deleted and moved-away text, hidden text
 * (`w:vanish`), field codes, an image's description. The text boxes anchored in the paragraph are handed back to be
 * read after it, as paragraphs of their own.
 */
import type { Inline, Marks } from "../layout/model.ts";
import { hyperlinkTarget, InlineRuns, MAX_FIELD_CODE_CHARS } from "./inline-runs.ts";
import { mathText } from "./docx-math.ts";
import { type DocxStyles, isMonospace, layer, readRunProps, type RunProps } from "./docx-styles.ts";
import { symbolFontText, symbolText } from "./docx-symbols.ts";
import type { TextBudget } from "./text-budget.ts";
import { checkDepth, child, children, MAX_XML_DEPTH, type XmlElement } from "./xml.ts";

/** Labels a footnote or endnote reference (docx.ts's notes); undefined when the document has no such note. */
export interface NoteLabeller {
  label(kind: "footnote" | "endnote", id: string): string | undefined;
}

/** What a paragraph's runs are read against. */
export interface DocxContext {
  /** The part's relationships: a `w:hyperlink`'s target by id. */
  rels: Map<string, string>;
  styles: DocxStyles;
  /** Where note references are labelled; without it (inside a note) they are left out. */
  notes?: NoteLabeller;
}

/** How a paragraph's runs are marked. */
export interface ParagraphFormat {
  /** What every run inherits from the defaults and the paragraph style: its font, whether it is hidden. */
  base: RunProps;
  /** Whether marks are kept: not in a heading, whose style makes it bold anyway (marks there are noise). */
  marks: boolean;
  /** Whether the paragraph is set in a monospace font itself: then a run in one is not code. */
  mono: boolean;
}

/** A piece of a paragraph: text (with its link and marks), a hard line break, or a note reference. */
export interface Piece {
  text: string;
  href?: string;
  marks?: Marks;
  /** Set in a monospace font or a code character style, whatever the paragraph's own font. */
  mono?: boolean;
  lineBreak?: boolean;
  /** A page or column break (its text a space): where LibreOffice and the other formats end the paragraph. */
  pageBreak?: boolean;
  note?: string;
}

/** A paragraph as read: its pieces, and the text boxes anchored in it (`w:txbxContent`). */
export interface ParagraphRead {
  pieces: Piece[];
  boxes: XmlElement[];
}

/** Elements whose content is the paragraph's own text (a `w:del` or `w:moveFrom` holds text no longer there). */
const TRANSPARENT = new Set(["w:ins", "w:moveTo", "w:smartTag", "w:sdt", "w:sdtContent", "w:customXml", "w:dir", "w:bdo"]);
/** Children of a run that may anchor a text box. */
const DRAWINGS = new Set(["w:drawing", "w:pict", "w:object"]);
/**
 * The namespaces (by their conventional prefixes) an `mc:Choice` may require for this reader to take it: what Word
 * writes around its drawings, shapes, groups, canvases and ink (whose text boxes are read, whichever branch), and
 * Word 2010's and 2013's run content. Others, such as Word 2016's `w16se` (an emoji as a symbol), are not read: the
 * fallback holds what an older reader shows (the emoji as text).
 */
const UNDERSTOOD = new Set(["w", "r", "m", "v", "o", "w10", "wp", "wp14", "wps", "wpg", "wpc", "wpi", "a", "a14", "pic", "w14", "w15"]);
/** The link schemes a reader of the markdown can follow. */
const LINKABLE = /^(https?|mailto|ftp):/i;

/** An open field (`w:fldChar` begin … separate … end): its code, whether its result is being read, its link. */
interface Field {
  code: string;
  result: boolean;
  href?: string;
}

/**
 * The text boxes under `el` (a drawing or a VML picture), one branch of each `mc:AlternateContent` only. A drawing
 * nested past {@link MAX_XML_DEPTH} is searched no deeper: its shapes are not text, and the document still converts.
 */
function textBoxes(el: XmlElement, out: XmlElement[], depth: number): void {
  if (depth > MAX_XML_DEPTH) return;
  if (el.tagName === "w:txbxContent") return void out.push(el);
  if (el.tagName === "mc:AlternateContent") {
    // Word writes each text box twice: as DrawingML (the choice) and as VML (the fallback).
    const branch = alternative(el);
    if (branch) textBoxes(branch, out, depth + 1);
    return;
  }
  for (const c of children(el)) textBoxes(c, out, depth + 1);
}

/**
 * The branch of `mc:AlternateContent` `el` to read (ECMA-376 Part 3 §10.2): the first `mc:Choice` whose `Requires`
 * names only namespaces this reader understands, else the `mc:Fallback`.
 */
function alternative(el: XmlElement): XmlElement | undefined {
  for (const c of children(el, "mc:Choice")) {
    const requires = (c.getAttribute("Requires") ?? "").trim();
    if (requires && requires.split(/\s+/).every((prefix) => UNDERSTOOD.has(prefix))) return c;
  }
  return child(el, "mc:Fallback");
}

/**
 * Where a `w:hyperlink` leads: its relationship's target, with the `w:anchor` Word keeps apart from it (a link to
 * `guide#installation` is `r:id` → `guide` and `w:anchor="installation"`). A web, mail or FTP address only; a link to
 * a bookmark of the document itself (an anchor and no `r:id`) is not one a reader of the markdown can follow.
 */
function hyperlinkHref(el: XmlElement, rels: Map<string, string>): string | undefined {
  const target = rels.get(el.getAttribute("r:id") ?? "");
  if (!target || !LINKABLE.test(target)) return undefined;
  const anchor = el.getAttribute("w:anchor");
  return anchor && !target.includes("#") ? `${target}#${anchor}` : target;
}

/** Reads paragraph `p` (its runs, in order). */
export function readParagraph(p: XmlElement, ctx: DocxContext, format: ParagraphFormat): ParagraphRead {
  const pieces: Piece[] = [];
  const boxes: XmlElement[] = [];
  // Counted as they open and close, not searched: a crafted paragraph of a million unclosed fields stays linear.
  const fields: Field[] = [];
  /** Open fields still in their code: while any is, text is a field's code (not shown), not a result. */
  let inCodeCount = 0;
  /** The links of the open fields whose result is being read, innermost last. */
  const links: string[] = [];
  const inCode = () => inCodeCount > 0;
  const linkOf = (href: string | undefined) => links[links.length - 1] ?? href;

  const text = (t: string, href: string | undefined, props: RunProps) => {
    if (!t || inCode()) return;
    const mono = isMonospace(props.font) || !!props.codeStyle;
    const marks: Marks | undefined = format.marks ? { bold: props.bold, italic: props.italic, strike: props.strike, code: mono && !format.mono } : undefined;
    pieces.push({ text: t, href: linkOf(href), marks, mono });
  };

  const run = (r: XmlElement, href: string | undefined, depth: number) => {
    let props = format.base;
    const rPr = child(r, "w:rPr");
    const rStyle = child(rPr, "w:rStyle")?.getAttribute("w:val");
    if (rStyle) props = layer(props, ctx.styles.character(rStyle));
    if (rPr) props = layer(props, readRunProps(rPr));
    runContent(r, props, href, depth, { skipMark: false });
  };

  /** The content of run (or of the branch of an `mc:AlternateContent` in it) `r`. */
  const runContent = (r: XmlElement, props: RunProps, href: string | undefined, depth: number, state: { skipMark: boolean }) => {
    for (const c of children(r)) {
      const tag = c.tagName;
      // Field characters count even in hidden runs: they open and close the field around visible text.
      if (tag === "w:fldChar") {
        const type = c.getAttribute("w:fldCharType");
        const f = fields[fields.length - 1];
        if (type === "begin") {
          fields.push({ code: "", result: false });
          inCodeCount++;
        } else if (type === "separate" && f && !f.result) {
          f.result = true;
          inCodeCount--;
          f.href = hyperlinkTarget(f.code);
          if (f.href) links.push(f.href);
        } else if (type === "end" && f) {
          fields.pop();
          if (!f.result) inCodeCount--;
          else if (f.href) links.pop();
        }
        continue;
      }
      if (tag === "w:instrText") {
        const f = fields[fields.length - 1];
        // Capped as every format's are (inline-runs.ts): a 28 MB code cost 310 MB.
        if (f && !f.result && f.code.length < MAX_FIELD_CODE_CHARS) f.code += c.textContent.slice(0, MAX_FIELD_CODE_CHARS - f.code.length);
        continue;
      }
      if (props.hidden) continue;
      if (tag === "w:t") {
        if (state.skipMark) state.skipMark = false;
        else text(symbolFontText(c.textContent, props.font), href, props);
      } else if (tag === "w:tab" || tag === "w:ptab") text("\t", href, props); // a positional tab is a tab too
      else if (tag === "w:noBreakHyphen") text("-", href, props);
      else if (tag === "w:sym") text(symbolText(c.getAttribute("w:font"), c.getAttribute("w:char")), href, props);
      else if (tag === "w:cr" || tag === "w:br") {
        const type = c.getAttribute("w:type");
        // A page or column break ends a page, not a line: the paragraph goes on after it (docx-blocks.ts splits
        // a plain one there, as the other formats have it).
        const page = tag === "w:br" && (type === "page" || type === "column");
        if (!inCode()) pieces.push(page ? { text: " ", pageBreak: true } : { text: "", lineBreak: true });
      } else if ((tag === "w:footnoteReference" || tag === "w:endnoteReference") && ctx.notes && !inCode()) {
        const label = ctx.notes.label(tag === "w:footnoteReference" ? "footnote" : "endnote", c.getAttribute("w:id") ?? "");
        if (label) pieces.push({ text: label, note: label });
        // A reference with w:customMarkFollows is followed by its own mark (a `*`, a dagger): the label stands for it.
        state.skipMark = label !== undefined && /^(1|true|on)$/.test(c.getAttribute("w:customMarkFollows") ?? "");
      } else if (tag === "mc:AlternateContent") {
        // Word 2016's emoji are a `w16se:symEx` choice with the character in the fallback's `w:t`; a text box, a
        // DrawingML choice with a VML fallback. One branch is read, as Word shows one.
        const branch = alternative(c);
        if (branch && depth < MAX_XML_DEPTH) runContent(branch, props, href, depth + 1, state);
      } else if (DRAWINGS.has(tag)) textBoxes(c, boxes, depth + 1);
    }
  };

  const walk = (el: XmlElement, href: string | undefined, depth: number) => {
    checkDepth(depth, "DOCX");
    for (const c of children(el)) {
      const tag = c.tagName;
      if (tag === "w:r") run(c, href, depth + 1);
      else if (tag === "w:hyperlink") walk(c, hyperlinkHref(c, ctx.rels), depth + 1);
      else if (tag === "w:fldSimple") walk(c, hyperlinkTarget(c.getAttribute("w:instr") ?? "") ?? href, depth + 1);
      else if (TRANSPARENT.has(tag)) walk(c, href, depth + 1);
      else if (tag === "w:ruby") {
        // The base text is the text; the ruby above it (w:rt) is a reading aid.
        const base = child(c, "w:rubyBase");
        if (base) walk(base, href, depth + 1);
      } else if (tag === "m:oMath" || tag === "m:oMathPara") text(mathText(c, depth + 1), href, format.base);
      else if (tag === "mc:AlternateContent") {
        const branch = alternative(c);
        if (branch) walk(branch, href, depth + 1);
      }
    }
  };
  walk(p, undefined, 0);
  return { pieces, boxes };
}

/**
 * The paragraph's pieces as inline spans, counted against the document's text `budget` (tabs as spaces). A code
 * run's outer blanks are left outside its code span (`` `x` `` then a space, not `` `x ` ``).
 */
export function piecesInline(pieces: Piece[], budget: TextBudget): Inline[] {
  const runs = new InlineRuns(budget);
  for (const p of pieces) {
    if (budget.cut) break;
    if (p.lineBreak) runs.lineBreak();
    else if (p.note !== undefined) runs.note(p.note);
    else {
      const text = p.text.includes("\t") ? p.text.replace(/\t/g, " ") : p.text;
      if (!p.marks?.code) runs.push(text, p.href, p.marks);
      else {
        const start = text.length - text.trimStart().length;
        const end = Math.max(start, text.trimEnd().length);
        const plain = { ...p.marks, code: false };
        runs.push(text.slice(0, start), p.href, plain);
        runs.push(text.slice(start, end), p.href, p.marks);
        runs.push(text.slice(end), p.href, plain);
      }
    }
  }
  return runs.spans();
}

/** The paragraph's text as a line (or lines) of code: spaces and tabs kept, a line break a new line. */
export function piecesCode(pieces: Piece[], budget: TextBudget): string {
  let out = "";
  for (const p of pieces) out += p.lineBreak ? "\n" : p.note !== undefined ? `[${p.note}]` : p.text;
  return budget.take(out.replace(/[ \t]+$/gm, ""));
}

/** Whether the paragraph's text is all set in a monospace font (code typed in Consolas, not in a code style). */
export function allMonospace(pieces: Piece[]): boolean {
  let any = false;
  for (const p of pieces) {
    if (p.lineBreak || p.note !== undefined || !p.text.trim()) continue;
    if (!p.mono) return false;
    any = true;
  }
  return any;
}
