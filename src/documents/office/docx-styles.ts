/**
 * @module documents/office/docx-styles
 * What a DOCX's styles (word/styles.xml) say about a paragraph and its runs: the heading level, whether it is a
 * quotation or code, the list it is numbered in, and the character formatting its runs inherit (bold, italic,
 * struck, hidden, monospace). Word's cascade is kept: the document defaults, then the paragraph style (and the
 * styles it is based on), then the run's character style, then the run's own properties; each level only says what
 * it changes, and a toggle can turn a property off again (`<w:b w:val="0"/>`). A paragraph style's bold or italic is
 * the look of its kind of paragraph, not emphasis: it is not passed to the runs (see {@link ParagraphStyle.props}).
 */
import { child, children, intAttr, XmlElement } from "./xml.ts";

/** The run properties crawlbox reads; undefined where a level of the cascade does not say. */
export interface RunProps {
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
  /** `w:vanish`: hidden text, not shown and not printed. */
  hidden?: boolean;
  /** The Latin font (`w:rFonts w:ascii`); "" for a theme font, which is never a code font. */
  font?: string;
  /** Set by a character style meant for code ("HTML Code", "Source Text", "Verbatim Char"…). */
  codeStyle?: boolean;
}

/** What a paragraph style says, its `w:basedOn` chain resolved. */
export interface ParagraphStyle {
  /** Heading level 1–6: the outline level, or the built-in "heading N" and "Title" names. */
  level?: number;
  /** A quotation ("Quote", "Intense Quote", "Quotations", localized ids) or preformatted code style. */
  kind?: "quote" | "code";
  /** The numbering the style gives its paragraphs (Word's "List Bullet" carries one). */
  numId?: string;
  ilvl?: string;
  /** "List Bullet"/"List Number" by name, for files whose style carries no numbering. */
  listByName?: "bullet" | "number";
  /**
   * What the style gives its runs: their font and whether they are hidden. Not its bold, italic or strikethrough:
   * those are the style's look (a heading's or a table header's bold, a caption's italic), not emphasis the author
   * put on words; marks come from the runs themselves and their character styles.
   */
  props: RunProps;
}

/** Fonts set in a fixed pitch: text in them is code (the names office suites and editors ship). */
const MONOSPACE_FONT = /^(courier( new)?|consolas|menlo|monaco|lucida (console|sans typewriter)|andale mono|inconsolata|source code pro|fira code|cascadia code|monospace|.*\bmono\b.*)$/i;
/** Character styles meant for code (Word's "HTML Code", LibreOffice's "Source Text", pandoc's "Verbatim Char"). */
const CODE_CHAR_STYLE = /^(html (code|keyboard|typewriter|sample)|source text|code( char)?|verbatim char|teletype)$/i;
/** Paragraph styles of preformatted text or code. */
const CODE_PARAGRAPH_STYLE = /^(html preformatted|preformatted text|source code|code|macro text|source text)$/i;
/**
 * Quotation paragraph styles: the English names (Word keeps them in `w:name` whatever its language) and localized
 * ids. "Block Text" is Word's built-in style for an indented passage, and the one pandoc writes a block quote in.
 */
const QUOTE_STYLE = /^((intense\s*)?quote|quotations?|block\s*(quote|quotation|text)|(intensives\s*)?zitat|citation( intense)?|cita( destacada)?|citazione( intensa)?|(duidelijk\s*)?citaat|cita[çc][ãa]o( intensa)?)$/i;

/** Deepest `w:basedOn` chain followed: Word allows no cycles, a crafted file might. */
const MAX_STYLE_CHAIN = 20;

/** Fonts already classified: a run asks for its font each time, and a document uses a handful. */
const monospaceFonts = new Map<string, boolean>();

/** Whether `font` is a monospace font. */
export function isMonospace(font: string | undefined): boolean {
  if (!font) return false;
  let mono = monospaceFonts.get(font);
  if (mono === undefined) {
    mono = MONOSPACE_FONT.test(font.trim());
    if (monospaceFonts.size < 1000) monospaceFonts.set(font, mono);
  }
  return mono;
}

/** Whether an on/off property element says on (`<w:b/>`, `w:val="true"`) or off (`"0"`, `"false"`, `"off"`). */
function toggle(el: XmlElement): boolean {
  const val = el.getAttribute("w:val");
  return val === null || !/^(0|false|off|none)$/i.test(val);
}

/** The properties a `w:rPr` element sets (one pass over its children: every run has one). */
export function readRunProps(rPr: XmlElement | undefined): RunProps {
  const out: RunProps = {};
  if (!rPr) return out;
  let strike: boolean | undefined;
  let dstrike: boolean | undefined;
  for (const c of rPr.childNodes) {
    if (typeof c === "string") continue;
    switch (c.tagName) {
      case "w:b":
        out.bold = toggle(c);
        break;
      case "w:i":
        out.italic = toggle(c);
        break;
      case "w:strike":
        strike = toggle(c);
        break;
      case "w:dstrike":
        dstrike = toggle(c);
        break;
      case "w:vanish":
        out.hidden = toggle(c);
        break;
      case "w:rFonts": {
        // A theme font (`w:asciiTheme`) wins over the named one; theme fonts are the document's body and heading faces.
        const font = c.getAttribute("w:asciiTheme") ? "" : (c.getAttribute("w:ascii") ?? c.getAttribute("w:hAnsi"));
        if (font !== null) out.font = font;
        break;
      }
    }
  }
  if (strike !== undefined || dstrike !== undefined) out.strike = !!strike || !!dstrike;
  return out;
}

