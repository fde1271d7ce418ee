/**
 * @module documents/office/doc-inline
 * One paragraph of a Word 97–2003 document as what the markdown is made of: its text with fields resolved (a
 * field's code dropped, its result kept, linked when the code is a HYPERLINK), note references, hard line breaks
 * (0x0B), and its characters' formatting (doc-characters.ts): deleted and hidden text left out, the rest marked.
 * As inline spans (inlineOf), or as a line of a code block with its indentation kept (codeLineOf).
 */
import type { Inline } from "../layout/model.ts";
import { HIDDEN, MARK_FLAGS, MARKS } from "./doc-characters.ts";
import type { NoteRefs } from "./doc-notes.ts";
import { hyperlinkTarget, InlineRuns, MAX_FIELD_CODE_CHARS } from "./inline-runs.ts";
import type { TextBudget } from "./text-budget.ts";

const FIELD_BEGIN = 0x13;
const FIELD_SEPARATOR = 0x14;
const FIELD_END = 0x15;

/** Deepest field nesting kept (real documents nest a few: a HYPERLINK inside an IF). */
const MAX_FIELD_DEPTH = 64;

/** Characters that stand for something else in a paragraph's text: tabs and special hyphens and spaces. */
const REPLACE: Record<string, string> = { "\x09": " ", "\x1e": "-", "\x1f": "", "\xa0": " " };

/** What REPLACE maps, and the other control characters, which are never text (a picture's 0x01, an anchor's 0x08). */
const SPECIAL = /[\x00-\x1f\xa0]/g;
/** The same in a line of code, where a tab stays one. */
const SPECIAL_IN_CODE = /[\x00-\x08\x0a-\x1f\xa0]/g;
const replaced = (ch: string) => REPLACE[ch] ?? "";

/** A hard line break (Shift+Enter): a new line in the paragraph. */
const LINE_BREAK = 0x0b;

/**
 * Where a paragraph's characters go, fields resolved: runs of text with one link and one set of flags
 * (doc-characters.ts), as written (control characters still in them), a note, a break.
 */
interface ParagraphSink {
  text(run: string, href: string | undefined, flags: number): void;
  note(label: string): void;
  lineBreak(): void;
}

/**
 * Walks one paragraph's text into `sink`, fields resolved: a field's code (between its begin and separator marks)
 * is dropped and its result kept, linked when the code is `HYPERLINK "url"`. Fields nest. With `flags` (one per
 * character, doc-characters.ts), a deleted or hidden character is left out (a field's marks and code still count:
 * they pair up). With `notes`, the character at a note reference's CP (the paragraph starts at body CP `firstCp`)
 * becomes a reference to the note's label.
 */
function walk(text: string, sink: ParagraphSink, notes?: NoteRefs, firstCp = 0, flags?: Uint8Array): void {
  // Each open field knows the link its result belongs to (its own, or the enclosing field's): one lookup per
  // character, where searching the stack for it made nested fields quadratic (20,000 of them: 2 s for 68 KB).
  const stack: { inCode: boolean; code: string; href?: string }[] = [];
  // Fields nested deeper than MAX_FIELD_DEPTH are counted, not kept (their marks still pair up).
  let beyond = 0;
  // The run of text being collected, [runFrom, runTo) of `text`: its characters are consecutive and share a link and
  // flags (one call and one slice for it, not one a character).
  let runFrom = 0;
  let runTo = 0;
  let runHref: string | undefined;
  let runFlags = 0;
  const flush = () => {
    if (runTo > runFrom) sink.text(text.slice(runFrom, runTo), runHref, runFlags);
    runFrom = runTo = 0;
  };
  // By UTF-16 unit, not code point: a CP is one unit, and note references are found by CP.
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    const top = stack[stack.length - 1];
    if (code === FIELD_BEGIN) {
      if (stack.length >= MAX_FIELD_DEPTH) beyond++;
      else stack.push({ inCode: true, code: "", ...(top?.href ? { href: top.href } : {}) });
    } else if (code === FIELD_SEPARATOR && top) {
      if (beyond > 0) continue;
      top.inCode = false;
      const href = hyperlinkTarget(top.code);
      if (href) top.href = href;
    } else if (code === FIELD_END && top) {
      if (beyond > 0) beyond--;
      else stack.pop();
    } else if (top?.inCode) {
      if (top.code.length < MAX_FIELD_CODE_CHARS) top.code += text[k]!;
    } else {
      const f = flags ? flags[k]! : 0;
      if (f & HIDDEN) continue;
      const label = notes?.at(firstCp + k);
      if (label !== undefined || code === LINE_BREAK) {
        flush();
        if (label !== undefined) sink.note(label);
        else sink.lineBreak();
        continue;
      }
      const href = top?.href;
      if (k !== runTo || href !== runHref || f !== runFlags) {
        flush();
        runFrom = k;
        runHref = href;
        runFlags = f;
      }
      runTo = k + 1;
    }
  }
  flush();
}

/**
 * One paragraph's text as inline spans (see walk), marked as `flags` say, a line break (0x0B) a hard break.
 * Counted against the document's text `budget` when given (text-budget.ts).
 */
export function inlineOf(text: string, budget?: TextBudget, notes?: NoteRefs, firstCp = 0, flags?: Uint8Array): Inline[] {
  const runs = new InlineRuns(budget);
  walk(
    text,
    {
      text: (text, href, f) => runs.push(text.replace(SPECIAL, replaced), href, MARKS[f & MARK_FLAGS]),
      note: (label) => runs.note(label),
      lineBreak: () => runs.lineBreak(),
    },
    notes,
    firstCp,
    flags,
  );
  return runs.spans();
}

/**
 * One paragraph's text as a line of a code block (see walk): its indentation and tabs kept, a line break a new
 * line, trailing blanks dropped; not counted against the budget (the caller does, or already did for its spans).
 */
export function codeLineOf(text: string, flags?: Uint8Array): string {
  let line = "";
  walk(text, { text: (t) => (line += t.replace(SPECIAL_IN_CODE, replaced)), note: () => {}, lineBreak: () => (line += "\n") }, undefined, 0, flags);
  return line.replace(/\s+$/, "");
}
