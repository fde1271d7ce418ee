/**
 * @module documents/office/rtf
 * RTF → paragraphs, headings, lists and tables. A plain reader: control words are dropped, `\par` ends a paragraph, `\'hh` and
 * `\uN` escapes are decoded (code page 1252 for the former, and for 8-bit characters written as they are), and
 * destination groups (font tables, pictures, `{\*\…}`) are skipped. Formatting is not kept, but a paragraph's
 * properties make it a heading, a list item or a table cell (rtf-paragraph-state.ts, rtf-story.ts), and a HYPERLINK
 * field's result is a link (rtf-fields.ts). Footnotes and
 * endnotes (`{\footnote …}`, starred or not; `\ftnalt` marks an endnote) come out as a DOCX's do (note-labels.ts):
 * a reference `[^n]` where the group stands, its mark left out (rtf-story.ts), the notes listed at the end, their
 * text counted against the document's budget as it is read. A note inside a note is skipped (RTF allows none).
 *
 * The syntax is followed as the RTF 1.9.1 specification gives it: `\binN` is followed by N bytes of binary data
 * (a picture, an object), skipped whole, so the braces and backslashes among them change nothing and none of them
 * reaches the text; a control word's name is at most 32 letters (a longer one is not RTF: the document is corrupt,
 * as LibreOffice also refuses it). Control characters (C0, DEL, C1) are never text.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { NoteLabels } from "./note-labels.ts";
import { RtfFields } from "./rtf-fields.ts";
import { PARAGRAPH_WORDS, RtfParagraphState } from "./rtf-paragraph-state.ts";
import { RtfStory, type ParagraphShape } from "./rtf-story.ts";
import { TextBudget } from "./text-budget.ts";

// The note separators (`ftnsep`…) are what a page prints between the text and its notes: never text.
const SKIP_DESTINATIONS = new Set(["fonttbl", "colortbl", "info", "pn", "pict", "header", "footer", "headerl", "headerr", "footerl", "footerr", "object", "themedata", "datastore", "latentstyles", "listtable", "listoverridetable", "rsidtbl", "generator", "xmlnstbl", "mmathPr", "ftnsep", "ftnsepc", "ftncn", "aftnsep", "aftnsepc", "aftncn"]);

/** The control words this reader (or its paragraph state, PARAGRAPH_WORDS) acts on; it drops every other. */
const READ_WORDS = new Set([
  ...SKIP_DESTINATIONS, ...PARAGRAPH_WORDS, "stylesheet", "listtext", "pntext", "field", "fldinst", "fldrslt", "row", "cell", "par", "line", "sect", "page",
  "tab", "uc", "u", "footnote", "chftn", "super", "nosupersub", "sub", "plain", "emdash", "endash", "bullet", "lquote", "rquote", "ldblquote", "rdblquote", "nestcell",
]);

/**
 * A starred destination the reader knows, so not skipped: a note (`{\*\footnote`, as LibreOffice writes it) or a
 * field's instruction (`{\*\fldinst`, as every writer does; rtf-fields.ts).
 */
const STARRED_KNOWN = /\\\*\s*\\(?:footnote|fldinst)(?![a-zA-Z])/y;

/** Longest control word name (RTF 1.9.1, "Control Word": "A control word's name cannot be longer than 32 letters"). */
export const MAX_CONTROL_WORD_LETTERS = 32;

/** Code page 1252's character for each byte (one character each: 0x81 and the other unassigned bytes are C1 controls). */
const CP1252 = new TextDecoder("windows-1252").decode(Uint8Array.from({ length: 256 }, (_, i) => i));

const isLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** Characters that end a run of plain text: a group's braces, a control's backslash, and tab, CR and LF. */
const isSpecial = (code: number) => code === 0x5c || code === 0x7b || code === 0x7d || code === 0x09 || code === 0x0a || code === 0x0d;

