/**
 * @module documents/office/note-labels
 * Footnotes and endnotes of a word-processing document, as DOCX (docx.ts), DOC (doc-notes.ts), ODT (odt.ts) and RTF
 * (rtf.ts) give them: each note is labelled 1, 2, … in the order the text first refers to it (as a reader meets
 * them; endnotes numbered on from the footnotes, in one sequence), and the notes referred to are listed at the
 * document's end as one `notes` block (GFM `[^1]: text` in markdown, a `<section class="footnotes">` in html;
 * layout/render.ts). Kept in one place so every format labels and lists notes the same way; each format only says
 * how it finds a note and reads its paragraphs.
 */
import type { Block, Inline } from "../layout/model.ts";

/**
 * Most notes one document lists. A note costs its reference and its definition in the markdown and a linked
 * superscript and a list item in the HTML (about 100 characters), while the text budget counts only its label and
 * text: a 13 MB RTF of a million one-letter notes made 106 million characters of markdown and HTML, 1.6 GB of
 * memory, in 3.3 s. A long book has a few thousand notes. Past this, a reference leaves nothing and its note is not
 * listed (as a reference to a note the file does not have).
 */
export const MAX_NOTES = 100_000;

/** Labels notes of type `T` (however a format holds one) as the text refers to them, and lists them. */
export class NoteLabels<T> {
  private readonly labels = new Map<string, string>();
  private readonly referenced: { label: string; note: T }[] = [];

  /**
   * The label of the note `key` names (a format's own id: `footnote:2`), given on its first reference; `note` is
   * that note, undefined when the document has none by that key (the reference then leaves nothing, no dangling
   * `[^n]`).
   */
  label(key: string, note: T | undefined): string | undefined {
    const known = this.labels.get(key);
    if (known) return known;
    if (note === undefined || this.full) return undefined;
    const label = String(this.referenced.length + 1);
    this.labels.set(key, label);
    this.referenced.push({ label, note });
    return label;
  }

  /** Whether {@link MAX_NOTES} notes are labelled: no other note will be (a format may skip reading their text). */
  get full(): boolean {
    return this.referenced.length >= MAX_NOTES;
  }

  /**
   * The `notes` block listing every note referred to, in label order, or undefined when the text referred to none.
   * `paragraphs` gives a note's paragraphs as spans (counted against the document's text budget where the format
   * reads them); a `[^n]:` definition is one line, so they are joined with a space.
   */
  block(paragraphs: (note: T) => Iterable<Inline[]>): Block | undefined {
    if (this.referenced.length === 0) return undefined;
    const notes = this.referenced.map(({ label, note }) => {
      const content: Inline[] = [];
      for (const p of paragraphs(note)) {
        if (p.length && content.length) content.push({ text: " " });
        for (const span of p) content.push(span); // not push(...p): a paragraph of a million spans passes the argument limit
      }
      return { label, content };
    });
    return { kind: "notes", notes };
  }
}
