/**
 * @module documents/office/rtf-fields
 * An RTF reader's fields (rtf.ts), so a hyperlink keeps its target as a DOC's does: a field is
 * `{\field{\*\fldinst HYPERLINK "url"}{\fldrslt text}}`; its instruction is code, never text, and its result is the
 * text shown, linked when the instruction is a HYPERLINK to a web or mail address (inline-runs.ts
 * `hyperlinkTarget`). Fields nest (a HYPERLINK inside an IF): each open field remembers the link its result
 * belongs to, its own or the enclosing field's, so a result is linked in one lookup.
 *
 * Depth-keyed like the reader's other state: a field, its instruction and its result each end with the group
 * that opened them. At most {@link MAX_FIELD_DEPTH} fields are open at once; one nested deeper is read as plain
 * groups (its instruction skipped, its result shown unlinked), so a hostile file's million nested fields cost
 * a counter, not a stack.
 */
import { hyperlinkTarget, MAX_FIELD_CODE_CHARS } from "./inline-runs.ts";

/** Deepest field nesting kept, as a DOC's (doc.ts). */
export const MAX_FIELD_DEPTH = 64;

interface OpenField {
  /** The depth of the group that holds `\field`. */
  depth: number;
  /** The link in force around the field: what its result gets without a link of its own, and after it. */
  outer: string | undefined;
  /** The instruction's text, once read. */
  code: string;
  /** Where this field's result is linked (its own HYPERLINK, else `outer`). */
  href: string | undefined;
  /** The depth of its result's group while it is read, else -1. */
  resultDepth: number;
}

/** The fields open at a point of an RTF file, and the link the text there belongs to. */
export class RtfFields {
  private readonly open: OpenField[] = [];
  /** Depth of the instruction group being read, or -1. */
  private instructionDepth = -1;
  /** The link of the text being read, if any. */
  href: string | undefined;

  /** `\field` in a group at `depth`; false when the nesting is past {@link MAX_FIELD_DEPTH} (the field is not kept). */
  field(depth: number): boolean {
    if (this.open.length >= MAX_FIELD_DEPTH || this.instructionDepth >= 0) return false;
    if (this.open[this.open.length - 1]?.depth === depth) return false; // `\field` twice in one group: one field
    this.open.push({ depth, outer: this.href, code: "", href: this.href, resultDepth: -1 });
    return true;
  }

  /**
   * `\fldinst` in a group at `depth`: true when it is the instruction of the innermost open field, in a group right
   * inside the field's (its text is then taken by {@link code}); false for one outside a kept field (past
   * {@link MAX_FIELD_DEPTH}, or none), which the reader skips as an unknown destination.
   */
  instruction(depth: number): boolean {
    const top = this.open[this.open.length - 1];
    if (!top || depth !== top.depth + 1 || this.instructionDepth >= 0 || top.resultDepth >= 0) return false;
    this.instructionDepth = depth;
    return true;
  }

  /** Whether text now belongs to an instruction (and was taken): it is never shown. */
  code(s: string): boolean {
    if (this.instructionDepth < 0) return false;
    const top = this.open[this.open.length - 1]!;
    if (top.code.length < MAX_FIELD_CODE_CHARS) top.code += s.slice(0, MAX_FIELD_CODE_CHARS - top.code.length);
    return true;
  }

  /**
   * `\fldrslt` in a group at `depth`: the text after it is the innermost field's result, linked where its
   * instruction says (the story charges the target to the text budget for each span it prints, rtf-story.ts).
   */
  result(depth: number): void {
    const top = this.open[this.open.length - 1];
    if (!top || depth !== top.depth + 1 || this.instructionDepth >= 0 || top.resultDepth >= 0) return;
    top.resultDepth = depth;
    this.href = top.href;
  }

  /** A group at `depth` ends: an instruction is read to its end; a result, or a field, ends with its group. */
  close(depth: number): void {
    const top = this.open[this.open.length - 1];
    if (!top) return;
    if (depth === this.instructionDepth) {
      this.instructionDepth = -1;
      top.href = hyperlinkTarget(top.code) ?? top.outer;
    } else if (depth === top.resultDepth) {
      top.resultDepth = -1;
      this.href = top.outer;
    } else if (depth === top.depth) {
      this.open.pop();
      this.href = top.outer;
    }
  }
}
