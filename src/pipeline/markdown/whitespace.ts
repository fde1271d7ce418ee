/**
 * @module pipeline/markdown/whitespace
 * Whitespace trimming and collapsing in linear time, for the translators' post-processing.
 *
 * The regexes these replace (`\s*\n\s*` global, `/^\s*\n\s*|\s*\n\s*$/g`, `/\s+$/`) restart at every character of a
 * whitespace run and rescan it to its end, so a long run cost time quadratic (or cubic) in its length: a link
 * holding 6,000 `<br>` took 31 s, a `<pre>` holding 300,000 spaces 32 s, each stalling the server. JavaScript's
 * `\s` and `String.prototype.trim` use the same set of characters, so trims are exact replacements.
 */

/**
 * A whitespace run: matched whole from its first character, so no position is scanned twice. A pattern anchored on
 * the newline, `[^\S\n]*\n\s*`, is no better: it still rescans a long run of spaces from each of its characters.
 */
const WHITESPACE_RUN_RE = /\s+/g;

/**
 * Every whitespace run that contains a newline, replaced by one space; runs without one are kept as they are.
 * The same result as replacing every match of `\s*\n\s*` (global) with a space.
 */
export function newlineRunsToSpace(text: string): string {
  if (!text.includes("\n")) return text;
  return text.replace(WHITESPACE_RUN_RE, (run) => (run.includes("\n") ? " " : run));
}

/**
 * The leading whitespace removed if it contains a newline, and the trailing whitespace likewise; all-whitespace
 * text becomes `""` when it contains a newline. The same result as `text.replace(/^\s*\n\s*|\s*\n\s*$/g, "")`.
 */
export function trimEdgeNewlines(text: string): string {
  const firstNewline = text.indexOf("\n");
  if (firstNewline === -1) return text;
  const start = text.length - text.trimStart().length;
  if (start === text.length) return "";
  const end = text.trimEnd().length;
  return text.slice(firstNewline < start ? start : 0, text.lastIndexOf("\n") >= end ? end : text.length);
}

/** How many `\n` characters `text` starts with. */
export function leadingNewlines(text: string): number {
  let count = 0;
  while (text.charCodeAt(count) === 10) count++;
  return count;
}

/** `text` without the `\n` characters at either end: the same result as `text.replace(/^\n+|\n+$/g, "")`. */
export function trimNewlines(text: string): string {
  const start = leadingNewlines(text);
  let end = text.length;
  while (end > start && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(start, end);
}