/** `over` laid over `under`: what `over` says wins. */
export function layer(under: RunProps, over: RunProps): RunProps {
  return { ...under, ...over };
}

interface StyleDef {
  id: string;
  name: string;
  type: string;
  basedOn?: string;
  el: XmlElement;
}

/** The styles of one document. Resolved styles are cached: a paragraph or run asks for its style each time. */
export class DocxStyles {
  private readonly defs = new Map<string, StyleDef>();
  private readonly defaults: RunProps;
  private readonly paragraphs = new Map<string, ParagraphStyle>();
  private readonly characters = new Map<string, RunProps>();
  /** The default paragraph style's id (a paragraph without `w:pStyle` is in it). */
  readonly defaultParagraph: string;

  constructor(styles: XmlElement | undefined) {
    let defaultParagraph = "";
    for (const s of styles ? children(styles, "w:style") : []) {
      const id = s.getAttribute("w:styleId") ?? "";
      const type = s.getAttribute("w:type") ?? "paragraph";
      const def: StyleDef = { id, type, el: s, name: child(s, "w:name")?.getAttribute("w:val") ?? "", basedOn: child(s, "w:basedOn")?.getAttribute("w:val") ?? undefined };
      this.defs.set(`${type}:${id}`, def);
      if (type === "paragraph" && /^(1|true|on)$/.test(s.getAttribute("w:default") ?? "")) defaultParagraph = id;
    }
    this.defaultParagraph = defaultParagraph;
    this.defaults = readRunProps(child(child(child(styles, "w:docDefaults"), "w:rPrDefault"), "w:rPr"));
  }

  /** The style `id` of `type` and those it is based on, the style itself first. */
  private chain(type: string, id: string): StyleDef[] {
    const out: StyleDef[] = [];
    for (let def = this.defs.get(`${type}:${id}`); def && out.length < MAX_STYLE_CHAIN && !out.includes(def); def = def.basedOn ? this.defs.get(`${type}:${def.basedOn}`) : undefined) out.push(def);
    return out;
  }

  /** The paragraph style `id` (the default style when the file names none or one it lacks). */
  paragraph(id: string): ParagraphStyle {
    const known = this.paragraphs.get(id);
    if (known) return known;
    const chain = this.chain("paragraph", id || this.defaultParagraph);
    // A style the file names but does not define ("ListBullet", "Heading2" with no styles part) is known by its id.
    if (chain.length === 0 && id) chain.push({ id, name: "", type: "paragraph", el: new XmlElement("w:style", undefined) });
    const out: ParagraphStyle = { props: this.defaults };
    // From the base style out to the style itself, so the nearer one wins.
    for (const def of [...chain].reverse()) {
      const pPr = child(def.el, "w:pPr");
      const level = outlineLevel(child(pPr, "w:outlineLvl")?.getAttribute("w:val")) ?? headingByName(def.name) ?? headingByName(def.id);
      if (level !== undefined) out.level = level || undefined;
      const kind = QUOTE_STYLE.test(def.name) || QUOTE_STYLE.test(def.id) ? "quote" : CODE_PARAGRAPH_STYLE.test(def.name) || CODE_PARAGRAPH_STYLE.test(def.id) ? "code" : undefined;
      if (kind) out.kind = kind;
      const numPr = child(pPr, "w:numPr");
      const numId = child(numPr, "w:numId")?.getAttribute("w:val");
      if (numId != null) out.numId = numId;
      const ilvl = child(numPr, "w:ilvl")?.getAttribute("w:val");
      if (ilvl != null) out.ilvl = ilvl;
      const list = /^list\s*(bullet|number)/i.exec(def.name) ?? /^list(bullet|number)/i.exec(def.id);
      if (list) out.listByName = list[1]!.toLowerCase() as "bullet" | "number";
      out.props = layer(out.props, readRunProps(child(def.el, "w:rPr")));
    }
    out.props = { font: out.props.font, hidden: out.props.hidden };
    // Title is a heading of its own; a style based on it (Word's Subtitle is not, some templates' are) is not.
    if (chain[0] && /^title$/i.test(chain[0].name || chain[0].id)) out.level = 1;
    this.paragraphs.set(id, out);
    return out;
  }

  /** The properties the character style `id` (and those it is based on) sets. */
  character(id: string): RunProps {
    const known = this.characters.get(id);
    if (known) return known;
    let out: RunProps = {};
    for (const def of this.chain("character", id).reverse()) {
      out = layer(out, readRunProps(child(def.el, "w:rPr")));
      if (CODE_CHAR_STYLE.test(def.name) || CODE_CHAR_STYLE.test(def.id)) out.codeStyle = true;
    }
    this.characters.set(id, out);
    return out;
  }

  /** The numbering a numbering style (`w:type="numbering"`, an abstract list's `w:numStyleLink`) points to. */
  numberingStyleNumId(id: string): string | undefined {
    for (const def of this.chain("numbering", id)) {
      const numId = child(child(child(def.el, "w:pPr"), "w:numPr"), "w:numId")?.getAttribute("w:val");
      if (numId != null) return numId;
    }
    return undefined;
  }
}

/** The heading level (1–6) of a `w:outlineLvl` value (0–8), 0 for body text (9), undefined when there is none. */
export function outlineLevel(value: string | null | undefined): number | undefined {
  const n = intAttr(value, -1, 9, -1);
  if (n < 0) return undefined;
  return n < 9 ? Math.min(6, n + 1) : 0;
}

/** The level the built-in "heading N" names give. */
function headingByName(name: string): number | undefined {
  const m = /^heading\s*(\d)$/i.exec(name);
  return m ? Math.min(6, Math.max(1, Number(m[1]))) : undefined;
}
