/**
 * @module documents/layout/model
 * The intermediate form every page goes through, whatever produced it (mupdf's text layer or OCR): positioned
 * lines with font facts, then typed blocks. One layout turns both into the same markdown.
 *
 * Coordinates are PDF points from the page's top-left corner, y growing downwards.
 */

/** A link inside a line: the text it covers and where it points. */
export interface LineLink {
  text: string;
  uri: string;
  /**
   * Where `text` starts in the line's text (UTF-16 offset), from the characters under the link's rectangle. Without
   * it the text is looked up in its line, and a word that occurs twice may get the link of the other.
   */
  start?: number;
}

/** One line of text as laid out on the page. */
export interface TextLine {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  text: string;
  /** Font size in points (OCR: estimated from the line height). */
  size: number;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  links?: LineLink[];
  /**
   * y of the baseline of the line's main text (text layer only). Line pitch is measured on it: a superscript or a
   * subscript moves a line's box, not its baseline, and would read as paragraph spacing.
   */
  baseline?: number;
}

/** The text of one page. */
export interface PageText {
  /** 1-based page number. */
  number: number;
  width: number;
  height: number;
  lines: TextLine[];
  /** Where the text came from. */
  source: "text" | "ocr";
}

/**
 * Character formatting of inline text, as office documents mark their runs (PDF text carries none yet). Kept
 * because it is the document's own emphasis: a reader of the markdown, or a model, sees what the author stressed.
 */
export interface Marks {
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
  /** Set in a code style or a monospace font: written as a code span. */
  code?: boolean;
}

/**
 * Inline content: text with an optional link and marks, a reference to a note (its text is the note's label), or a
 * hard line break inside a paragraph (`lineBreak`, empty text: an address's lines, a poem's).
 */
export interface Inline extends Marks {
  text: string;
  href?: string;
  /** The label of the note this refers to (a footnote or endnote, listed in a `notes` block). */
  note?: string;
  lineBreak?: boolean;
}

/**
 * How a numbered item's number is shown when not in digits, as HTML's `<ol type>` says it: lower-case letters
 * (`a.`), upper-case letters (`A.`), lower-case roman numerals (`i.`), upper-case ones (`I.`). A document's clauses
 * and sub-steps are lettered so, and their text refers to them by those labels ("see (b) above").
 */
export type ListNumberFormat = "a" | "A" | "i" | "I";

/**
 * One item of a list block. `ordered` overrides the list's own kind at this item's level (a numbered sub-list
 * under bullets, or bullets under numbers); without it the top level follows the list and deeper levels are
 * bullets. `number` is the item's own number when the document says it (a list that starts at 5, a count that
 * goes on after a note between steps); without it items count on from the one before at their level, from 1.
 */
export interface ListItem {
  depth: number;
  content: Inline[];
  ordered?: boolean;
  number?: number;
  /** For a numbered item, its number's letters or roman numerals (see {@link ListNumberFormat}); digits without it. */
  format?: ListNumberFormat;
  /**
   * Letters past z repeat one letter (aa, bb, cc: Word's `lowerLetter`/`upperLetter`, ODT's `style:num-letter-sync`),
   * rather than count on as a browser's `<ol type="a">` does (aa, ab). The markdown's label follows the document's
   * rule (its text refers to item 28 as "bb"); the HTML's `<ol type>` is counted by the browser whatever it says.
   */
  letterSync?: boolean;
  /** The item's label as the document writes it, where the reader has it as text (an RTF's `{\listtext}` letters). */
  label?: string;
}

/** A block of the converted document. */
export type Block =
  | { kind: "heading"; level: number; content: Inline[] }
  | { kind: "paragraph"; content: Inline[] }
  | { kind: "list"; ordered: boolean; items: ListItem[] }
  /** A quotation set apart (a Quote style): one paragraph. */
  | { kind: "quote"; content: Inline[] }
  | { kind: "table"; rows: Inline[][][] }
  | { kind: "code"; text: string }
  | { kind: "pageMarker"; page: number }
  /** A document's footnotes and endnotes, by the labels their references carry, at the document's end. */
  | { kind: "notes"; notes: { label: string; content: Inline[] }[] };
