/**
 * @module documents/office/rtf-story
 * The text an RTF reader (rtf.ts) collects into paragraphs: the body's, or one footnote's or endnote's. Kept apart
 * from the tokenizer because a note changes what a paragraph is: the body's paragraphs hold references to notes
 * (`[^n]`, labelled by note-labels.ts as a DOCX's are), and a note's reference mark must not stay in the text.
 *
 * RTF has no reference element: a note is a `{\footnote …}` group (`\ftnalt` in it: an endnote) standing where the
 * text refers to it, after its mark. An auto-numbered mark is `\chftn` (no text); a custom mark (a `*` the author set)
 * is plain superscript text before the group, written again at the start of the note's own text (LibreOffice:
 * `{\super *{\*\footnote *\pard …}}`; Word: `{\super *}{\footnote {\super *} …}`). The label stands for the mark, so
 * the superscript text right before a note (at most {@link MAX_CUSTOM_MARK_CHARS}) leaves the body, and the note's
 * text loses it too when it starts with it, as a DOC's custom mark does (doc-notes.ts).
 */
import type { Block, Inline, ListItem, Marks } from "../layout/model.ts";
import type { RtfListItem } from "./rtf-lists.ts";
import { CodeLines } from "./rtf-code-block.ts";
import { sameMarks } from "./inline-runs.ts";
import { allCode, codeLine, CONTROL, finish, unmarked } from "./rtf-spans.ts";
import type { ParagraphKind } from "./rtf-style-names.ts";

/** Longest custom mark taken for one (Word allows 10 characters); longer superscript text stays text. */
export const MAX_CUSTOM_MARK_CHARS = 10;

/** What a table cell costs the text budget besides its text: its separator, ` | ` (a table of empty cells is not free). */
const CELL_SEPARATOR_CHARS = 3;

/** Appends a cell's paragraph `add` to the cell `into`, a space between it and the one before. */
function joinCell(into: Inline[], add: Inline[]): void {
  if (add.length === 0) return;
  if (into.length > 0) into.push({ text: " " });
  into.push(...add);
}

/**
 * How a paragraph ends (rtf-paragraph-state.ts): a heading's level, in a table, a list item and its marker, a
 * quotation or a line of code.
 */
export interface ParagraphShape {
  level?: number;
  inTable?: boolean;
  item?: RtfListItem;
  marker?: string;
  kind?: ParagraphKind;
}

/** One story's paragraphs, headings, lists and tables as they are read. */
export class RtfStory {
  /** The finished blocks (paragraphs, headings, lists, tables), each non-empty. */
  readonly blocks: Block[] = [];
  /** The table being read: its finished rows, the row being read, and its cell being read. */
  private rows: Inline[][][] = [];
  private row: Inline[][] = [];
  private cell: Inline[] = [];
  /** The current paragraph before its last note reference or change of link. */
  private parts: Inline[] | undefined;
  private text = "";
  /** The link `text` belongs to (rtf-fields.ts), if any. */
  private href: string | undefined;
  /** The marks of `text` (rtf-character-state.ts). */
  private marks: Marks | undefined;
  /** The list block items join (the last block, while it is), its list (`\ls`) and its last top-level number. */
  private list: { block: Block & { kind: "list" }; id: number; top?: number } | undefined;
  /** Blocks to follow the paragraph being read (a text box's, which its paragraph anchors). */
  private pending: Block[] = [];
  /** Where, in `text`, the superscript run the text ends with begins; -1 when it does not end with one. */
  private markFrom = -1;

  /** Whether the note's text began with {@link mark} (so it was its custom mark), once its first text came. */
  private markConfirmed = false;

  /**
   * A story; a note's with `mark`, the custom mark its reference seemed to have (if any), to drop from its start.
   * `spend` charges the document's text budget (text-budget.ts) for what the markdown prints besides the text: a
   * link's target, once per span that prints it (a link over 20,000 paragraphs prints it 20,000 times, where it was
   * charged once), and a table cell's separator.
   */
  constructor(
    readonly mark = "",
    private readonly spend: (chars: number) => boolean = () => true,
  ) {
    this.leadingMark = mark;
    this.code = new CodeLines(this.blocks, spend);
  }

  /** The listing's lines (code-styled paragraphs) as code blocks. */
  private readonly code: CodeLines;

  /** Whether the span being read (its link) has been charged for its target. */
  private linkCharged = false;

  /** The mark still to be checked against the note's first text. */
  private leadingMark: string;

