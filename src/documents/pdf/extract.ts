/**
 * @module documents/pdf/extract
 * One mupdf page → {@link PageText}: lines of the structured-text JSON (C-side, ~2 ms a page) with font size and
 * weight, link annotations mapped onto the text they cover, and how much of the page is covered by pictures
 * (to decide whether a page needs OCR). Every mupdf object is destroyed as soon as it is read, so WASM memory
 * stays flat on long documents.
 */
import type { PageText, TextLine } from "../layout/model.ts";
import { MAX_OCR_PIXELS, renderScale } from "../pixel-limit.ts";
import type { Mupdf } from "./mupdf.ts";

type MupdfPage = ReturnType<InstanceType<Mupdf["Document"]>["loadPage"]>;

/** Pieces of link text read per page (each a copy from mupdf's structured text); more links keep no text. */
export const MAX_LINK_TEXTS_PER_PAGE = 2_000;

interface StextJson {
  blocks: {
    type: string;
    bbox: { x: number; y: number; w: number; h: number };
    lines?: { bbox: { x: number; y: number; w: number; h: number }; font: { name: string; weight: string; style: string; size: number }; text: string }[];
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
  const lines: TextLine[] = [];
  let chars = 0;
  let imageArea = 0;
  for (const block of json.blocks) {
    if (block.type === "image") {
      const w = Math.min(block.bbox.w, width);
      const h = Math.min(block.bbox.h, height);
      imageArea += Math.max(0, w) * Math.max(0, h);
      continue;
    }
    for (const l of block.lines ?? []) {
      const text = l.text.replace(/\s+/g, " ").trimEnd();
      if (!text.trim()) continue;
      chars += text.replace(/\s/g, "").length;
      const name = l.font.name.toLowerCase();
      lines.push({
        x0: l.bbox.x - bx0,
        y0: l.bbox.y - by0,
        x1: l.bbox.x + l.bbox.w - bx0,
        y1: l.bbox.y + l.bbox.h - by0,
        text,
        size: l.font.size,
        bold: l.font.weight === "bold" || /bold|black|heavy|semibold/.test(name),
        italic: l.font.style === "italic" || /italic|oblique/.test(name),
        mono: /mono|courier|consol/.test(name),
      });
    }
  }
  // Links: the text under each link rectangle, attached to the line it sits on. At most MAX_LINK_TEXTS_PER_PAGE
  // pieces of text are read per page: 20,000 page-high link rectangles over 60 lines took a minute.
  let linkTexts = 0;
  for (const link of page.getLinks()) {
    const uri = link.getURI();
    const [lx0, ly0, lx1, ly1] = link.getBounds();
    link.destroy();
    if (!uri || !/^(https?:|mailto:)/i.test(uri) || linkTexts >= MAX_LINK_TEXTS_PER_PAGE) continue;
    for (const line of lines) {
      const overlap = Math.min(line.y1, ly1) - Math.max(line.y0, ly0);
      if (overlap < (line.y1 - line.y0) * 0.5 || lx1 < line.x0 || lx0 > line.x1) continue;
      if (++linkTexts > MAX_LINK_TEXTS_PER_PAGE) break;
      const mid = (line.y0 + line.y1) / 2 + by0;
      const text = stext.copy([Math.max(lx0, line.x0 + bx0), mid], [Math.min(lx1, line.x1 + bx0), mid]).replace(/\s+/g, " ").trim();
      if (text) (line.links ??= []).push({ text, uri });
    }
  }
  stext.destroy();
  return { page: { number, width, height, lines, source: "text" }, chars, imageCoverage: Math.min(1, imageArea / (width * height || 1)) };
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
