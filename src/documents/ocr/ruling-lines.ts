/**
 * @module documents/ocr/ruling-lines
 * Ruling lines (table borders, rules under headings) found and erased before tesseract reads a page. With the grid
 * of a bordered table left in, tesseract's page layout drops most of the table: of a scanned 5-column table with a
 * header and 10 rows (0.75 pt borders), 2 rows were read; of a 10-page LibreOffice report scanned at 200 dpi, 0 of
 * 60 rows; the borders it kept came back as `|` glued to cells (`|570`). With the lines erased every row is read,
 * with the same page segmentation and parameters. Sparse-text segmentation (PSM 11/12) or a single-column one (PSM 4)
 * read the thin grid too, but not a 1.5 pt one (6 % of the cells), and would change how every other page is read;
 * tesseract's own table and line-finding parameters changed nothing (test/documents/ocr-tables.test.ts).
 *
 * A rule is a long, thin run of dark pixels: each row (column) is scanned for dark runs of at least a fraction of
 * the page's width (height), allowing 2-pixel breaks; runs on neighbouring rows that overlap make one rule; a rule
 * is kept when its mean thickness is small (a filled bar, shading behind text, or an inverted page is thick, and
 * left alone) and its length many times that thickness. A vertical rule must also touch a horizontal one or be
 * long (a quarter of the page): letter stems of large type are short and stand alone. "Dark" is below the page's
 * Otsu threshold, as tesseract's binarisation sees it: a light grey border tesseract ignores is left. A rule is
 * erased along its centre (a skewed or bowed scan included) and painted the paper's grey.
 *
 * Pages without rules are handed on byte for byte, so prose pages read exactly as before; looking costs ~25 ms on
 * a 200 dpi page (~3 % of its recognition). Only PNG is decoded (every PDF page reaches OCR as one); a JPEG or WebP
 * image file goes to tesseract as it is.
 */
import { decodePngGray, encodePgm, type GrayImage } from "./gray-image.ts";

/** Breaks of up to this many light pixels do not end a run (scan noise, anti-aliasing). */
const MAX_GAP = 2;
/** A horizontal run counts from this fraction of the image's width. */
const MIN_H_FRACTION = 0.08;
/** A vertical run counts from this fraction of the image's height. */
const MIN_V_FRACTION = 0.03;
/** A vertical rule that touches no horizontal one is kept from this fraction of the height (column separators). */
const LONE_V_FRACTION = 0.25;
/** A rule is at least this many times as long as it is thick. */
const MIN_ASPECT = 12;

/** One dark run: on row (column) `line`, from `a` to `b` inclusive. */
interface Run {
  line: number;
  a: number;
  b: number;
}

/** Neighbouring overlapping runs: a candidate rule spanning lines `first`..`last` and positions `a`..`b`. */
interface Rule {
  first: number;
  last: number;
  a: number;
  b: number;
  /** Dark-run pixels: over the span, the mean thickness. */
  pixels: number;
  runs: Run[];
}

/** The grey histogram of `data`. */
function histogram(data: Uint8Array): Float64Array {
  const hist = new Float64Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i]!]++;
  return hist;
}

/** Otsu's threshold of a histogram of `total` pixels: pixels below it are ink. */
function otsuThreshold(hist: Float64Array, total: number): number {
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * hist[t]!;
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      threshold = t + 1;
    }
  }
  return threshold;
}

/** The paper's grey: the commonest value at or above `threshold` (255 on a rendered page, ~225 on a scan). */
function paperLevel(hist: Float64Array, threshold: number): number {
  let level = 255;
  for (let t = threshold; t < 256; t++) if (hist[t]! > hist[level]!) level = t;
  return level;
}

/** Dark runs of at least `minLength` along each row. */
function rowRuns(data: Uint8Array, width: number, height: number, dark: number, minLength: number): Run[] {
  const runs: Run[] = [];
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let start = -1;
    let last = -1;
    for (let x = 0; x <= width; x++) {
      const ink = x < width && data[row + x]! < dark;
      if (ink) {
        if (start < 0) start = x;
        last = x;
      } else if (start >= 0 && (x === width || x - last > MAX_GAP)) {
        if (last - start + 1 >= minLength) runs.push({ line: y, a: start, b: last });
        start = -1;
      }
    }
  }
  return runs;
}