  /**
   * The superscript taken from the body as this note's mark when the note did not begin with it (or is
   * auto-numbered): it was text (`E = mc{\super 2}` before a note), to give back to the body (giveBack).
   */
  get unclaimedMark(): string {
    return this.markConfirmed ? "" : this.mark;
  }

  /**
   * Puts `mark` back into the text, right before the reference labelled `label` (a note's unclaimed mark), which is
   * the paragraph's last part: nothing reaches the body while its note is open.
   */
  giveBack(label: string, mark: string): void {
    const parts = this.parts;
    if (!mark || !parts || parts.length < 2 || parts[parts.length - 1]!.note !== label) return;
    parts[parts.length - 2]!.text += mark;
  }

  /**
   * Adds `s`, already counted against the document's budget; `superscript` when the text is raised there; `href`
   * the link it belongs to; `marks` its formatting. A change of link or marks starts a new span (and ends any mark:
   * a mark is not split by a link).
   */
  add(s: string, superscript: boolean, href?: string, marks?: Marks): void {
    if (!s) return;
    if (href !== this.href || (marks !== this.marks && !sameMarks(marks, this.marks))) {
      this.flush();
      this.href = href;
      this.marks = marks;
    }
    if (href !== undefined && !this.linkCharged) {
      if (!this.spend(href.length)) return;
      this.linkCharged = true;
    }
    if (!superscript) this.markFrom = -1;
    else if (this.markFrom < 0) this.markFrom = this.text.length;
    this.text += s;
  }

  /** An auto-numbered mark (`\chftn`): the superscript before it is not a custom mark (nor, in a note, the body's). */
  autoMark(): void {
    this.markFrom = -1;
    this.leadingMark = "";
  }

  /** Takes the custom mark the text ends with (see the module comment) out of the text; "" when there is none. */
  takeMark(): string {
    if (this.markFrom < 0) return "";
    const mark = this.text.slice(this.markFrom).replace(CONTROL, "").trim();
    if (mark.length === 0 || mark.length > MAX_CUSTOM_MARK_CHARS) return "";
    this.text = this.text.slice(0, this.markFrom);
    this.markFrom = -1;
    return mark;
  }

  /** A reference to the note labelled `label`, where the text now ends. */
  note(label: string): void {
    this.flush();
    this.parts!.push({ text: label, note: label });
  }

  /** A hard line break (`\line`), where the text now ends. */
  lineBreak(): void {
    this.flush();
    this.parts!.push({ text: "", lineBreak: true });
  }

  /** Blocks (a text box's) that follow the paragraph being read, or the table it is in, once that ends. */
  follow(blocks: readonly Block[]): void {
    this.pending.push(...blocks);
  }

  /**
   * Ends the current paragraph (kept when it has any text or reference), shaped as `shape` says: a heading (its
   * text unmarked); a list item; in a table's cell (a cell's paragraphs are joined with a space); a quotation; a
   * line of code (a code style, or all its text monospace), joined to the code block before it. A heading or a cell
   * keeps its list marker as text (a numbered heading's `1.2`); a list item's is the list's. A paragraph outside a
   * table ends the table before it, and is followed by the text boxes it anchors.
   */
  endParagraph(shape: ParagraphShape = {}): void {
    const item = shape.item;
    this.flush();
    const parts = this.parts!;
    this.parts = undefined;
    if (shape.inTable) return joinCell(this.cell, this.finished(parts, shape.marker));
    this.endTable();
    if (!item && !shape.level && (shape.kind === "code" || allCode(parts))) this.code.add(codeLine(parts));
    else {
      const content = this.finished(parts, item && !shape.level ? "" : shape.marker);
      if (content.length === 0) {
        // An empty paragraph between two of a listing's lines is a blank line of it.
      } else if (shape.level) this.blocks.push({ kind: "heading", level: shape.level, content: content.map(unmarked) });
      else if (item) this.listItem(item, content);
      else this.blocks.push(shape.kind === "quote" ? { kind: "quote", content } : { kind: "paragraph", content });
    }
    if (this.pending.length > 0) this.blocks.push(...this.pending.splice(0));
  }

