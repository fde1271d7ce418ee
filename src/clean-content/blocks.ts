/**
 * @module clean-content/blocks
 * The markdown of a page as numbered blocks, the unit `onlyCleanContent` keeps or drops. A block is what a blank
 * line ends (a heading, a paragraph, a list or one loose list item, a table, a quote), except inside a fenced code
 * block, which stays whole whatever blank lines it holds. The model is shown each block's number and its first
 * characters and answers with the numbers to drop; the kept blocks are the page's own text, unchanged: a model that
 * rewrites, shortens or invents cannot, and it answers in a few tokens whatever the page's length.
 */
import { weightedLength } from "../llm/chunk.ts";

/** Characters of a block shown to the model: enough to tell a cookie banner from an article paragraph. */
export const PREVIEW_CHARS = 280;

/**
 * An opening or closing code fence: three or more backticks or tildes. Any indentation counts (a fence inside a
 * list item is indented), and a backtick fence's info string has no backtick (CommonMark): "```npm i``` to install"
 * is inline code in a paragraph, not a fence that would run to the end of the page.
 */
const FENCE = /^\s*(`{3,}(?=[^`]*$)|~{3,})/;

/** Splits `markdown` into blocks (see the module note); blank lines between blocks are not kept. CRLF reads as LF. */
export function splitBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const end = () => {
    if (current.length > 0) blocks.push(current.join("\n"));
    current = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      current.push(line);
      // A closing fence: the same character, at least as long, nothing after it but blanks.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      continue;
    }
    if (marker) fence = marker;
    if (line.trim() === "" && fence === undefined) end();
    else current.push(line);
  }
  end();
  return blocks;
}

/** The kept blocks as markdown: blocks separated by one blank line, as the converter writes them. */
export function joinBlocks(blocks: readonly string[]): string {
  return blocks.join("\n\n");
}

/** How the model sees block `index`: its number, then its first {@link PREVIEW_CHARS} characters on one line. */
export function previewBlock(block: string, index: number): string {
  const flat = block.replace(/\s+/g, " ").trim();
  const shown = flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}… (${flat.length} characters)` : flat;
  return `[${index}] ${shown}`;
}

/**
 * Groups block previews into parts of at most `maxChars` characters each (a preview longer than that is a part
 * of its own), in order. Each part lists `[index] preview` lines with the blocks' own numbers.
 */
export function previewParts(blocks: readonly string[], maxChars: number): { first: number; last: number; text: string }[] {
  const parts: { first: number; last: number; text: string }[] = [];
  let lines: string[] = [];
  let size = 0;
  let first = 0;
  blocks.forEach((block, i) => {
    const line = previewBlock(block, i);
    const lineSize = weightedLength(line); // a Chinese character counts as the ASCII characters of its tokens
    if (lines.length > 0 && size + lineSize + 1 > maxChars) {
      parts.push({ first, last: i - 1, text: lines.join("\n") });
      lines = [];
      size = 0;
      first = i;
    }
    lines.push(line);
    size += lineSize + 1;
  });
  if (lines.length > 0) parts.push({ first, last: blocks.length - 1, text: lines.join("\n") });
  return parts;
}