/** Dark runs of at least `minLength` along each column, found in one row-major pass. */
function columnRuns(data: Uint8Array, width: number, height: number, dark: number, minLength: number): Run[] {
  const start = new Int32Array(width).fill(-1);
  const last = new Int32Array(width).fill(-1);
  const runs: Run[] = [];
  for (let y = 0; y <= height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (y < height && data[row + x]! < dark) {
        if (start[x]! < 0) start[x] = y;
        last[x] = y;
      } else if (start[x]! >= 0 && (y === height || y - last[x]! > MAX_GAP)) {
        if (last[x]! - start[x]! + 1 >= minLength) runs.push({ line: x, a: start[x]!, b: last[x]! });
        start[x] = -1;
      }
    }
  }
  return runs.sort((p, q) => p.line - q.line || p.a - q.a);
}

/** Runs on neighbouring lines that overlap by half the shorter one join one rule. `runs` are sorted by line. */
function groupRuns(runs: Run[]): Rule[] {
  const rules: Rule[] = [];
  let open: Rule[] = [];
  for (const run of runs) {
    open = open.filter((r) => r.last >= run.line - 1);
    const len = run.b - run.a + 1;
    const rule = open.find((r) => {
      if (r.last !== run.line - 1) return false;
      const prev = r.runs[r.runs.length - 1]!;
      const overlap = Math.min(prev.b, run.b) - Math.max(prev.a, run.a) + 1;
      return overlap * 2 >= Math.min(len, prev.b - prev.a + 1);
    });
    if (rule) {
      rule.last = run.line;
      rule.a = Math.min(rule.a, run.a);
      rule.b = Math.max(rule.b, run.b);
      rule.pixels += len;
      rule.runs.push(run);
    } else {
      const fresh = { first: run.line, last: run.line, a: run.a, b: run.b, pixels: len, runs: [run] };
      rules.push(fresh);
      open.push(fresh);
    }
  }
  return rules;
}

/** Thin and long: a line, not a bar, a block of shading, or a letter. */
function isThin(rule: Rule, maxThickness: number): boolean {
  const span = rule.b - rule.a + 1;
  const thickness = rule.pixels / span;
  return thickness <= maxThickness && span >= MIN_ASPECT * thickness;
}

/** Whether vertical rule `v` (lines = x) touches horizontal rule `h` (lines = y), within `tol` pixels. */
function touches(v: Rule, h: Rule, tol: number): boolean {
  return h.a - tol <= v.last && v.first <= h.b + tol && h.first - tol <= v.b && v.a <= h.last + tol;
}

/** Light pixels up to this far beside a rule (its anti-aliased edge) become paper with it. */
const HALO = 2;

/** Rows (lines = y, positions = x) or columns (lines = x, positions = y) of the image. */
interface Axis {
  lines: number;
  positions: number;
  at(line: number, pos: number): number;
}

/**
 * Marks a rule's pixels in `mask`: the dark pixels of a band along its centre, as wide as the rule is thick plus a
 * pixel each side, from end to end, and on beyond its ends as long as the band stays dark. The centre is followed
 * position by position (the mean line of the rule's runs there), so a skewed or bowed rule is followed too: on a
 * skewed scan each line of pixels holds only a step of the rule, and the steps at its edges and ends, shorter than
 * a run must be, were left behind as stubs that read as `|` or `—`. A letter touching the rule loses only what lies
 * in the band.
 */
