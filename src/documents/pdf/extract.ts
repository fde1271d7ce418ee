/**
 * @module documents/pdf/extract
 * One mupdf page → {@link PageText}: lines of the structured-text JSON (C-side, ~2 ms a page) with font size and
 * weight, link annotations mapped onto the text they cover, and how much of the page is covered by pictures
 * (to decide whether a page needs OCR). Every mupdf object is destroyed as soon as it is read, so WASM memory
 * stays flat on long documents.
 *
 * The JSON has one font per line (its first character's) and boxes rounded to whole points, so the characters are
 * also walked (documents/pdf/glyphs.ts): a line is bold, italic or monospace when nearly all of its characters are,
 * its baseline is known, and a link covers the characters under its rectangle, at their place in the line.
 */
import type { LineLink, PageText, TextLine } from "../layout/model.ts";
import { MAX_OCR_PIXELS, renderScale } from "../pixel-limit.ts";
import { type Glyphs, lineFacts, nameStyle, offsets, walkGlyphs, whole } from "./glyphs.ts";
import type { Mupdf } from "./mupdf.ts";

type MupdfPage = ReturnType<InstanceType<Mupdf["Document"]>["loadPage"]>;

/** Pieces of link text read per page (each a copy from mupdf's structured text); more links keep no text. */
export const MAX_LINK_TEXTS_PER_PAGE = 2_000;

interface StextJson {
  blocks: {
    type: string;
    bbox: { x: number; y: number; w: number; h: number };
    lines?: { bbox: { x: number; y: number; w: number; h: number }; font: { name: string; family?: string; weight: string; style: string; size: number }; text: string }[];
  }[];
}

/** What a page's text layer holds. */
export interface TextLayer {
  page: PageText;
  /** Non-blank characters of the text layer. */
  chars: number;
  /** Share of the page covered by pictures (0–1). */
  imageCoverage: number;
}

/** A line being read: the line, and its characters (and the JSON's text of them) when the walk matched the JSON. */
interface ReadLine {
  line: TextLine;
  glyphs?: Glyphs;
  raw?: string;
  /** Offsets of the characters in the line's text, once a link needs them. */
  at?: number[];
}

/** Reads the text layer of `page` (1-based `number`). */
export function readTextLayer(page: MupdfPage, number: number): TextLayer {
  const [bx0, by0, bx1, by1] = page.getBounds();
  const width = bx1 - bx0;
  const height = by1 - by0;
  const stext = page.toStructuredText("preserve-whitespace,preserve-images");
  let json: StextJson;
  try {
    json = JSON.parse(stext.asJSON()) as StextJson;
  } catch {
    json = { blocks: [] };
  }
  // Links first: a page without any needs no character positions. The characters are read one by one only on a
  // page with links, or with a line that starts in a bold or monospace font (which the rest of it may not be):
  // reading them costs mupdf's binding a few allocations each, a third more time on a page of plain text.
  const links: { uri: string; rect: number[] }[] = [];
  for (const link of page.getLinks()) {
    const uri = link.getURI();
    const rect = link.getBounds();
    link.destroy();
    if (uri && /^(https?:|mailto:)/i.test(uri)) links.push({ uri, rect });
  }
  const styled = json.blocks.some((b) => b.lines?.some((l) => {
    const flags = fontFlags(l.font);
    return flags.bold || flags.mono;
  }));
  const walked = walkGlyphs(stext, links.length > 0 || styled, links.length > 0);
  const read: ReadLine[] = [];
  let chars = 0;
  let imageArea = 0;
  let k = 0;
  for (const block of json.blocks) {
    if (block.type === "image") {
      const w = Math.min(block.bbox.w, width);
      const h = Math.min(block.bbox.h, height);
      imageArea += Math.max(0, w) * Math.max(0, h);
      continue;
    }
    for (const l of block.lines ?? []) {
      const glyphs = walked[k++];
      if (!l.text.trim()) continue;
      // The walk's lines are the JSON's, one for one, unless the two disagree (then the JSON alone is used).
      const same = glyphs && Math.abs(glyphs.bbox[0]! - l.bbox.x) <= 1.5 && Math.abs(glyphs.bbox[1]! - l.bbox.y) <= 1.5 ? glyphs : undefined;
      const facts = same ? lineFacts(l.text, same) : undefined;
      const text = facts?.text ?? l.text.replace(/\s+/g, " ").trimEnd();
      if (!text.trim()) continue;
      chars += text.replace(/\s/g, "").length;
      // Without its characters, a line has the JSON's font, and the walk's exact box (its bottom for a baseline).
      const [x0, y0, x1, y1] = same?.bbox ?? [l.bbox.x, l.bbox.y, l.bbox.x + l.bbox.w, l.bbox.y + l.bbox.h];
      const line: TextLine = facts
        ? { ...facts.box, text, size: facts.size, bold: facts.bold, italic: facts.italic, mono: facts.mono, baseline: facts.baseline - by0 }
        : { x0: x0!, y0: y0!, x1: x1!, y1: y1!, text, size: l.font.size, ...fontFlags(l.font), ...(same && { baseline: y1! - by0 }) };
      [line.x0, line.x1, line.y0, line.y1] = [whole(line.x0 - bx0), whole(line.x1 - bx0), whole(line.y0 - by0), whole(line.y1 - by0)];
      read.push(facts ? { line, glyphs, raw: l.text } : { line });
    }
  }
  // Links: the text under each link rectangle, attached to the line it sits on. At most MAX_LINK_TEXTS_PER_PAGE
  // pieces of text are read per page: 20,000 page-high link rectangles over 60 lines took a minute.
  let linkTexts = 0;
  for (const { uri, rect } of links) {
    if (linkTexts >= MAX_LINK_TEXTS_PER_PAGE) break;
    const [lx0, ly0, lx1, ly1] = rect as [number, number, number, number];
    for (const r of read) {
      const line = r.line;
      const overlap = Math.min(line.y1, ly1 - by0) - Math.max(line.y0, ly0 - by0);
      if (overlap < (line.y1 - line.y0) * 0.5 || lx1 - bx0 < line.x0 || lx0 - bx0 > line.x1) continue;
      if (++linkTexts > MAX_LINK_TEXTS_PER_PAGE) break;
      const found = r.glyphs?.mid ? underRect(r, lx0, lx1, uri) : copyUnder(stext, line, rect, [bx0, by0], uri);
      if (found) (line.links ??= []).push(found);
    }
  }
  stext.destroy();
  const lines = read.map((r) => r.line);
  return { page: { number, width, height, lines, source: "text" }, chars, imageCoverage: Math.min(1, imageArea / (width * height || 1)) };
}

