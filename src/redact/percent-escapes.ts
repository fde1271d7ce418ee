/**
 * @module redact/percent-escapes
 * PII written with percent-escapes, as link targets carry it: `mailto:jane%40example.com`,
 * `?email=jane%40example.com`, `tel:%2B1%20555%20010%200199`, `jane@example%2Ecom`, `?q=password%3Dhunter22` (the
 * label escaped, the value not), `%3Femail%3Djane%2540example.com` (escaped twice, as a redirect's `?q=` carries a
 * URL). The patterns and the model's quotes match the text as written, where none of these is PII; so they are also
 * matched in a copy with the escapes decoded (decoded again, once, when that copy still holds escapes), and what the
 * copy gives that the text as written does not is placed back on the escaped text. The replacement then takes the
 * span as written (`%40` and all), so `mailto:jane%40example.com` redacts to `mailto:<EMAIL>`, as
 * `mailto:jane@example.com` does, and the rest of the URL (`&utm_source=…`) stays as it was.
 *
 * What the text as written gives is not taken again: the same stretches are searched as written too, and a match of
 * the copy that lies inside one of theirs is dropped. So is one the copy gives only because a stretch was cut out of
 * the page (a hex string's tail, a number without the id label before it): the stretch as written gives it too.
 * Decoding follows redact/percent-decode.ts.
 *
 * Cost: only the stretches around an escape are searched again (each run of non-space characters holding one, up to
 * {@link MAX_RUN_CHARS} from each escape, with {@link CONTEXT_CHARS} either side), not the page; all of them in one
 * call of the finder per copy (as written, decoded, decoded twice), joined by a line break, so that a finder's own
 * cost per call (the model's quotes, each prepared and searched for) and its cap on what one call gives (100,000
 * spans of quotes) are paid and hold for all the stretches together, not for each (2,048 quotes on 18,316
 * stretches of a 4 MB page took 10 s and gave 789,200 spans). The cap is a call's: the decoded and the twice-decoded
 * copies may each give up to 100,000 spans (the copy as written only hides what it finds), so with the page's own
 * search a page's quotes give up to 300,000.
 */
import type { PiiSpan } from "./detectors.ts";
import { countAtMost, decodeAt, percentDecode, sourceSpan, type PercentDecoded } from "./percent-decode.ts";

export { percentDecode, type PercentDecoded } from "./percent-decode.ts";

/** Characters of context kept either side of a stretch holding an escape: more than any pattern looks around a match. */
const CONTEXT_CHARS = 80;
/**
 * Furthest a stretch follows its run from an escape, each way: more than the longest match a pattern gives (a
 * private key block, 16 KB), so that no match holding an escape is cut; a run of megabytes with one escape in it is
 * not searched whole again.
 */
const MAX_RUN_CHARS = 20_000;
/** Times the text is decoded: twice finds an address escaped twice (`%2540`), as a URL in a redirect's query has it. */
const MAX_DECODES = 2;
/** What joins the stretches: no pattern matches across a line break, and a span that does (a quote) is dropped. */
const SEPARATOR = "\n";

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 0xa0;

/**
 * Stretches of `text` holding a valid escape: the run of non-space characters around each, up to
 * {@link MAX_RUN_CHARS} past its first and last escape. Each character is looked at a bounded number of times.
 */
function escapeWindows(text: string): [number, number][] {
  const windows: [number, number][] = [];
  let cur: [number, number] | undefined;
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", i + 1)) {
    const c = decodeAt(text, i);
    if (!c) continue;
    const escapeEnd = i + c.fromLength;
    if (!cur || i >= cur[1]) {
      let start = i;
      const floor = Math.max(cur ? cur[1] : 0, i - MAX_RUN_CHARS);
      while (start > floor && !isSpace(text.charCodeAt(start - 1))) start--;
      cur = [start, escapeEnd];
      windows.push(cur);
    }
    // Along the run, up to MAX_RUN_CHARS past this escape (on from where the window got to: no character twice).
    let end = Math.max(cur[1], escapeEnd);
    const limit = Math.min(text.length, escapeEnd + MAX_RUN_CHARS);
    while (end < limit && !isSpace(text.charCodeAt(end))) end++;
    cur[1] = end;
    i = escapeEnd - 1;
  }
  return windows;
}

