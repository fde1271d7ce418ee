/**
 * @module documents/office/rtf-style-names
 * What a named style makes of its text, for the readers that know a style only by its name: RTF (its
 * `{\stylesheet}`, rtf-paragraph-state.ts) and DOC (its style sheet, doc-styles.ts). Word's built-in names and
 * LibreOffice's are the same in every language of the writer (the names a user sees are translated, the stored
 * ones are not), so a name says it:
 * - a quotation: "Quote", "Intense Quote" (Word), "Quotations" (LibreOffice): a quote block;
 * - a listing: "HTML Preformatted", "Macro Text" (Word), "Preformatted Text" (LibreOffice), "Source Code", "Code":
 *   consecutive paragraphs are one code block, their indentation kept;
 * - the title: "Title" is a level-1 heading, as a DOCX's is;
 * - code in a line: the character styles "HTML Code", "HTML Typewriter", "Verbatim Char", "Source Text"
 *   (LibreOffice), "Code": a code span.
 */

/** What a paragraph style makes of its paragraphs besides headings: a quote block, or a line of a code block. */
export type ParagraphKind = "quote" | "code" | undefined;

const QUOTE_STYLE = /^(quote|intense quote|quotations)$/i;
const CODE_STYLE = /^(html preformatted|preformatted text|source code|code|macro text)$/i;
const TITLE_STYLE = /^title$/i;
const CODE_CHARACTER_STYLE = /^(html code|html typewriter|verbatim char|source text|code)$/i;

/** The kind of paragraph a style named `name` makes (see the module comment). */
export function paragraphKindOf(name: string): ParagraphKind {
  const n = name.trim();
  return QUOTE_STYLE.test(n) ? "quote" : CODE_STYLE.test(n) ? "code" : undefined;
}

/** Whether a paragraph style named `name` is the title (a level-1 heading). */
export function isTitleStyle(name: string): boolean {
  return TITLE_STYLE.test(name.trim());
}

/** Whether a character style named `name` marks code. */
export function isCodeCharacterStyle(name: string): boolean {
  return CODE_CHARACTER_STYLE.test(name.trim());
}
