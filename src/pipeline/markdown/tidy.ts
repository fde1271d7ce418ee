/**
 * @module pipeline/markdown/tidy
 * The last pass over the converter's output: whitespace normalised outside fenced code blocks.
 */

/** A fence line: up to any indent (a code block inside a list item is indented by the item), then 3+ backticks. */
const OPENING_FENCE_RE = /^( *)(`{3,})[^`]*$/;

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
 * Normalise whitespace outside fenced code blocks: strip trailing spaces (keeping two-space hard breaks), collapse
 * runs of blank lines to one, and put a blank line around every fence. Code inside fences, including fences
 * indented inside list items, is left untouched: blank lines and trailing spaces in code are content.
 *
 * @param markdown - node-html-markdown's output
 * @returns the markdown without leading or trailing blank lines
 */
export function tidy(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence = "";
  for (const raw of lines) {
    if (fence) {
      out.push(raw);
      if (raw.trim() === fence) {
        fence = "";
        out.push("");
      }
      continue;
    }
    const opening = OPENING_FENCE_RE.exec(raw);
    if (opening) {
      if (out.length && out[out.length - 1] !== "") out.push("");
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
