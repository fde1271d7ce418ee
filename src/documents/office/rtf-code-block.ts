/**
 * @module documents/office/rtf-code-block
 * A listing's lines as one code block, as the RTF and DOC readers meet them (rtf-story.ts, doc-blocks.ts): each
 * paragraph of a code style (or all in a monospace font) is a line of the code block right before it, or begins
 * one. An empty such paragraph is a blank line of the listing when more of it follows (not at its end), so
 * `x = 1`, an empty line, `y = 2` stay apart as written.
 */
import type { Block } from "../layout/model.ts";

/** Joins consecutive lines of code into the code block they belong to, in a story's `blocks`. */
export class CodeLines {
  /** The code block lines join (while it is the last block), and the blank lines met since its last line. */
  private code: { block: Block & { kind: "code" }; blank: number } | undefined;

  /** `spend` charges the document's text budget for blank lines (their text was charged as it was read). */
  constructor(
    private readonly blocks: Block[],
    private readonly spend: (chars: number) => boolean,
  ) {}

  /** A line of code (its indentation kept): joined to the code block before it, else a new block; "" a blank line. */
  add(line: string): void {
    const code = this.code;
    const joins = code !== undefined && this.blocks[this.blocks.length - 1] === code.block;
    if (!line) {
      if (joins) code.blank++;
    } else if (joins) {
      // Blank lines are counted as the text is (a million empty code paragraphs are a million characters).
      code.block.text += "\n".repeat(this.spend(code.blank) ? code.blank + 1 : 1) + line;
      code.blank = 0;
    } else {
      const block: Block & { kind: "code" } = { kind: "code", text: line };
      this.blocks.push(block);
      this.code = { block, blank: 0 };
    }
  }
}
