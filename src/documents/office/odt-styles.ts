/**
 * @module documents/office/odt-styles
 * An ODT's styles, as far as the markdown shows them (ODF 1.2 §16): the marks a text style gives its runs (bold,
 * italic, strikethrough, a monospace font or a code style: code; hidden text), what a paragraph style gives its
 * paragraph's (the marks of its automatic style, which is how the writer stores formatting applied to the whole
 * paragraph; a named style's bold or italic is the look of its kind of paragraph, a heading's or a table head's, not
 * emphasis, as the DOCX reader reads Word's), the part a paragraph style plays (a title, a quotation, preformatted
 * code), and the list styles that say whether each level of a list is numbered and from which number. Read from
 * `content.xml`'s automatic styles and `styles.xml`'s common ones, a style's missing properties from its parents
 * (`style:parent-style-name`), each resolved once.
 */
import type { ListNumberFormat, Marks } from "../layout/model.ts";
import { nameStyle } from "../pdf/glyphs.ts";
import { child, children, intAttr, XmlElement } from "./xml.ts";

/**
 * Most styles one style's chain of parents is followed through: real chains are a few long (an automatic style, its
 * common style, "Standard"); a chain that loops back, or one of thousands, ends there.
 */
const MAX_STYLE_CHAIN = 32;

/** Highest number a list item may show: CommonMark reads at most nine digits as an ordered list's marker. */
export const MAX_LIST_NUMBER = 999_999_999;

/** What a style gives its runs: each mark set true or false where the style (or a parent) says, and hidden text. */
export interface RunStyle extends Marks {
  /** `text:display="none"`: text the document does not show (as a DOCX's `w:vanish`). */
  hidden?: boolean;
}

/** What a paragraph style gives its paragraph. */
export interface ParagraphStyle {
  /** The marks of the paragraph's automatic style (formatting applied to the whole paragraph), under its runs' own. */
  marks: RunStyle;
  /** Its font (its own, a parent's, or the document's default) is monospace: then a run in one is not code. */
  mono: boolean;
  /** `text:display="none"`: the paragraph is not shown. */
  hidden: boolean;
}

/** The part a paragraph style plays in the markdown: a level-1 heading, a `>` quotation, a line of a code block. */
export type ParagraphRole = "title" | "quote" | "code";

/** One level of a list style: whether its items are numbered, the number its first item gets, and how it is shown. */
export interface ListLevel {
  ordered: boolean;
  start: number;
  /** Letters or roman numerals (`style:num-format` a, A, i, I); digits without. */
  format?: ListNumberFormat;
  /** Letters past z repeat one letter (aa, bb; `style:num-letter-sync="true"`), not count on (aa, ab, LibreOffice's default). */
  letterSync?: boolean;
}

/** The `style:num-format` values numbered in letters or roman numerals, as the renderer shows them. */
const FORMATS: ReadonlySet<string> = new Set(["a", "A", "i", "I"]);

/**
 * Paragraph styles by their (lower-case) display names: LibreOffice's own (Title, Quotations, Preformatted Text) and
 * those a DOCX or an HTML page brings (Quote, Intense Quote, HTML Preformatted). A style based on one plays its part.
 */
const ROLES = new Map<string, ParagraphRole>([
  ["title", "title"],
  ["quotations", "quote"],
  ["quote", "quote"],
  ["intense quote", "quote"],
  ["preformatted text", "code"],
  ["html preformatted", "code"],
  ["source code", "code"],
  ["code", "code"],
]);

/**
 * Character styles that are code by their name, whatever font they set: LibreOffice's Source Text and Teletype (an
 * HTML page's `<code>` and `<tt>`) and Word's HTML Code.
 */
const CODE_STYLES = new Set(["source text", "teletype", "code", "html code", "html typewriter", "html keyboard"]);

/** Levels a list style defines (ODF: 1–10); a deeper item takes none of them (bullets). */
const MAX_LIST_LEVEL = 10;

const NO_STYLE: RunStyle = {};
const UNNUMBERED: ListLevel = { ordered: false, start: 1 };
const NO_LIST_STYLE = new XmlElement("text:list-style", undefined);

/** `{[key]: value}` when `style` says `key`, else nothing: spread over another style, an unsaid mark does not unset its. */
function pick(style: RunStyle, key: "bold" | "italic" | "strike"): RunStyle {
  return style[key] === undefined ? {} : { [key]: style[key] };
}

