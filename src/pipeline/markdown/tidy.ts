/**
 * @module pipeline/markdown/tidy
 * The last pass over the converter's output: whitespace normalised outside fenced code blocks.
 */

/**
 * An opening fence line: its containers' marks, then 3+ backticks and an info string without backticks. The marks
 * are any indent (a code block inside a list item is indented by the item), `>` of quotes, and the list markers of
 * items whose first block is the code (`1. ```sh`, `- > ````); missing those, the closing fence of such a block
 * was taken for an opening one. Each mark starts at a non-space character and spaces are only matched before a
 * mark or the fence, so a line is matched one way only, in linear time.
 */
const OPENING_FENCE_RE = /^((?: *(?:>|[-+*](?= )|\d{1,9}[.)](?= )))*) *(`{3,})[^`]*$/;
/** The marks in front of a closing fence: indent and quotes' `>` (list markers start items, never close code). */
const CLOSING_FENCE_PREFIX_RE = /^[ >]*/;

/**
 * `line` without its trailing spaces and tabs, or with exactly two spaces when it had two or more (a hard break).
 * Scanned from the end: `/[ \t]+$/` restarts at every blank of a long run inside the line, quadratic in its length.
 */
function withoutTrailingSpaces(line: string): string {
  let end = line.length;
  for (let c = line.charCodeAt(end - 1); c === 32 || c === 9; c = line.charCodeAt(end - 1)) end--;
  if (end === line.length) return line;
  return line.length - end >= 2 ? `${line.slice(0, end)}  ` : line.slice(0, end);
}

/**
 * Whether `line` closes a code block opened with `fence`: the fence alone after its containers' marks. A code line
 * cannot pass for it: the code block translator makes the fence longer than any backtick run in the code.
 */
function closesFence(line: string, fence: string): boolean {
  return line.slice(CLOSING_FENCE_PREFIX_RE.exec(line)![0].length).trimEnd() === fence;
}

/**
 * Normalise whitespace outside fenced code blocks: strip trailing spaces (keeping two-space hard breaks), collapse
 * runs of blank lines to one, and put a blank line around every fence that stands on its own line. Code inside
 * fences, including fences indented inside list items or quoted, is left untouched: blank lines and trailing
 * spaces in code are content. A fence after a list marker or a quote's `>` gets no blank line: the item already
 * starts a block (a blank line there would loosen a tight list), and an unquoted blank line would end the quote.
 *
 * @param markdown - node-html-markdown's output
 * @returns the markdown without leading or trailing blank lines
 */
export function tidy(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence = "";
  let spaced = false;
  for (const raw of lines) {
    if (fence) {
      out.push(raw);
      if (closesFence(raw, fence)) {
        if (spaced) out.push("");
        fence = "";
      }
      continue;
    }
    const opening = OPENING_FENCE_RE.exec(raw);
    if (opening) {
      spaced = !opening[1];
      if (spaced && out.length && out[out.length - 1] !== "") out.push("");
      fence = opening[2]!;
      out.push(raw);
      continue;
    }
    const line = raw.trim() === "" ? "" : withoutTrailingSpaces(raw);
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(line);
  }
  while (out.length && out[out.length - 1] === "") out.pop();
  return out.join("\n");
}
