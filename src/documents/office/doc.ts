/**
 * @module documents/office/doc
 * DOC (Word 97–2003, MS-DOC in a compound file) → blocks: the body text (doc-text.ts) cut into paragraphs at their
 * marks, each shaped by its properties (doc-paragraphs.ts) and style (doc-styles.ts) into blocks (doc-blocks.ts:
 * headings, list items numbered as doc-lists.ts counts, tables, quotations, code), its characters' formatting
 * (doc-characters.ts) giving their marks and leaving deleted and hidden text out (doc-inline.ts, which also resolves
 * fields: codes dropped, results kept, HYPERLINKs linked). Pictures and comment anchors leave nothing behind. Text
 * boxes follow the paragraph anchoring them (doc-text-boxes.ts). Footnote and endnote references become note
 * references and the notes are listed at the end, as a DOCX's are (doc-notes.ts). Headers and comments are not read
 * (they follow the body in the text, outside `ccpText`).
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { CompoundFile } from "./cfb.ts";
import { DocBlocks } from "./doc-blocks.ts";
import { DocCharacters } from "./doc-characters.ts";
import { DocLists } from "./doc-lists.ts";
import { DocNotes } from "./doc-notes.ts";
import { DocParagraphs, type ParagraphProps } from "./doc-paragraphs.ts";
import { DocParagraphStyles, readStyles } from "./doc-styles.ts";
import { readTextBoxes } from "./doc-text-boxes.ts";
import { bodyText, MAX_DOC_CHARS, PieceTable, readFib, type DocText } from "./doc-text.ts";
import { TextBudget } from "./text-budget.ts";
import { summaryTitle } from "./summary-info.ts";

export { codeLineOf, inlineOf } from "./doc-inline.ts";
import { inlineOf } from "./doc-inline.ts";

const PARAGRAPH_END = "\r";
const CELL_END = "\x07";
const PAGE_BREAK = "\x0c";

/** Whether `ch` ends a paragraph: its mark, a cell's end, a page break. */
const endsParagraph = (ch: string) => ch === PARAGRAPH_END || ch === CELL_END || ch === PAGE_BREAK;

/** Converts DOC bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function docToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const file = new CompoundFile(bytes, "DOC");
  const word = file.stream("WordDocument");
  if (!word) throw new DocumentCorruptError("DOC", "the compound file has no WordDocument stream");
  const fib = readFib(word, file);
  const pieces = new PieceTable(word, fib);
  const { text, offsets } = bodyText(word, fib, pieces);
  const paragraphs = new DocParagraphs(word, fib);
  const styles = readStyles(fib);
  const characters = new DocCharacters(word, fib, styles);
  const paragraphStyles = new DocParagraphStyles(styles);
  const lists = new DocLists(fib);
  const notes = DocNotes.read(fib, pieces, text);
  const boxes = readTextBoxes(fib, pieces, Math.max(0, MAX_DOC_CHARS - text.length));
  const builder = new DocBlocks(paragraphStyles, lists, budget, notes);
  /** A story's paragraphs (a text box's, a note's) through `into`: each cut at its mark, its characters' flags read. */
  const story = (t: DocText, into: (text: string, mark: string, flags: Uint8Array, props: ParagraphProps) => void) => {
    const flags = new Uint8Array(t.text.length);
    let from = 0;
    for (let i = 0; i <= t.text.length; i++) {
      if (i < t.text.length && !endsParagraph(t.text[i]!)) continue;
      if (i === t.text.length && from === i) break;
      const props = paragraphs.at(t.offsets[Math.min(i, t.text.length - 1)]!);
      characters.fill(flags, t.offsets, from, Math.min(i + 1, t.text.length), props.istd);
      into(t.text.slice(from, i), t.text[i] ?? PARAGRAPH_END, flags.subarray(from, i + 1), props);
      from = i + 1;
    }
  };
  // A text box's paragraphs are blocks of their own (a heading, a list…), following the paragraph that anchors it.
  let box = 0;
  const boxesIn = (from: number, to: number) => {
    for (; box < boxes.length && boxes[box]!.anchorCp < to; box++) {
      if (boxes[box]!.anchorCp < from) continue;
      const inner = new DocBlocks(paragraphStyles, lists, budget);
      story(boxes[box]!.text, (t, mark, flags, props) => inner.add(t, 0, mark, props, flags));
      inner.end();
      builder.follow(inner.blocks);
    }
  };
  // The body's paragraphs, one at a time (a document of ten million characters is not split into strings first).
  const flags = new Uint8Array(text.length);
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (budget.cut) break; // the converter ends the document with a line saying so
    if (i < text.length && !endsParagraph(text[i]!)) continue;
    if (i === text.length && start === i) break;
    const props = paragraphs.at(offsets[Math.min(i, text.length - 1)]!);
    characters.fill(flags, offsets, start, Math.min(i + 1, text.length), props.istd);
    boxesIn(start, i + 1);
    builder.add(text.slice(start, i), start, text[i] ?? PARAGRAPH_END, props, flags.subarray(start, i + 1));
    start = i + 1;
  }
  builder.end();
  // A note's paragraphs: its text cut at paragraph, cell and page marks, fields resolved and marked as the body's.
  const noteBlock = notes.block((note, noteOffsets) => {
    const out: Inline[][] = [];
    story({ text: note, offsets: noteOffsets }, (t, _mark, f) => out.push(inlineOf(t, budget, undefined, 0, f)));
    return out;
  });
  if (noteBlock) builder.blocks.push(noteBlock);
  return { blocks: builder.blocks, title: summaryTitle(file) };
}