function markRule(rule: Rule, axis: Axis, data: Uint8Array, dark: number, mask: Uint8Array, reach: number) {
  const { a, b } = rule;
  const span = b - a + 1;
  const reachOut = (rule.pixels / span - 1) / 2 + 1; // half the thickness, and a pixel
  const sum = new Float64Array(span);
  const count = new Float64Array(span);
  // Least squares of line on position, for the slope beyond the ends.
  let n = 0;
  let sp = 0;
  let sl = 0;
  let spp = 0;
  let spl = 0;
  for (const run of rule.runs) {
    for (let p = run.a; p <= run.b; p++) {
      sum[p - a] += run.line;
      count[p - a]++;
    }
    const len = run.b - run.a + 1;
    const ps = ((run.a + run.b) * len) / 2;
    n += len;
    sp += ps;
    sl += run.line * len;
    spp += (run.b * (run.b + 1) * (2 * run.b + 1) - (run.a - 1) * run.a * (2 * run.a - 1)) / 6;
    spl += run.line * ps;
  }
  const denominator = n * spp - sp * sp;
  const slope = denominator > 0 ? (n * spl - sp * sl) / denominator : 0;
  const centre = new Float64Array(span);
  let known = -1;
  for (let i = 0; i < span; i++) {
    if (count[i] === 0) continue;
    centre[i] = sum[i]! / count[i]!;
    // Positions between runs (a break in the rule) take the straight line between the centres either side.
    for (let j = known + 1; j < i; j++) centre[j] = known < 0 ? centre[i]! : centre[known]! + ((centre[i]! - centre[known]!) * (j - known)) / (i - known);
    known = i;
  }
  const markBand = (pos: number, c: number): boolean => {
    let any = false;
    for (let line = Math.max(0, Math.round(c - reachOut)); line <= Math.min(axis.lines - 1, Math.round(c + reachOut)); line++) {
      const i = axis.at(line, pos);
      if (data[i]! < dark) {
        mask[i] = 1;
        any = true;
      }
    }
    return any;
  };
  for (let i = 0; i < span; i++) markBand(a + i, centre[i]!);
  for (const [from, step, c0] of [[a, -1, centre[0]!], [b, 1, centre[span - 1]!]] as const) {
    for (let k = 1, gap = 0; k <= reach && gap <= MAX_GAP; k++) {
      const pos = from + step * k;
      if (pos < 0 || pos >= axis.positions) break;
      gap = markBand(pos, c0 + slope * step * k) ? 0 : gap + 1;
    }
  }
}

/**
 * Erases the ruling lines of `image` in place; returns how many rules were removed (0: the image is unchanged).
 * A rule's pixels take the paper's grey, and so do the light (anti-aliased) pixels up to two pixels beside it;
 * ink touching a rule (a letter on the border) stays but for what lies within a pixel of the rule.
 */
export function removeRulingLines(image: GrayImage): number {
  const { width, height, data } = image;
  if (width < 16 || height < 16) return 0;
  const hist = histogram(data);
  const dark = Math.min(otsuThreshold(hist, data.length), 200);
  const maxThickness = Math.max(3, Math.round(Math.min(width, height) / 150));
  const tol = maxThickness + MAX_GAP;
  const minH = Math.max(24, Math.round(width * MIN_H_FRACTION));
  const minV = Math.max(24, Math.round(height * MIN_V_FRACTION));
  const horizontal = groupRuns(rowRuns(data, width, height, dark, minH)).filter((r) => isThin(r, maxThickness));
  const vertical = groupRuns(columnRuns(data, width, height, dark, minV)).filter(
    (r) => isThin(r, maxThickness) && (r.b - r.a + 1 >= height * LONE_V_FRACTION || horizontal.some((h) => touches(r, h, tol))),
  );
  if (horizontal.length === 0 && vertical.length === 0) return 0;
  const mask = new Uint8Array(width * height);
  const rows: Axis = { lines: height, positions: width, at: (line, pos) => line * width + pos };
  const columns: Axis = { lines: width, positions: height, at: (line, pos) => pos * width + line };
  for (const rule of horizontal) markRule(rule, rows, data, dark, mask, minH);
  for (const rule of vertical) markRule(rule, columns, data, dark, mask, minV);
  // Rules become paper, not white: on a grey scan a white stripe would be a line of its own to the recogniser.
  const paper = paperLevel(hist, dark);
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!mask[i]) continue;
      data[i] = paper;
      for (let d = 1; d <= HALO; d++) {
        for (const j of [x >= d ? i - d : -1, x + d < width ? i + d : -1, i - d * width, i + d * width]) {
          if (j >= 0 && j < data.length && !mask[j] && data[j]! >= dark) data[j] = paper;
        }
      }
    }
  }
  return horizontal.length + vertical.length;
}

/**
 * `image` with its ruling lines erased, as a PGM, or `image` itself (the same bytes) when it has none or is not a
 * PNG this module decodes.
 */
export function withoutRulingLines(image: Uint8Array): Uint8Array {
  const gray = decodePngGray(image);
  return gray && removeRulingLines(gray) > 0 ? encodePgm(gray) : image;
}