/** The style of a JSON line's font (its first character's). */
function fontFlags(font: { name: string; family?: string; weight: string; style: string }): { bold: boolean; italic: boolean; mono: boolean } {
  const named = nameStyle(font.name.toLowerCase());
  return { bold: font.weight === "bold" || named.bold, italic: font.style === "italic" || named.italic, mono: font.family === "monospace" || named.mono };
}

/** The link over the characters of `r` whose centres lie between `lx0` and `lx1` (page coordinates), at their offset. */
function underRect(r: ReadLine, lx0: number, lx1: number, uri: string): LineLink | undefined {
  const { glyphs, line } = r as Required<ReadLine>;
  const at = (r.at ??= offsets(r.raw!, line.mono));
  let first = -1;
  let last = -1;
  for (let i = 0; i < glyphs.n; i++) {
    const mid = glyphs.mid![i]!;
    if (mid < lx0 || mid > lx1 || at[i]! < 0) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first < 0) return undefined;
  const start = at[first]!;
  const end = at[last]! + (line.text.codePointAt(at[last]!)! > 0xffff ? 2 : 1);
  const text = line.text.slice(start, end).trim();
  return text ? { text, uri, start: start + line.text.slice(start, end).indexOf(text) } : undefined;
}

/** The link over the text mupdf copies between the rectangle's edges, on the line's middle (its place unknown). */
function copyUnder(stext: { copy(p: [number, number], q: [number, number]): string }, line: TextLine, rect: number[], [bx0, by0]: number[], uri: string): LineLink | undefined {
  const mid = (line.y0 + line.y1) / 2 + by0!;
  const text = stext.copy([Math.max(rect[0]!, line.x0 + bx0!), mid], [Math.min(rect[2]!, line.x1 + bx0!), mid]).replace(/\s+/g, " ").trim();
  return text ? { text, uri } : undefined;
}

/**
 * Renders `page` to a grayscale PNG at `dpi`, or at the lower resolution that keeps a very large page within
 * `maxPixels` (documents/pixel-limit.ts). `pointsPerPixel` converts the OCR's pixel coordinates back to points.
 */
export function renderPage(m: Mupdf, page: MupdfPage, dpi: number, maxPixels = MAX_OCR_PIXELS): { png: Uint8Array; pointsPerPixel: number } {
  const [x0, y0, x1, y1] = page.getBounds();
  const s = renderScale(x1 - x0, y1 - y0, dpi, maxPixels);
  const pix = page.toPixmap(m.Matrix.scale(s, s), m.ColorSpace.DeviceGray, false, true);
  const png = pix.asPNG().slice();
  pix.destroy();
  return { png, pointsPerPixel: 1 / s };
}