/** The stretches to search again: {@link escapeWindows} with context either side, merged where they meet. */
function regionsWithEscapes(text: string): [number, number][] {
  const regions: [number, number][] = [];
  for (const [start, end] of escapeWindows(text)) {
    const from = Math.max(0, start - CONTEXT_CHARS);
    const to = Math.min(text.length, end + CONTEXT_CHARS);
    const last = regions[regions.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else regions.push([from, to]);
  }
  return regions;
}

/** The stretches joined into one text, and where each starts in it. */
interface Joined {
  text: string;
  regions: [number, number][];
  starts: number[];
}

function join(text: string, regions: [number, number][]): Joined {
  const starts: number[] = [];
  let at = 0;
  for (const [from, to] of regions) {
    starts.push(at);
    at += to - from + SEPARATOR.length;
  }
  return { text: regions.map(([from, to]) => text.slice(from, to)).join(SEPARATOR), regions, starts };
}

/** Where the joined span `[start, end)` is in the text, or undefined when it is not inside one stretch. */
function placeInText(j: Joined, start: number, end: number): [number, number] | undefined {
  const r = countAtMost(j.starts, start) - 1;
  if (r < 0) return undefined;
  const [from, to] = j.regions[r]!;
  const offset = from - j.starts[r]!;
  return end + offset <= to ? [start + offset, end + offset] : undefined;
}

/** Spans sorted by start with those that overlap merged: what a span must lie inside to be covered. */
function union(spans: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

function covered(cover: [number, number][], start: number, end: number): boolean {
  let lo = 0;
  let hi = cover.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cover[mid]![0] <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && cover[lo - 1]![1] >= end;
}

/** The spans `find` gives on `text`, each as `[start, end)` in the joined text (through `decodes`, latest first) when it lies in one stretch. */
function findPlaced(j: Joined, text: string, decodes: PercentDecoded[], find: (text: string) => readonly PiiSpan[]): { span: [number, number]; type: PiiSpan["type"] }[] {
  const out: { span: [number, number]; type: PiiSpan["type"] }[] = [];
  for (const s of find(text)) {
    if (!(s.start >= 0 && s.start < s.end && s.end <= text.length)) continue;
    let span: [number, number] = [s.start, s.end];
    for (const d of decodes) span = sourceSpan(d, span[0], span[1]);
    if (placeInText(j, span[0], span[1])) out.push({ span, type: s.type });
  }
  return out;
}

/**
 * What `find` finds in `text` written with percent-escapes (see the module note): the spans it gives on the
 * stretches holding an escape once decoded (and decoded twice) that it does not give on them as written, placed on
 * `text`. Not what `find` finds in `text` itself: the caller has that already. `find` is called at most
 * {@link MAX_DECODES} + 1 times, on at most that many times the stretches' length.
 */
export function findThroughEscapes(text: string, find: (text: string) => readonly PiiSpan[]): PiiSpan[] {
  if (!text.includes("%")) return [];
  const regions = regionsWithEscapes(text);
  if (regions.length === 0) return [];
  const j = join(text, regions);
  let cover = union(findPlaced(j, j.text, [], find).map((p) => p.span));
  const out: PiiSpan[] = [];
  const decodes: PercentDecoded[] = [];
  let source = j.text;
  for (let pass = 0; pass < MAX_DECODES; pass++) {
    const d = percentDecode(source);
    if (d.at.length === 0) break;
    decodes.unshift(d);
    const found = findPlaced(j, d.text, decodes, find);
    for (const { span, type } of found) {
      if (covered(cover, span[0], span[1])) continue;
      const [start, end] = placeInText(j, span[0], span[1])!;
      out.push({ start, end, type });
    }
    cover = union(cover.concat(found.map((p) => p.span)));
    source = d.text;
  }
  return out;
}
