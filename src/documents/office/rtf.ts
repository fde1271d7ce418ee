/**
 * @module documents/office/rtf
 * RTF → paragraphs. A plain reader: control words are dropped, `\par` ends a paragraph, `\'hh` and `\uN`
 * escapes are decoded (code page 1252 for the former), and destination groups (font tables, pictures,
 * `{\*\…}`) are skipped. Formatting is not kept.
 */
import type { Block } from "../layout/model.ts";

const SKIP_DESTINATIONS = new Set(["fonttbl", "colortbl", "stylesheet", "info", "pict", "header", "footer", "headerl", "headerr", "footerl", "footerr", "object", "themedata", "datastore", "latentstyles", "listtable", "listoverridetable", "rsidtbl", "generator", "xmlnstbl", "mmathPr"]);

/** Converts RTF text to paragraph blocks. */
export function rtfToBlocks(bytes: Uint8Array): { blocks: Block[] } {
  const src = new TextDecoder("latin1").decode(bytes);
  const cp1252 = new TextDecoder("windows-1252");
  const paragraphs: string[] = [];
  let cur = "";
  // Stack of "skip" flags per group.
  const stack: boolean[] = [];
  let skip = false;
  let ucSkip = 1;
  let pendingSkip = 0;
  let i = 0;
  const emit = (s: string) => {
    if (skip) return;
    if (pendingSkip > 0) {
      pendingSkip--;
      return;
    }
    cur += s;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === "{") {
      stack.push(skip);
      i++;
      if (src.startsWith("\\*", i)) skip = true;
      continue;
    }
    if (c === "}") {
      skip = stack.pop() ?? false;
      i++;
      continue;
    }
    if (c === "\\") {
      const next = src[i + 1] ?? "";
      if (next === "'") {
        const hex = src.slice(i + 2, i + 4);
        if (pendingSkip > 0) pendingSkip--;
        else if (!skip) cur += cp1252.decode(new Uint8Array([parseInt(hex, 16) || 32]));
        i += 4;
        continue;
      }
      if (!/[a-zA-Z]/.test(next)) {
        if (next === "~") emit(" ");
        else if (next === "-" || next === "*") {
          /* optional hyphen / destination marker */
        } else if (next === "\n" || next === "\r") {
          if (!skip) paragraphs.push(cur), (cur = "");
        } else emit(next);
        i += 2;
        continue;
      }
      const m = /^\\([a-zA-Z]+)(-?\d+)? ?/.exec(src.slice(i, i + 40))!;
      const word = m[1]!;
      const arg = m[2] === undefined ? undefined : Number(m[2]);
      i += m[0].length;
      if (SKIP_DESTINATIONS.has(word)) skip = true;
      else if (word === "par" || word === "line" || word === "sect" || word === "page") {
        if (!skip) {
          paragraphs.push(cur);
          cur = "";
        }
      } else if (word === "tab") emit(" ");
      else if (word === "uc" && arg !== undefined) ucSkip = arg;
      else if (word === "u" && arg !== undefined) {
        if (!skip) cur += String.fromCharCode(arg < 0 ? arg + 65536 : arg);
        pendingSkip = ucSkip;
      } else if (word === "emdash") emit("—");
      else if (word === "endash") emit("–");
      else if (word === "bullet") emit("•");
      else if (word === "lquote" || word === "rquote") emit("'");
      else if (word === "ldblquote" || word === "rdblquote") emit('"');
      else if (word === "cell") emit(" ");
      continue;
    }
    if (c !== "\r" && c !== "\n") emit(c);
    i++;
  }
  paragraphs.push(cur);
  return {
    blocks: paragraphs
      .map((p) => p.replace(/\s+/g, " ").trim())
      .filter((p) => p.length > 0)
      .map((text) => ({ kind: "paragraph" as const, content: [{ text }] })),
  };
}
