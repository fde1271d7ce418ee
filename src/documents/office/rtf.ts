/**
 * @module documents/office/rtf
 * RTF → paragraphs, headings, lists, tables, quotations and code blocks. A plain reader: control words it does not
 * know are dropped (rtf-words.ts), `\par` ends a paragraph and `\line` breaks a line in it, `\'hh` and `\uN`
 * escapes are decoded (code page 1252 for the former, and for 8-bit characters written as they are), and destination
 * groups (pictures, `{\*\…}`) are skipped. A paragraph's properties make it a heading, a list item, a table cell, a
 * quotation or a line of code (rtf-paragraph-state.ts, rtf-story.ts); its runs' formatting gives their marks and
 * leaves hidden and deleted text out (rtf-character-state.ts, by the font table: rtf-fonts.ts); a HYPERLINK field's
 * result is a link (rtf-fields.ts); the information group gives the title (rtf-info.ts); a text box's paragraphs
 * follow the paragraph anchoring it (rtf-stories.ts: which story text goes to). Footnotes and
 * endnotes (`{\footnote …}`, starred or not; `\ftnalt` marks an endnote) come out as a DOCX's do (note-labels.ts):
 * a reference `[^n]` where the group stands, its mark left out (rtf-story.ts), the notes listed at the end, their
 * text counted against the document's budget as it is read. A note inside a note is skipped (RTF allows none).
 * List paragraphs are numbered by the list tables (rtf-lists.ts) where no `{\listtext}` shows their number.
 *
 * The syntax is followed as the RTF 1.9.1 specification gives it: `\binN` is followed by N bytes of binary data
 * (a picture, an object), skipped whole, so the braces and backslashes among them change nothing and none of them
 * reaches the text; a control word's name is at most 32 letters (a longer one is not RTF: the document is corrupt,
 * as LibreOffice also refuses it). Control characters (C0, DEL, C1) are never text.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { RtfCharacterState } from "./rtf-character-state.ts";
import { RtfFields } from "./rtf-fields.ts";
import { RtfFonts } from "./rtf-fonts.ts";
import { RtfInfo } from "./rtf-info.ts";
import { RtfLists } from "./rtf-lists.ts";
import { RtfParagraphState } from "./rtf-paragraph-state.ts";
import { RtfStories } from "./rtf-stories.ts";
import type { ParagraphShape } from "./rtf-story.ts";
import { READ_WORDS, SKIP_DESTINATIONS, STARRED_KNOWN } from "./rtf-words.ts";
import { TextBudget } from "./text-budget.ts";

/** Longest control word name (RTF 1.9.1, "Control Word": "A control word's name cannot be longer than 32 letters"). */
export const MAX_CONTROL_WORD_LETTERS = 32;

/** Code page 1252's character for each byte (one character each: 0x81 and the other unassigned bytes are C1 controls). */
const CP1252 = new TextDecoder("windows-1252").decode(Uint8Array.from({ length: 256 }, (_, i) => i));

