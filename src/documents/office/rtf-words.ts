/**
 * @module documents/office/rtf-words
 * The control words the RTF reader (rtf.ts) acts on, and the destinations it skips or reads: one lookup drops every
 * other word (most of a file's words are formatting the markdown does not keep: `\f3`, `\fs24`, `\lang1033`).
 */
import { CHARACTER_WORDS } from "./rtf-character-state.ts";
import { FONT_WORDS } from "./rtf-fonts.ts";
import { LIST_TABLE_WORDS } from "./rtf-lists.ts";
import { PARAGRAPH_WORDS } from "./rtf-paragraph-state.ts";

// The note separators (`ftnsep`…) are what a page prints between the text and its notes: never text. A shape's
// properties (`sp`: its name, an image's description) are not text, nor its result for readers that cannot read
// shapes (`shprslt`, a copy of its text box's text, or a picture).
export const SKIP_DESTINATIONS = new Set(["colortbl", "sp", "shprslt", "pn", "pict", "header", "footer", "headerl", "headerr", "footerl", "footerr", "object", "themedata", "datastore", "latentstyles", "rsidtbl", "generator", "xmlnstbl", "mmathPr", "ftnsep", "ftnsepc", "ftncn", "aftnsep", "aftnsepc", "aftncn"]);

/** The control words this reader (or its paragraph state, PARAGRAPH_WORDS) acts on; it drops every other. */
export const READ_WORDS = new Set([
  ...SKIP_DESTINATIONS, ...PARAGRAPH_WORDS, ...CHARACTER_WORDS, ...FONT_WORDS, ...LIST_TABLE_WORDS, "info", "shptxt", "dptxbxtext", "stylesheet", "listtext", "pntext", "field", "fldinst", "fldrslt", "row", "cell", "par", "line", "sect", "page",
  "tab", "uc", "u", "footnote", "chftn", "super", "nosupersub", "sub", "plain", "emdash", "endash", "bullet", "lquote", "rquote", "ldblquote", "rdblquote", "nestcell",
]);

/**
 * A starred destination the reader knows, so not skipped: a note (`{\*\footnote`, as LibreOffice writes it), a
 * field's instruction (`{\*\fldinst`, as every writer does; rtf-fields.ts), a character style's definition
 * (`{\*\cs16 …}`, rtf-paragraph-state.ts), the list tables (`{\*\listtable`, rtf-lists.ts), or a shape or drawing
 * object, whose text box (`{\shptxt}`, `{\dptxbxtext}`) is text.
 */
export const STARRED_KNOWN = /\\\*\s*\\(footnote|fldinst|cs|listtable|listoverridetable|shpinst|do)(?![a-zA-Z])/y;