/** The names a style goes by, lower-case: its display name and its `style:name` (where ODF writes a space as `_20_`). */
function namesOf(style: XmlElement): string[] {
  const name = (style.getAttribute("style:name") ?? "").replace(/_([0-9A-Fa-f]{2})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).toLowerCase();
  const shown = style.getAttribute("style:display-name")?.toLowerCase();
  return shown && shown !== name ? [shown, name] : [name];
}

/** A font family's first name, unquoted (`'Liberation Mono', monospace` → `liberation mono`). */
function familyName(family: string): string {
  return (family.split(",")[0] ?? "").trim().replace(/^['"]|['"]$/g, "").toLowerCase();
}

/**
 * Whether a font family is monospace, by its name as a PDF's fonts are judged (Courier, Liberation Mono, Consolas,
 * DejaVu Sans Mono, …); Monotype's fonts (Monotype Corsiva) are not, whatever their maker's name holds.
 */
function isMonospace(family: string): boolean {
  return !family.startsWith("monotype") && nameStyle(family.replace(/\s+/g, "")).mono;
}

/** An ODT's styles: built from its `content.xml` and `styles.xml` roots. */
export class OdtStyles {
  /** Paragraph and text styles by `family/name`. */
  private readonly styles = new Map<string, XmlElement>();
  private readonly listStyles = new Map<string, XmlElement>();
  /** Font declarations' families by their names (`style:font-name` refers to them). */
  private readonly fonts = new Map<string, string>();
  private readonly runs = new Map<string, RunStyle>();
  private readonly roles = new Map<string, ParagraphRole | undefined>();
  /** Each list style's levels, by level (1-based). */
  private readonly levels = new Map<string, ListLevel[]>();
  private readonly paragraphs = new Map<string, ParagraphStyle>();
  /** The automatic styles' keys: the formatting applied to a paragraph or a run itself. */
  private readonly automatic = new Set<string>();
  /** What the default paragraph style (`style:default-style`) gives every paragraph: its font. */
  private readonly defaults: RunStyle = {};
  /** The document's body text is set in a monospace font (a typewriter-style document): a paragraph in it is not code for that. */
  readonly bodyMono: boolean;

  /** `styles` (the common styles) first: an automatic style of `content` is the one its text means. */
  constructor(content: XmlElement, styles?: XmlElement) {
    for (const root of [styles, content]) {
      if (!root) continue;
      for (const section of children(root)) {
        if (section.tagName === "office:font-face-decls") {
          for (const face of children(section, "style:font-face")) {
            const name = face.getAttribute("style:name");
            if (name) this.fonts.set(name, face.getAttribute("svg:font-family") ?? name);
          }
        } else if (section.tagName === "office:styles" || (section.tagName === "office:automatic-styles" && root === content)) {
          for (const s of children(section)) {
            const name = s.getAttribute("style:name");
            if (!name) continue;
            const key = `${s.getAttribute("style:family")}/${name}`;
            if (s.tagName === "style:style") this.styles.set(key, s);
            else if (s.tagName === "text:list-style") this.listStyles.set(name, s);
            if (s.tagName === "style:style" && section.tagName === "office:automatic-styles") this.automatic.add(key);
          }
        }
      }
    }
    const common = child(styles, "office:styles");
    const defaults = common && children(common, "style:default-style").find((d) => d.getAttribute("style:family") === "paragraph");
    const props = child(defaults, "style:text-properties");
    if (props) this.readTextProperties(props, this.defaults);
    this.bodyMono = this.paragraph("Standard").mono;
  }

  /** The chain of a style and its parents, nearest first. */
  private *chain(family: string, name: string | null): Generator<XmlElement> {
    let style = name ? this.styles.get(`${family}/${name}`) : undefined;
    for (let i = 0; style && i < MAX_STYLE_CHAIN; i++) {
      yield style;
      const parent = style.getAttribute("style:parent-style-name");
      style = parent ? this.styles.get(`${family}/${parent}`) : undefined;
    }
  }

  /** What the text (character) style `name` gives its runs, with what its parents say; only what they say is set. */
  run(name: string | null): RunStyle {
    if (!name) return NO_STYLE;
    let out = this.runs.get(name);
    if (out) return out;
    out = {};
    for (const style of this.chain("text", name)) {
      if (out.code === undefined && namesOf(style).some((n) => CODE_STYLES.has(n))) out.code = true;
      const p = child(style, "style:text-properties");
      if (p) this.readTextProperties(p, out);
    }
    this.runs.set(name, out);
    return out;
  }

  /** What the paragraph style `name` gives its paragraph (see {@link ParagraphStyle}). */
  paragraph(name: string | null): ParagraphStyle {
    const key = name ?? "";
    let out = this.paragraphs.get(key);
    if (out) return out;
    const chain: RunStyle = {};
    const marks: RunStyle = {};
    let first = true;
    for (const style of this.chain("paragraph", name)) {
      const p = child(style, "style:text-properties");
      // The marks of the paragraph's automatic style only (the first of the chain); fonts and hiding from them all.
      if (p && first && this.automatic.has(`paragraph/${name}`)) this.readTextProperties(p, marks);
      if (p) this.readTextProperties(p, chain);
      first = false;
    }
    out = { marks: { ...pick(marks, "bold"), ...pick(marks, "italic"), ...pick(marks, "strike") }, mono: chain.code ?? this.defaults.code ?? false, hidden: chain.hidden === true };
    this.paragraphs.set(key, out);
    return out;
  }

  /** Fills what `out` does not say yet from text properties `p`. */
  private readTextProperties(p: XmlElement, out: RunStyle): void {
    const weight = p.getAttribute("fo:font-weight");
    if (out.bold === undefined && weight) out.bold = weight === "bold" || weight === "bolder" || Number(weight) >= 600;
    const style = p.getAttribute("fo:font-style");
    if (out.italic === undefined && style) out.italic = style === "italic" || style === "oblique";
    const line = p.getAttribute("style:text-line-through-style") ?? p.getAttribute("style:text-line-through-type");
    if (out.strike === undefined && line) out.strike = line !== "none";
    const font = p.getAttribute("style:font-name");
    const family = font ? (this.fonts.get(font) ?? font) : p.getAttribute("fo:font-family");
    if (out.code === undefined && family) out.code = isMonospace(familyName(family));
    const display = p.getAttribute("text:display");
    if (out.hidden === undefined && display) out.hidden = display === "none";
  }

  /**
   * The part the paragraph style `name` plays, by its own name or a parent's; a title only by the named style the
   * paragraph is in (its automatic style's parent), not by one based on Title (as the DOCX reader's Word styles).
   */
  role(name: string | null): ParagraphRole | undefined {
    if (!name) return undefined;
    if (this.roles.has(name)) return this.roles.get(name);
    let role: ParagraphRole | undefined;
    let named = 0;
    for (const style of this.chain("paragraph", name)) {
      if (this.automatic.has(`paragraph/${style.getAttribute("style:name")}`)) continue;
      const found = namesOf(style).map((n) => ROLES.get(n)).find((r) => r !== undefined);
      if (found && (found !== "title" || named === 0)) {
        role = found;
        break;
      }
      named++;
    }
    this.roles.set(name, role);
    return role;
  }

  /** The list style the paragraph style `name` (or a parent) numbers its paragraphs with; an empty name is none. */
  listStyleOf(name: string | null): string | undefined {
    for (const style of this.chain("paragraph", name)) {
      const list = style.getAttribute("style:list-style-name");
      if (list !== null) return list || undefined;
    }
    return undefined;
  }

  /**
   * Level `level` (1-based) of the list style `name`: numbered for a `text:list-level-style-number` that shows a
   * number (`style:num-format` not empty: 1, a, i, …), from its `text:start-value`; bullets, pictures, a level the
   * style does not define, and a list without a style are not numbered.
   */
  listLevel(name: string | undefined, level: number): ListLevel {
    if (!name) return UNNUMBERED;
    let levels = this.levels.get(name);
    if (!levels) {
      levels = [];
      for (const l of children(this.listStyles.get(name) ?? NO_LIST_STYLE)) {
        if (!l.tagName.startsWith("text:list-level-style-")) continue;
        const at = intAttr(l.getAttribute("text:level"), 1, MAX_LIST_LEVEL, 1);
        if (levels[at]) continue;
        const format = l.getAttribute("style:num-format");
        const numbered = l.tagName === "text:list-level-style-number" && format !== "";
        const start = intAttr(l.getAttribute("text:start-value"), 0, MAX_LIST_NUMBER, 1);
        // ODF 1.2 §20.323 names it `style:num-letter-sync`; the `text:` spelling is read too.
        const sync = (l.getAttribute("style:num-letter-sync") ?? l.getAttribute("text:num-letter-sync")) === "true";
        const lettered = format === "a" || format === "A";
        levels[at] = numbered ? { ordered: true, start, ...(format !== null && FORMATS.has(format) ? { format: format as ListNumberFormat } : {}), ...(lettered && sync ? { letterSync: true } : {}) } : UNNUMBERED;
      }
      this.levels.set(name, levels);
    }
    return levels[level] ?? UNNUMBERED;
  }

}