/** What stands before a starred destination's word that names its group: `{\*`, blanks allowed after the star. */
const STARRED_OPENING = /\{\\\*\s*$/;

const isLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** Characters that end a run of plain text: a group's braces, a control's backslash, and tab, CR and LF. */
const isSpecial = (code: number) => code === 0x5c || code === 0x7b || code === 0x7d || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * Converts RTF text to paragraph blocks (and its notes), within the document's text `budget` (text-budget.ts); the
 * title its information group gives, if any.
 */
export function rtfToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  // windows-1252 maps each byte to one character, so an index in `src` is an offset in `bytes` (what \binN counts).
  const src = new TextDecoder("windows-1252").decode(bytes);
  // Group depth, and the depth of the group being skipped (a destination not shown), or -1. A depth, not a stack of
  // flags: ten million nested groups cost nothing to track. So is superscript (where a custom note mark is): the
  // depth of the group that raised it, or -1 (a group lowering it inside one that raised it is taken to end it).
  let depth = 0;
  let skipDepth = -1;
  let superDepth = -1;
  let ucSkip = 1;
  let pendingSkip = 0;
  let i = 0;
  const fields = new RtfFields();
  const fonts = new RtfFonts();
  const info = new RtfInfo();
  const lists = new RtfLists();
  const paragraph = new RtfParagraphState(fonts);
  const chars = new RtfCharacterState(fonts, (n) => paragraph.isCodeStyle(n));
  /** The body, the notes and the text boxes (rtf-stories.ts): which one text goes to. */
  const stories = new RtfStories(budget, paragraph, fields);
  /**
   * Whether `s` is not the document's text: a font's or style's name, the title, a field's instruction, a list
   * marker, the list tables' text.
   */
  const taken = (s: string) => lists.text(s) || fonts.text(s) || info.take(s) || fields.code(s) || paragraph.text(s);
  /** Text where it belongs (see `taken`), or the story's, unless hidden or deleted, with its link and marks. */
  const put = (s: string) => {
    if (taken(s) || !chars.shown) return;
    stories.current.add(budget.take(s), superDepth >= 0, stories.href, chars.marksBeyond(paragraph.styleMarks));
  };
  /** Text read from the file: each of its characters is one of a `\u` escape's fallback characters while those are due. */
  const emit = (s: string) => {
    if (skipDepth >= 0) return;
    if (pendingSkip > 0) {
      const n = Math.min(pendingSkip, s.length);
      pendingSkip -= n;
      s = s.slice(n);
      if (!s) return;
    }
    put(s);
  };
  /** How the paragraph being read ends: a note's paragraphs are plain (note-labels.ts lists them as text). */
  const shape = (): ParagraphShape =>
    stories.inNote ? { inTable: paragraph.inTable } : { level: paragraph.level, inTable: paragraph.inTable, item: paragraph.listItem(lists), marker: paragraph.marker, kind: paragraph.kind };
  const endParagraph = () => {
    if (skipDepth >= 0) return;
    stories.current.endParagraph(shape());
    paragraph.paragraphEnded();
  };
  /** `\line`: a hard line break in the story's paragraph (none in a name, an instruction or a marker, nor hidden). */
  const lineBreak = () => {
    if (skipDepth >= 0 || taken("") || !chars.shown || !budget.spend(1)) return;
    stories.current.lineBreak();
  };
  while (i < src.length && !budget.cut) {
    const c = src[i]!;
    if (c === "{") {
      depth++;
      i++;
      if (skipDepth < 0 && src.startsWith("\\*", i)) {
        // A starred destination the reader knows is read; a character style's only in the stylesheet.
        STARRED_KNOWN.lastIndex = i;
        const known = STARRED_KNOWN.exec(src)?.[1];
        if (!known || (known === "cs" && !paragraph.inSheet)) skipDepth = depth;
      }
      if (skipDepth < 0 && info.skips(src, i, depth)) skipDepth = depth;
      if (skipDepth < 0) {
        paragraph.open(depth);
        fonts.open(depth);
      }
      continue;
    }
    if (c === "}") {
      if (skipDepth === depth) skipDepth = -1;
      if (superDepth === depth) superDepth = -1;
      fields.close(depth);
      lists.close(depth);
      paragraph.close(depth);
      chars.close(depth);
      fonts.close(depth);
      info.close(depth);
      stories.close(depth);
      depth = Math.max(0, depth - 1);
      i++;
      continue;
    }
    if (c !== "\\") {
      if (c === "\t") emit("\t");
      else if (c !== "\r" && c !== "\n") {
        // A run of plain characters at once (one call per character was most of a large file's time).
        let end = i + 1;
        while (end < src.length && !isSpecial(src.charCodeAt(end))) end++;
        emit(src.slice(i, end));
        i = end;
        continue;
      }
      i++;
      continue;
    }
    const next = src[i + 1] ?? "";
    if (next === "'") {
      const code = parseInt(src.slice(i + 2, i + 4), 16);
      if (code >= 0) emit(CP1252[code]!);
      i += 4;
      continue;
    }
    if (!isLetter(next.charCodeAt(0))) {
      if (next === "~") emit(" ");
      else if (next === "-" || next === "*") {
        /* optional hyphen / destination marker */
      } else if (next === "\n" || next === "\r") endParagraph();
      else if (next !== "") emit(next);
      i += 2;
      continue;
    }
    // \<letters>[-]<digits>, then an optional space delimiter that belongs to the control word.
    const opensGroup = src[i - 1] === "{"; // the word names its group (a destination)
    const wordAt = i;
    let at = i + 1;
    while (at < src.length && isLetter(src.charCodeAt(at))) at++;
    if (at - (i + 1) > MAX_CONTROL_WORD_LETTERS) {
      throw new DocumentCorruptError("RTF", `a control word at offset ${i} is longer than ${MAX_CONTROL_WORD_LETTERS} letters`);
    }
    const word = src.slice(i + 1, at);
    const paramStart = at;
    if (src[at] === "-" && isDigit(src.charCodeAt(at + 1))) at++;
    while (at < src.length && isDigit(src.charCodeAt(at))) at++;
    const arg = at > paramStart ? Number(src.slice(paramStart, at)) : undefined;
    if (src[at] === " ") at++;
    i = at;
    if (word === "bin") {
      // N bytes of binary data: never text, never syntax; as many as the file still has.
      i += Math.min(Math.max(0, arg ?? 0), src.length - i);
      continue;
    }
    // The list tables' words are theirs (rtf-lists.ts), whatever other meaning they have (`\ls`, `\tab`).
    if (skipDepth < 0 && lists.reading) {
      lists.word(word, arg, depth);
      continue;
    }
    // Most control words are formatting this reader does not keep (`\f3`, `\fs24`, `\lang1033`): one lookup drops them.
    if (!READ_WORDS.has(word)) continue;
    // The information group's words say nothing of the text (its title's `\u` escapes are read as text).
    if (info.reading && word !== "u" && word !== "uc") continue;
    if (skipDepth < 0 && (fonts.word(word, arg, depth) || paragraph.word(word, arg, depth))) continue;
    // `\plain` resets the character formatting, and below, the superscript a custom note mark is read from.
    if (skipDepth < 0 && chars.word(word, arg, depth) && word !== "plain") continue;
    if (SKIP_DESTINATIONS.has(word)) {
      if (skipDepth < 0) skipDepth = depth;
    } else if (word === "listtable" || word === "listoverridetable") {
      // A destination: read as its group's first word, else skipped as it was before the tables were read.
      if (skipDepth < 0 && (opensGroup || STARRED_OPENING.test(src.slice(Math.max(0, wordAt - 8), wordAt)))) lists.open(depth);
      else if (skipDepth < 0) skipDepth = depth;
    } else if (word === "stylesheet") {
      if (skipDepth < 0) paragraph.sheet(depth);
    } else if (word === "info") {
      if (skipDepth < 0 && opensGroup) info.open(depth);
    } else if (word === "shptxt" || word === "dptxbxtext") {
      if (skipDepth < 0 && opensGroup) stories.startBox(depth);
    } else if (word === "listtext" || word === "pntext") {
      // A destination: only as its group's first word (a stray one would take the rest of its group as a marker).
      if (skipDepth < 0 && opensGroup) paragraph.markerGroup(depth);
    } else if (word === "field") {
      if (skipDepth < 0) fields.field(depth);
    } else if (word === "fldinst") {
      // The instruction of a field (its code: never text), or one outside any field, skipped.
      if (skipDepth < 0 && !fields.instruction(depth)) skipDepth = depth;
    } else if (word === "fldrslt") {
      if (skipDepth < 0) fields.result(depth);
    } else if (word === "row") {
      // A row ends its table row; outside a table's paragraphs (a stray \row, or one after `\pard` ended the
      // table), the paragraph, as LibreOffice reads it.
      if (skipDepth >= 0) continue;
      if (paragraph.inTable) {
        stories.current.endRow(paragraph.marker);
        paragraph.paragraphEnded();
      } else endParagraph();
    } else if (word === "cell") {
      if (skipDepth >= 0) continue;
      if (!paragraph.inTable) emit(" ");
      else {
        stories.current.endCell(paragraph.marker);
        paragraph.paragraphEnded();
      }
    } else if (word === "par" || word === "sect" || word === "page") endParagraph();
    else if (word === "line") lineBreak();
    else if (word === "tab") emit("\t"); // a space, except in a listing's line
    else if (word === "uc" && arg !== undefined) ucSkip = arg;
    else if (word === "u" && arg !== undefined) {
      // Its fallback characters follow it in the same destination: skipped with it when it is (they were taken
      // from the text after the destination: `\u176\'b0` in a dropped note cut the body's next character).
      if (skipDepth < 0) {
        put(String.fromCharCode(arg < 0 ? arg + 65536 : arg));
        pendingSkip = ucSkip;
      }
    } else if (word === "footnote") {
      // A note where none may be (see rtf-stories.ts) is skipped, its text not read.
      if (skipDepth < 0 && !stories.startNote(depth)) skipDepth = depth;
    } else if (word === "chftn") {
      if (skipDepth < 0) stories.current.autoMark();
    } else if (word === "super") {
      if (arg === 0) superDepth = -1;
      else if (superDepth < 0) superDepth = depth;
    } else if (word === "nosupersub" || word === "sub" || word === "plain") superDepth = -1;
    else if (word === "emdash") emit("—");
    else if (word === "endash") emit("–");
    else if (word === "bullet") emit("•");
    // Word writes its smart quotes so; the DOCX of the same document keeps them typographic, and so does this.
    else if (word === "lquote") emit("‘");
    else if (word === "rquote") emit("’");
    else if (word === "ldblquote") emit("“");
    else if (word === "rdblquote") emit("”");
    else if (word === "nestcell") emit(" "); // a nested table's cell: its text joins the outer cell's
  }
  const blocks = stories.end(shape());
  const title = info.title;
  return title ? { blocks, title } : { blocks };
}
