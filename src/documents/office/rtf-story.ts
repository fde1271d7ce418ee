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
import type { Block, Inline } from "../layout/model.ts";

/** Longest custom mark taken for one (Word allows 10 characters); longer superscript text stays text. */
export const MAX_CUSTOM_MARK_CHARS = 10;

/** Characters that are never text: C0 controls (tab, CR and LF are handled before), DEL and C1 controls. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** A paragraph's collected text as spans: control characters dropped, whitespace runs one space, outer space trimmed. */
function finish(parts: Inline[]): Inline[] {
  let spaced = false; // whether the text before ends with a space (one space where spans meet, as within one)
  for (const p of parts) {
    if (p.note !== undefined) {
      spaced = false;
      continue;
    }
    p.text = p.text.replace(CONTROL, "").replace(/\s+/g, " ");
    if (spaced && p.text.startsWith(" ")) p.text = p.text.slice(1);
    if (p.text) spaced = p.text.endsWith(" ");
  }
  // Empty spans (a link whose text the budget cut) go first, so the outer spaces trimmed are the text's own.
  const kept = parts.filter((p) => p.text.length > 0);
  if (kept.length > 0) {
    kept[0]!.text = kept[0]!.text.trimStart();
    kept[kept.length - 1]!.text = kept[kept.length - 1]!.text.trimEnd();
  }
  return kept.filter((p) => p.text.length > 0);
}

/** What a table cell costs the text budget besides its text: its separator, ` | ` (a table of empty cells is not free). */
const CELL_SEPARATOR_CHARS = 3;

/** Appends a cell's paragraph `add` to the cell `into`, a space between it and the one before. */
function joinCell(into: Inline[], add: Inline[]): void {
  if (add.length === 0) return;
  if (into.length > 0) into.push({ text: " " });
  into.push(...add);
}

/** How a paragraph ends (rtf-paragraph-state.ts): a heading's level, in a table, a list item and its marker. */
export interface ParagraphShape {
  level?: number;
  inTable?: boolean;
  item?: { depth: number; ordered: boolean };
  marker?: string;
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
  }

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
   * the link it belongs to. A change of link starts a new span (and ends any mark: a mark is not split by a link).
   */
  add(s: string, superscript: boolean, href?: string): void {
    if (!s) return;
    if (href !== this.href) {
      this.flush();
      this.href = href;
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

  /**
   * Ends the current paragraph (kept when it has any text or reference), shaped as `shape` says: a heading; a list
   * item (joined to the list before it when that is numbered alike, as a DOC's are); in a table's cell (a cell's
   * paragraphs are joined with a space). A heading or a cell keeps its list marker as text (a numbered heading's
   * `1.2`); a list item's is the list's. A paragraph outside a table ends the table before it.
   */
  endParagraph(shape: ParagraphShape = {}): void {
    const item = shape.item;
    const content = this.take(item && !shape.inTable && !shape.level ? "" : shape.marker);
    if (shape.inTable) return joinCell(this.cell, content);
    this.endTable();
    if (content.length === 0) return;
    if (shape.level) return void this.blocks.push({ kind: "heading", level: shape.level, content });
    if (!item) return void this.blocks.push({ kind: "paragraph", content });
    const last = this.blocks[this.blocks.length - 1];
    const entry = { depth: item.depth, content };
    if (last?.kind === "list" && last.ordered === item.ordered) last.items.push(entry);
    else this.blocks.push({ kind: "list", ordered: item.ordered, items: [entry] });
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
  }

  /**
   * The story as paragraphs, what a note lists (note-labels.ts): headings and list items are paragraphs, and a table
   * row is one paragraph, its cells joined with a space.
   */
  get paragraphs(): Inline[][] {
    return this.blocks.flatMap((b) => {
      if (b.kind === "table") return b.rows.map((row) => row.reduce<Inline[]>((all, cell) => (joinCell(all, cell), all), []));
      if (b.kind === "list") return b.items.map((i) => i.content);
      return b.kind === "heading" || b.kind === "paragraph" ? [b.content] : [];
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
    const mark = marker.trim();
    const content = finish(mark ? [{ text: `${mark} ` }, ...this.parts!] : this.parts!);
    this.parts = undefined;
    return content;
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
    (this.parts ??= []).push(this.href === undefined ? { text } : { text, href: this.href });
    this.text = "";
    this.markFrom = -1;
    this.linkCharged = false;
  }
}