/** Converts RTF text to paragraph blocks (and its notes), within the document's text `budget` (text-budget.ts). */
export function rtfToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[] } {
  // windows-1252 maps each byte to one character, so an index in `src` is an offset in `bytes` (what \binN counts).
  const src = new TextDecoder("windows-1252").decode(bytes);
  const spend = (chars: number) => budget.spend(chars);
  const body = new RtfStory("", spend);
  const labels = new NoteLabels<RtfStory>();
  // The note being read and the depth of its group, or undefined: text goes to it, not to the body.
  let note: RtfStory | undefined;
  /** The open note's label in the body (undefined: it has none, past the text budget). */
  let noteLabel: string | undefined;
  let noteDepth = -1;
  let notesRead = 0;
  /**
   * What the body had when its note began: the link it was in (a note inside a link's result is not part of the
   * link) and its paragraph's list marker (a note's own paragraphs end without ending the body's item).
   */
  let noteOuterHref: string | undefined;
  let bodyMarker = "";
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
  const paragraph = new RtfParagraphState();
  /**
   * Text where it belongs: a field's instruction, a list marker or a style's name, or the story (linked where a field
   * says: in a note, only by a link opened in the note).
   */
  const put = (s: string) => {
    if (fields.code(s) || paragraph.text(s)) return;
    const href = note && fields.href === noteOuterHref ? undefined : fields.href;
    (note ?? body).add(budget.take(s), superDepth >= 0, href);
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
  const shape = (): ParagraphShape => (note ? { inTable: paragraph.inTable } : { level: paragraph.level, inTable: paragraph.inTable, item: paragraph.listItem, marker: paragraph.marker });
  const endParagraph = () => {
    if (skipDepth >= 0) return;
    (note ?? body).endParagraph(shape());
    paragraph.paragraphEnded();
  };
  const startNote = () => {
    // A note in a note (RTF allows none), or one past the notes a document lists: skipped, its text not read.
    if (note || labels.full) {
      skipDepth = depth;
      return;
    }
    const story = new RtfStory(body.takeMark(), spend);
    noteOuterHref = fields.href;
    bodyMarker = paragraph.marker;
    paragraph.marker = "";
    const label = labels.label(`note:${notesRead++}`, story);
    noteLabel = label && budget.spend(label.length) ? label : undefined;
    if (noteLabel) body.note(noteLabel);
    note = story;
    noteDepth = depth;
  };
  while (i < src.length && !budget.cut) {
    const c = src[i]!;
    if (c === "{") {
      depth++;
      i++;
      STARRED_KNOWN.lastIndex = i;
      if (skipDepth < 0 && src.startsWith("\\*", i) && !STARRED_KNOWN.test(src)) skipDepth = depth;
      if (skipDepth < 0) paragraph.open(depth);
      continue;
    }
    if (c === "}") {
      if (skipDepth === depth) skipDepth = -1;
      if (superDepth === depth) superDepth = -1;
      fields.close(depth);
      paragraph.close(depth);
      if (note && noteDepth === depth) {
        note.end();
        // Superscript taken as its mark that the note did not begin with was the body's text: it goes back.
        if (noteLabel) body.giveBack(noteLabel, note.unclaimedMark);
        note = undefined;
        paragraph.marker = bodyMarker;
      }
      depth = Math.max(0, depth - 1);
      i++;
      continue;
    }
    if (c !== "\\") {
      if (c === "\t") emit(" ");
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
    // Most control words are formatting this reader does not keep (`\f3`, `\fs24`, `\lang1033`): one lookup drops them.
    if (!READ_WORDS.has(word)) continue;
    if (skipDepth < 0 && paragraph.word(word, arg, depth)) continue;
    if (SKIP_DESTINATIONS.has(word)) {
      if (skipDepth < 0) skipDepth = depth;
    } else if (word === "stylesheet") {
      if (skipDepth < 0) paragraph.sheet(depth);
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
        (note ?? body).endRow(paragraph.marker);
        paragraph.paragraphEnded();
      } else endParagraph();
    } else if (word === "cell") {
      if (skipDepth >= 0) continue;
      if (!paragraph.inTable) emit(" ");
      else {
        (note ?? body).endCell(paragraph.marker);
        paragraph.paragraphEnded();
      }
    } else if (word === "par" || word === "line" || word === "sect" || word === "page") endParagraph();
    else if (word === "tab") emit(" ");
    else if (word === "uc" && arg !== undefined) ucSkip = arg;
    else if (word === "u" && arg !== undefined) {
      // Its fallback characters follow it in the same destination: skipped with it when it is (they were taken
      // from the text after the destination: `\u176\'b0` in a dropped note cut the body's next character).
      if (skipDepth < 0) {
        put(String.fromCharCode(arg < 0 ? arg + 65536 : arg));
        pendingSkip = ucSkip;
      }
    } else if (word === "footnote") {
      if (skipDepth < 0) startNote();
    } else if (word === "chftn") {
      if (skipDepth < 0) (note ?? body).autoMark();
    } else if (word === "super") {
      if (arg === 0) superDepth = -1;
      else if (superDepth < 0) superDepth = depth;
    } else if (word === "nosupersub" || word === "sub" || word === "plain") superDepth = -1;
    else if (word === "emdash") emit("—");
    else if (word === "endash") emit("–");
    else if (word === "bullet") emit("•");
    else if (word === "lquote" || word === "rquote") emit("'");
    else if (word === "ldblquote" || word === "rdblquote") emit('"');
    else if (word === "nestcell") emit(" "); // a nested table's cell: its text joins the outer cell's
  }
  if (note) note.end(); // a note the file ends in
  body.end(note ? {} : shape());
  const blocks: Block[] = [...body.blocks];
  const notes = labels.block((story) => story.paragraphs);
  if (notes) blocks.push(notes);
  return { blocks };
}