  /**
   * A list item: joined to the list block before it when it is nested (an item under another keeps to its parent's
   * list, whatever its own) or of the same list (`\ls`) and kind, not restarted (a top-level number not above the
   * last one's); else a new list block. Each item keeps its own kind, and its number when its marker shows one.
   */
  private listItem(item: RtfListItem, content: Inline[]): void {
    const entry: ListItem = { depth: item.depth, content, ordered: item.ordered, ...(item.number !== undefined ? { number: item.number } : {}), ...(item.format ? { format: item.format } : {}) };
    if (item.letterSync) entry.letterSync = true;
    if (item.label !== undefined) entry.label = item.label;
    const list = this.list;
    const last = this.blocks[this.blocks.length - 1];
    const restarted = item.number !== undefined && list?.top !== undefined && item.number <= list.top;
    const top = item.depth === 0;
    if (list && last === list.block && (!top || (list.id === item.list && list.block.ordered === item.ordered && !restarted))) list.block.items.push(entry);
    else {
      const block: Block & { kind: "list" } = { kind: "list", ordered: item.ordered, items: [entry] };
      this.blocks.push(block);
      this.list = { block, id: item.list };
    }
    if (top) this.list!.top = item.number;
  }

  /** `\cell`: the text read since the paragraph began (after its list `marker`, if any) ends the cell being read. */
  endCell(marker = ""): void {
    if (!this.spend(CELL_SEPARATOR_CHARS)) return;
    joinCell(this.cell, this.take(marker));
    this.row.push(this.cell);
    this.cell = [];
  }

  /** `\row`: the row being read ends, with the text read since its last cell (a cell begun and never ended counts). */
  endRow(marker = ""): void {
    joinCell(this.cell, this.take(marker));
    this.closeRow();
  }

  /** The story ends: its last paragraph (shaped by `shape`), and a table it ends in (in a cell: the text is the row's). */
  end(shape: ParagraphShape = {}): void {
    if (shape.inTable) this.endRow(shape.marker);
    this.endParagraph(shape.inTable ? {} : shape);
    this.blocks.push(...this.pending.splice(0));
  }

  /**
   * The story as paragraphs, what a note lists (note-labels.ts): headings and list items are paragraphs, and a table
   * row is one paragraph, its cells joined with a space.
   */
  get paragraphs(): Inline[][] {
    return this.blocks.flatMap((b) => {
      if (b.kind === "table") return b.rows.map((row) => row.reduce<Inline[]>((all, cell) => (joinCell(all, cell), all), []));
      if (b.kind === "list") return b.items.map((i) => i.content);
      if (b.kind === "code") return b.text.split("\n").map((line) => [{ text: line }]);
      return b.kind === "heading" || b.kind === "paragraph" || b.kind === "quote" ? [b.content] : [];
    });
  }

  /** Ends the table being read, if any, as a block (the paragraph's text was taken by the caller). */
  private endTable(): void {
    this.closeRow();
    if (this.rows.length > 0) this.blocks.push({ kind: "table", rows: this.rows });
    this.rows = [];
  }

  /** The row being read, if it has any cell, joins the table's rows. */
  private closeRow(): void {
    if (this.cell.length > 0) this.row.push(this.cell);
    if (this.row.length > 0) this.rows.push(this.row);
    this.row = [];
    this.cell = [];
  }

  /** The paragraph read so far as spans (see finish), after `marker` when one is given, taken out of the story. */
  private take(marker = ""): Inline[] {
    this.flush();
    const parts = this.parts!;
    this.parts = undefined;
    return this.finished(parts, marker);
  }

  /** `parts` as spans (see finish), after `marker` when one is given. */
  private finished(parts: Inline[], marker = ""): Inline[] {
    const mark = marker.trim();
    return finish(mark ? [{ text: `${mark} ` }, ...parts] : parts);
  }

  /** Moves the text read so far into the paragraph's spans, as one span with its link. */
  private flush(): void {
    let text = this.text;
    if (this.leadingMark && /\S/.test(text)) {
      // A note's own mark opens its first paragraph with text.
      const start = text.length - text.trimStart().length;
      if (text.startsWith(this.leadingMark, start)) {
        text = text.slice(start + this.leadingMark.length);
        this.markConfirmed = true;
      }
      this.leadingMark = "";
    }
    const part: Inline = this.href === undefined ? { text } : { text, href: this.href };
    const marks = this.marks;
    if (marks?.bold) part.bold = true;
    if (marks?.italic) part.italic = true;
    if (marks?.strike) part.strike = true;
    if (marks?.code) part.code = true;
    (this.parts ??= []).push(part);
    this.text = "";
    this.markFrom = -1;
    this.linkCharged = false;
  }
}
