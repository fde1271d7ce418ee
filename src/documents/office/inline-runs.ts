/**
 * @module documents/office/inline-runs
 * Collects the text runs of one paragraph of an office document into inline spans: consecutive runs with the
 * same link merge into one span, and the paragraph's outer whitespace is trimmed. DOCX, ODT and DOC hand their text
 * here, so the converters build paragraphs the same way, and count it in one place against the document's
 * {@link TextBudget} (text-budget.ts): each run's text, and each span's link target, which the markdown prints with
 * it (`[x](target)`: a thousand one-letter links to a 50 KB target are 50 MB).
 */
import type { Inline, Marks } from "../layout/model.ts";
import type { TextBudget } from "./text-budget.ts";

/** A HYPERLINK field's code (`HYPERLINK "url"`, or `HYPERLINK \l "url"`) as DOC and RTF write it. */
const HYPERLINK_FIELD = /^\s*HYPERLINK\s+(?:\\l\s+)?"([^"]+)"/i;

/**
 * Where a field whose code is `code` links (DOC and RTF fields): the URL of a HYPERLINK to a web, mail or FTP address;
 * undefined for any other field, and for a link inside the document (a bookmark) or to a local file, which a reader
 * of the markdown cannot follow.
 */
export function hyperlinkTarget(code: string): string | undefined {
  const url = HYPERLINK_FIELD.exec(code)?.[1];
  return url && /^(https?|mailto|ftp):/i.test(url) ? url : undefined;
}

/** Accumulates inline spans; `push` text as it is found, then take `spans()`. */
export class InlineRuns {
  private readonly out: Inline[] = [];

  /** Runs counted against `budget` (the document's), when given: past it, text is left out. */
  constructor(private readonly budget?: TextBudget) {}

  /** Adds `text` (linked to `href`, if any, with `marks`) after what came before. */
  push(text: string, href?: string, marks?: Marks): void {
    if (!text) return;
    const last = this.out[this.out.length - 1];
    const joins = last !== undefined && last.href === href && last.note === undefined && !last.lineBreak && sameMarks(last, marks);
    if (this.budget) {
      // A new linked span prints its target once; a run joining the span before it does not print it again.
      if (href && !joins && !this.budget.spend(href.length)) return;
      text = this.budget.take(text);
      if (!text) return;
    }
    if (joins) last.text += text;
    else this.out.push({ text, ...(href ? { href } : {}), ...ownMarks(marks) });
  }

  /** Adds a hard line break (a `<w:br/>`, `<text:line-break/>`, `\line`). */
  lineBreak(): void {
    if (this.budget && !this.budget.spend(1)) return;
    this.out.push({ text: "", lineBreak: true });
  }

  /** Adds a reference to the note labelled `label` (a span of its own: text after it does not join it). */
  note(label: string): void {
    if (this.budget && !this.budget.spend(label.length)) return;
    this.out.push({ text: label, note: label });
  }

  /**
   * The spans, empty ones dropped, outer whitespace and line breaks trimmed, and the blanks around a line break
   * (which would print as the break's own indent or trailing spaces).
   */
  spans(): Inline[] {
    return trimmedAtBreaks(this.out);
  }
}

/**
 * `spans` without line breaks at either end, with the blanks at the paragraph's edges and around each line break
 * trimmed (they would print as the break's indent or trailing spaces), and empty spans dropped. Modifies the spans'
 * text. Shared by the readers that build inline spans themselves (rtf-spans.ts).
 */
export function trimmedAtBreaks(spans: Inline[]): Inline[] {
  let from = 0;
  let to = spans.length;
  while (from < to && spans[from]!.lineBreak) from++;
  while (to > from && spans[to - 1]!.lineBreak) to--;
  const kept = spans.slice(from, to);
  kept.forEach((span, i) => {
    if (i === 0 || kept[i - 1]!.lineBreak) span.text = span.text.trimStart();
    if (i === kept.length - 1 || kept[i + 1]!.lineBreak) span.text = span.text.trimEnd();
  });
  return kept.filter((i) => i.text.length > 0 || i.lineBreak);
}

/** The marks that are set, as an inline's own fields. */
function ownMarks(marks: Marks | undefined): Marks {
  if (!marks) return {};
  const out: Marks = {};
  if (marks.bold) out.bold = true;
  if (marks.italic) out.italic = true;
  if (marks.strike) out.strike = true;
  if (marks.code) out.code = true;
  return out;
}

/** Whether spans with marks `a` and `b` look the same (an absent mark is an unset one). */
export function sameMarks(a: Marks | undefined, b: Marks | undefined): boolean {
  return !!a?.bold === !!b?.bold && !!a?.italic === !!b?.italic && !!a?.strike === !!b?.strike && !!a?.code === !!b?.code;
}
