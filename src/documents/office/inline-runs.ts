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

/**
 * Longest field instruction (code) kept, in every format with fields (DOCX, DOC, RTF): a HYPERLINK's is its address
 * and switches; the rest of a longer one is dropped. Uncapped, a DOCX's 28 MB HYPERLINK code cost 310 MB.
 */
export const MAX_FIELD_CODE_CHARS = 2048;

/** A HYPERLINK field's code: the field name, then its arguments (quoted or not) and switches. */
const HYPERLINK_FIELD = /^\s*HYPERLINK(?=\s|"|$)/i;
/**
 * A field argument: a quoted string (its quotes dropped later; `\"` and `\\` inside are a quote and a backslash, as
 * Word writes them) or a word. A quote never closed is no address.
 */
const FIELD_ARGUMENT = /"(?:[^"\\]|\\.)*"|\S+/g;
/** Typographic double quotes: Word reads them as a field's quotes, and RTF writes them so (`\ldblquote`). */
const CURLY_QUOTES = /[\u201c\u201d\u201e]/g;
/** The HYPERLINK switches that take an argument (ECMA-376 §17.16.5.25): `\o` a tooltip, `\t` a target frame. */
const SWITCH_WITH_ARGUMENT = /^\\[ot]$/i;
/** The link schemes a reader of the markdown can follow. */
const LINKABLE = /^(https?|mailto|ftp):/i;

/**
 * Where a field whose code is `code` links (DOCX, DOC and RTF fields): the URL of a HYPERLINK to a web, mail or FTP
 * address, with the place in it `\l` names as its fragment (`HYPERLINK "https://example.com/page" \l "sec"` is
 * `https://example.com/page#sec`: Word writes a link's fragment so). Undefined for any other field, and for a link
 * to a place in the document itself (`\l` alone, a bookmark) or to a local file, which a reader of the markdown
 * cannot follow.
 */
export function hyperlinkTarget(code: string): string | undefined {
  code = code.slice(0, MAX_FIELD_CODE_CHARS);
  const name = HYPERLINK_FIELD.exec(code);
  if (!name) return undefined;
  const args = code.slice(name[0].length).replace(CURLY_QUOTES, '"').match(FIELD_ARGUMENT) ?? [];
  const unquote = (arg: string | undefined) => (arg && arg.length >= 2 && arg.startsWith('"') && arg.endsWith('"') ? arg.slice(1, -1).replace(/\\(["\\])/g, "$1") : arg);
  let url: string | undefined;
  let location: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (/^\\l$/i.test(arg)) location = unquote(args[++i]);
    else if (SWITCH_WITH_ARGUMENT.test(arg)) i++;
    else if (!arg.startsWith("\\") && url === undefined) url = unquote(arg);
  }
  // `HYPERLINK \l "https://…"` (DOC and RTF writers put a web address there too) links to it.
  if (url === undefined) return location && LINKABLE.test(location) ? encodeBlanks(location) : undefined;
  if (!LINKABLE.test(url)) return undefined;
  return encodeBlanks(location && !url.includes("#") ? `${url}#${location}` : url);
}

/** An address with its blanks percent-encoded (`\l "a b"` is `#a%20b`): a blank ends a markdown link's target. */
function encodeBlanks(address: string): string {
  return address.replace(/\s/g, (blank) => encodeURIComponent(blank));
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
