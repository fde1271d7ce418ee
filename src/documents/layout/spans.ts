/**
 * @module documents/layout/spans
 * Text with its links placed by offset, as lines are joined into cells, rows, paragraphs and headings. A link keeps
 * the place its characters had on the page: looked up by its text in the joined paragraph, a link went to the
 * first occurrence of that text (the wrong "the" of a sentence, or the other of two "Portal" links).
 */
import type { Inline, LineLink } from "./model.ts";

/** A link over `text.slice(start, end)`. */
export interface PlacedLink {
  start: number;
  end: number;
  uri: string;
}

/** Text and the links placed in it. */
export interface Span {
  text: string;
  links: PlacedLink[];
}

/**
 * The span of one line: each link at the offset its characters gave (documents/pdf/extract.ts), else where its
 * text next occurs in the line after the link before it.
 */
export function lineSpan(text: string, links: LineLink[] | undefined): Span {
  const placed: PlacedLink[] = [];
  let cursor = 0;
  for (const link of links ?? []) {
    const t = link.text.trim();
    if (!t) continue;
    let at = link.start !== undefined && text.startsWith(t, link.start) ? link.start : text.indexOf(t, cursor);
    if (at < 0) at = text.indexOf(t);
    if (at < 0) continue;
    placed.push({ start: at, end: at + t.length, uri: link.uri });
    cursor = at + t.length;
  }
  return { text, links: placed };
}

/** Links of `links` moved by `shift` and cut to [from, to) of the text they were in (those left empty dropped). */
function moved(links: PlacedLink[], from: number, to: number, shift: number): PlacedLink[] {
  const out: PlacedLink[] = [];
  for (const l of links) {
    const start = Math.max(l.start, from);
    const end = Math.min(l.end, to);
    if (end > start) out.push({ start: start + shift, end: end + shift, uri: l.uri });
  }
  return out;
}

/** `span` without its leading and trailing blanks. */
export function trimSpan(span: Span): Span {
  const text = span.text.trim();
  if (text.length === span.text.length) return span;
  const lead = span.text.length - span.text.trimStart().length;
  return { text, links: moved(span.links, lead, lead + text.length, -lead) };
}

/** `span` from offset `from` on. */
export function sliceSpan(span: Span, from: number): Span {
  return { text: span.text.slice(from), links: moved(span.links, from, span.text.length, -from) };
}

/** A letter of any script, then a hyphen, at the end of a line; a lower-case letter at the start of the next. */
const HYPHEN_END = /\p{L}-$/u;
const LOWER_START = /^\p{Ll}/u;

/**
 * Joins two texts with a space between them (`lines`: as lines of a paragraph, where a hyphen at the end of a line
 * before a lower-case letter, or a soft hyphen, is a hyphenation and goes). `keep` is how much of `a` stays,
 * `at` where `b` (without its leading blanks) starts in the result. Only the end of `a` is tested: `a` is a whole
 * paragraph so far, and a test over all of it for every line made joining quadratic.
 */
function joinAt(a: string, b: string, lines: boolean): { text: string; keep: number; at: number } {
  const left = a.trimEnd();
  const right = b.trimStart();
  if (lines && (left.endsWith("\u00ad") || (left.endsWith("-") && HYPHEN_END.test(left.slice(-3)) && LOWER_START.test(right)))) {
    return { text: left.slice(0, -1) + right, keep: left.length - 1, at: left.length - 1 };
  }
  if (left === "") return { text: right, keep: 0, at: 0 };
  return { text: `${left} ${right}`, keep: left.length, at: left.length + 1 };
}

/** Joins two lines of a paragraph: a hyphen at the end of a line before a lower-case letter is a hyphenation. */
export function joinLines(a: string, b: string): string {
  return joinAt(a, b, true).text;
}

/**
 * `a` and `b` joined (see {@link joinAt}), their links kept on their characters. `a` is changed and returned: a
 * paragraph grows line by line, and copying its links at every line was quadratic in them.
 */
export function joinSpans(a: Span, b: Span, lines: boolean): Span {
  const { text, keep, at } = joinAt(a.text, b.text, lines);
  // Only links at the end of `a` can reach past what stays of it.
  while (a.links.length > 0 && a.links[a.links.length - 1]!.end > keep) {
    const last = a.links.pop()!;
    if (last.start < keep) {
      a.links.push({ ...last, end: keep });
      break;
    }
  }
  if (b.links.length > 0) {
    const lead = b.text.length - b.text.trimStart().length;
    for (const l of moved(b.links, lead, b.text.length, at - lead)) a.links.push(l);
  }
  a.text = text;
  return a;
}

/**
 * The inline content of `span`. Links in text order; one that overlaps the link before it is dropped, and two
 * pieces of one link (a link that wraps at a line's end) become one link over both and the blank between them.
 */
export function spanInline(span: Span): Inline[] {
  const { text } = span;
  const links = [...span.links].sort((x, y) => x.start - y.start);
  const merged: PlacedLink[] = [];
  for (const l of links) {
    const prev = merged[merged.length - 1];
    if (prev && l.start < prev.end) continue;
    if (prev && prev.uri === l.uri && !text.slice(prev.end, l.start).trim()) merged[merged.length - 1] = { ...prev, end: l.end };
    else merged.push({ ...l });
  }
  const out: Inline[] = [];
  let cursor = 0;
  for (const l of merged) {
    if (l.start > cursor) out.push({ text: text.slice(cursor, l.start) });
    out.push({ text: text.slice(l.start, l.end), href: l.uri });
    cursor = l.end;
  }
  if (cursor < text.length || out.length === 0) out.push({ text: text.slice(cursor) });
  return out;
}
