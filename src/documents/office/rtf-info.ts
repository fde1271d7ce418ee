/**
 * @module documents/office/rtf-info
 * The title of an RTF document, from its information group: `{\info{\title Annual Report}{\author …}…}`. It is the
 * document's own title (as a DOCX's core.xml title and a DOC's summary information are), where without it the
 * first heading stands for one. The other entries (author, dates, statistics) are skipped, their text never the
 * document's.
 */

/** Longest title kept (the converter cuts a title to MAX_TITLE_CHARS; this only bounds what is collected). */
const MAX_TITLE_CHARS = 4096;

/** `\title` as the word that opens a group of the information group. */
const TITLE_WORD = /\\title(?![a-zA-Z])/y;

/** Reads an RTF's `{\info}` group as the reader meets it (rtf.ts). */
export class RtfInfo {
  /** Depth of the `{\info}` group being read, or -1. */
  private depth = -1;
  /** Depth of its `{\title}` group being read, or -1. */
  private titleDepth = -1;
  private text = "";

  /** Whether the information group is being read: its control words mean nothing to the document's text. */
  get reading(): boolean {
    return this.depth >= 0;
  }

  /** The title, whitespace runs made one space; undefined when the document gives none. */
  get title(): string | undefined {
    const title = this.text.replace(/\s+/g, " ").trim();
    return title || undefined;
  }

  /** `\info` opening a group at `depth`. */
  open(depth: number): void {
    if (this.depth < 0) this.depth = depth;
  }

  /**
   * A group opens at `depth`, its first word at `at` in `src`: true when the group is an entry of the information
   * group other than the title, for the reader to skip.
   */
  skips(src: string, at: number, depth: number): boolean {
    if (this.depth < 0 || depth !== this.depth + 1) return false;
    TITLE_WORD.lastIndex = at;
    if (this.titleDepth >= 0 || !TITLE_WORD.test(src)) return true;
    this.titleDepth = depth;
    return false;
  }

  /** Whether `s` is the information group's text (the title's, kept), and so never the document's. */
  take(s: string): boolean {
    if (this.depth < 0) return false;
    if (this.titleDepth >= 0 && this.text.length < MAX_TITLE_CHARS) this.text += s.slice(0, MAX_TITLE_CHARS - this.text.length);
    return true;
  }

  /** A group at `depth` ends: the title, or the information group. */
  close(depth: number): void {
    if (depth === this.titleDepth) this.titleDepth = -1;
    if (depth === this.depth) this.depth = -1;
  }
}
