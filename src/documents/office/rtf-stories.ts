/**
 * @module documents/office/rtf-stories
 * Which story an RTF reader's (rtf.ts) text goes to: the body's, a footnote's or endnote's, or a text box's
 * (rtf-story.ts collects each). A note is a `{\footnote …}` group standing where the text refers to it: its text is
 * the note's until the group ends, and the body gets the note's reference (`[^n]`, labelled by note-labels.ts as a
 * DOCX's are). A text box (`{\shptxt …}`, `{\dptxbxtext …}`) is a story of its own whose paragraphs follow the body's
 * paragraph anchoring it. Either keeps the body's list marker aside while it is read (its own paragraphs end without
 * ending the body's item). A note inside a note (RTF allows none), one in a text box, and one past the notes a
 * document lists are skipped; so is a text box in a note or in a text box.
 */
import type { Block } from "../layout/model.ts";
import { NoteLabels } from "./note-labels.ts";
import type { RtfFields } from "./rtf-fields.ts";
import type { RtfParagraphState } from "./rtf-paragraph-state.ts";
import { type ParagraphShape, RtfStory } from "./rtf-story.ts";
import type { TextBudget } from "./text-budget.ts";

/** The stories of one RTF document, and the one being read. */
export class RtfStories {
  readonly body: RtfStory;
  private readonly labels = new NoteLabels<RtfStory>();
  private readonly spend: (chars: number) => boolean;
  /** The note being read and the depth of its group, or undefined: text goes to it, not to the body. */
  private note: RtfStory | undefined;
  private noteDepth = -1;
  /** The open note's label in the body (undefined: it has none, past the text budget). */
  private noteLabel: string | undefined;
  private notesRead = 0;
  /** The link the body was in when its note began: a note inside a link's result is not part of the link. */
  private noteOuterHref: string | undefined;
  /** The text box being read and the depth of its group, or undefined. */
  private box: RtfStory | undefined;
  private boxDepth = -1;
  /** The body paragraph's list marker, kept aside while a note or a text box is read. */
  private bodyMarker = "";

  constructor(
    private readonly budget: TextBudget,
    private readonly paragraph: RtfParagraphState,
    private readonly fields: RtfFields,
  ) {
    this.spend = (chars) => budget.spend(chars);
    this.body = new RtfStory("", this.spend);
  }

  /** The story text goes to: a note's, a text box's, or the body's. */
  get current(): RtfStory {
    return this.note ?? this.box ?? this.body;
  }

  /** Whether a note is being read (its paragraphs are plain: note-labels.ts lists them as text). */
  get inNote(): boolean {
    return this.note !== undefined;
  }

  /** The link text read now belongs to: in a note, only a link opened in the note. */
  get href(): string | undefined {
    return this.note && this.fields.href === this.noteOuterHref ? undefined : this.fields.href;
  }

  /** `\shptxt` or `\dptxbxtext` opening a group at `depth`: a text box, unless one or a note is being read. */
  startBox(depth: number): void {
    if (this.note || this.box) return;
    this.box = new RtfStory("", this.spend);
    this.boxDepth = depth;
    this.keepMarker();
  }

  /** `\footnote` in a group at `depth`: a note, or false when the group is to be skipped (see the module). */
  startNote(depth: number): boolean {
    if (this.note || this.box || this.labels.full) return false;
    const story = new RtfStory(this.body.takeMark(), this.spend);
    this.noteOuterHref = this.fields.href;
    this.keepMarker();
    const label = this.labels.label(`note:${this.notesRead++}`, story);
    this.noteLabel = label && this.budget.spend(label.length) ? label : undefined;
    if (this.noteLabel) this.body.note(this.noteLabel);
    this.note = story;
    this.noteDepth = depth;
    return true;
  }

  /** A group at `depth` ends: a text box's, or a note's, ends with it. */
  close(depth: number): void {
    if (this.box && this.boxDepth === depth) {
      this.box.end();
      this.body.follow(this.box.blocks);
      this.box = undefined;
      this.paragraph.marker = this.bodyMarker;
    }
    if (this.note && this.noteDepth === depth) {
      this.note.end();
      // Superscript taken as its mark that the note did not begin with was the body's text: it goes back.
      if (this.noteLabel) this.body.giveBack(this.noteLabel, this.note.unclaimedMark);
      this.note = undefined;
      this.paragraph.marker = this.bodyMarker;
    }
  }

  /** The file ends (in a note or a text box, perhaps): the body's blocks, then its notes. */
  end(shape: ParagraphShape): Block[] {
    if (this.note) this.note.end();
    if (this.box) this.body.follow((this.box.end(), this.box.blocks));
    this.body.end(this.note || this.box ? {} : shape);
    const blocks: Block[] = [...this.body.blocks];
    const notes = this.labels.block((story) => story.paragraphs);
    if (notes) blocks.push(notes);
    return blocks;
  }

  private keepMarker(): void {
    this.bodyMarker = this.paragraph.marker;
    this.paragraph.marker = "";
  }
}
