/**
 * @module engines/browser/detect
 * Cheap, regex-level looks at a fetched page that decide whether the browser must take over:
 *
 * - {@link needsJavaScript}: the HTML is a client-side-rendered shell (almost no visible text but scripts; an
 *   empty `#root`/`#app`/`#__next`/`<app-root>` mount point; a `<noscript>` wall asking for JavaScript), or sends
 *   the reader on at once with a `<meta http-equiv="refresh">` or a `Refresh` response header (which a browser
 *   follows, and plain HTTP does not);
 * - {@link looksBlocked}: a bot wall (a challenge page; 403; 429/503 without Retry-After) that `proxy: "auto"`
 *   retries as enhanced.
 *
 * No DOM parse: this runs on every HTTP page, so it must cost well under a millisecond for ordinary pages.
 */
import type { Page } from "../types.ts";

/** Visible text below this many characters counts as "almost none". */
export const SHELL_TEXT_CHARS = 200;
/** A page with a JS wall or an empty mount point and less visible text than this needs JavaScript. */
export const THIN_TEXT_CHARS = 800;
/** Pages larger than this are never shells (and are not scanned). */
const MAX_SCAN_CHARS = 1 << 20;

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml", ""]);

const NOSCRIPT_WALL =
  /<noscript[^>]*>[\s\S]{0,2000}?(enable javascript|javascript is (?:required|disabled|needed)|requires javascript|turn on javascript|need(?:s)? (?:to )?enable javascript|javascript must be enabled|activez javascript|javascript aktivieren)/i;
const EMPTY_MOUNT =
  /<(div|main|section)\s[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|svelte|main-app|react-root|application)["']?[^>]*>\s*<\/\1>|<app-root[^>]*>\s*<\/app-root>|<div[^>]*\bdata-reactroot[^>]*>\s*<\/div>/i;
const SCRIPT = /<script\b/i;
/** `http-equiv="refresh"` (quotes optional), matched where a candidate starts (sticky). */
const HTTP_EQUIV_REFRESH = /http-equiv\s*=\s*["']?refresh\b/iy;
/** The start of a `<meta>` tag, searched for from a given index. */
const META_OPEN = /<meta\b/gi;
/** Where the `q` of "http-equiv" sits in it. */
const Q_IN_HTTP_EQUIV = 6;
/** Its `content`: the delay in seconds, then the target (`0; url=/next`, `1;URL='/next'`). */
const REFRESH_CONTENT = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i;
/**
 * Its target taken from a value whose end (spaces, a closing quote, spaces) is cut off first: each part of the pattern
 * can match only one way, so no input makes it backtrack (the one-regex form, a lazy target then `\s*['"]?\s*$`,
 * took 4.5 s on 2,000 spaces and never ended on 64 K: any page or `Refresh` header could stall the server).
 */
const REFRESH_TARGET = /^\s*(\d+(?:\.\d*)?)\s*[;,]\s*(?:url\s*=\s*)?(?:['"]\s*)?([^'"\s][^'"]*)$/i;
/** A refresh this soon (seconds) sends a reader on before they read: a browser shows the target. */
export const META_REFRESH_MAX_DELAY_S = 1;

/**
 * Where a refresh value (`0; url=/next`, the syntax `<meta http-equiv="refresh" content>` and the `Refresh` response
 * header share) sends the reader at once (within {@link META_REFRESH_MAX_DELAY_S}), if it does.
 */
export function refreshTarget(value: string): string | undefined {
  let rest = value.trimEnd(); // trimEnd removes exactly what `\s` matches
  if (rest.endsWith("'") || rest.endsWith('"')) rest = rest.slice(0, -1).trimEnd();
  const m = REFRESH_TARGET.exec(rest);
  return m && Number(m[1]) <= META_REFRESH_MAX_DELAY_S ? m[2] : undefined;
}

/** Where a `<meta http-equiv="refresh">` sends the reader at once (within {@link META_REFRESH_MAX_DELAY_S}), if it does. */
export function metaRefreshTarget(html: string): string | undefined {
  const tag = firstMetaRefreshTag(html.length > MAX_SCAN_CHARS ? html.slice(0, MAX_SCAN_CHARS) : html);
  if (!tag) return undefined;
  const content = REFRESH_CONTENT.exec(tag);
  return refreshTarget(content?.[1] ?? content?.[2] ?? "");
}

/**
 * The first `<meta>` tag naming `http-equiv="refresh"`, attributes in any order: what the regex
 * `/<meta\b[^>]*\bhttp-equiv\s*=\s*["']?refresh\b[^>]*>/i` finds (test/browser/detect.test.ts checks the two agree
 * on generated markup). That regex steps through every position of the page (0.14 ms on a 117 KB article page, on
 * every HTTP scrape); here each "http-equiv" is found by its `q`, a letter rare enough in HTML that a native search
 * for `q` and `Q` lands on a few dozen places, each checked where it stands.
 */
function firstMetaRefreshTag(html: string): string | undefined {
  let lower = html.indexOf("q");
  let upper = html.indexOf("Q");
  // The stretch between two `>` the candidate is in (a tag holds no `>`), and the first `<meta` at or after its
  // start: kept from one candidate to the next, so a page of many candidates in one long tag, or of many tags with
  // none a `<meta`, is not searched again for each (that was quadratic: a 1 MiB page of them took seconds).
  let segmentStart = 0;
  let segmentEnd = -2; // the `>` that ends the stretch (-1: none), -2: not looked for yet
  let metaAt = -2; // the first `<meta` at or after `segmentStart` (-1: none), -2: not looked for yet
  let hidden: HiddenRanges | undefined;
  while (lower >= 0 || upper >= 0) {
    let q: number;
    if (upper < 0 || (lower >= 0 && lower < upper)) {
      q = lower;
      lower = html.indexOf("q", q + 1);
    } else {
      q = upper;
      upper = html.indexOf("Q", q + 1);
    }
    const at = q - Q_IN_HTTP_EQUIV;
    if (at < 0 || (at > 0 && isWordChar(html.charCodeAt(at - 1)))) continue;
    HTTP_EQUIV_REFRESH.lastIndex = at;
    if (!HTTP_EQUIV_REFRESH.test(html)) continue;
    if (segmentEnd === -2 || (segmentEnd >= 0 && segmentEnd < at)) {
      segmentStart = html.lastIndexOf(">", at) + 1;
      segmentEnd = html.indexOf(">", at);
    }
    // The attribute holds no `>`: the tag ends at the first one after it; none, and no later tag can end either.
    if (segmentEnd < 0) return undefined;
    if (metaAt === -2 || (metaAt >= 0 && metaAt < segmentStart)) {
      META_OPEN.lastIndex = segmentStart;
      metaAt = META_OPEN.exec(html)?.index ?? -1;
    }
    if (metaAt < 0) return undefined; // no `<meta` from here on
    if (metaAt + "<meta".length <= at && !(hidden ??= new HiddenRanges(html)).covers(metaAt)) return html.slice(metaAt, segmentEnd + 1);
  }
  return undefined;
}

/**
 * Where a page's markup is not live: comments, and `<noscript>`, `<script>` and `<template>` content (a browser
 * with scripts on, as upstream's, never acts on a `<meta>` there). A commented-out refresh, or a noscript one to an
 * "enable JavaScript" page, was followed, and the scrape gave that page for the one asked for. Found in one pass
 * when first asked; {@link covers} is asked of positions in increasing order.
 */
class HiddenRanges {
  private readonly ranges: [number, number][] = [];
  private next = 0;

  constructor(html: string) {
    const re = /<!--[\s\S]*?(?:-->|$)|<(noscript|script|template)\b[\s\S]*?(?:<\/\1\s*>|$)/gi;
    for (let m = re.exec(html); m; m = re.exec(html)) {
      this.ranges.push([m.index, m.index + m[0].length]);
      if (m[0].length === 0) re.lastIndex++;
    }
  }

  /** Whether `at` is inside a range; `at` no smaller than at the last call. */
  covers(at: number): boolean {
    while (this.next < this.ranges.length && this.ranges[this.next]![1] <= at) this.next++;
    const range = this.ranges[this.next];
    return range !== undefined && range[0] <= at;
  }
}

/** Whether a character code is a regex word character (`[A-Za-z0-9_]`). */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** The text a reader would see: markup, scripts, styles, noscript and templates removed, whitespace folded. */
export function visibleText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;|&#160;/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Elements whose content is never visible; their whole run, up to the matching end tag, is skipped. */
const INVISIBLE_ELEMENTS = ["script", "style", "noscript", "template", "svg", "head"];
/** Their first letters, as character codes. */
const INVISIBLE_FIRST_LETTERS = [...new Set(INVISIBLE_ELEMENTS.map((name) => name.charCodeAt(0)))];
const WORD_CHAR = /[A-Za-z0-9_]/;
const SPACE_CHAR = /\s/;

/**
 * `visibleText(html).length`, counting no further than `cap`: a page with real text answers after its first
 * paragraphs instead of a pass over the whole document (this runs on every HTTP page). Whitespace runs count
 * as one character, as in `visibleText`, and markup between text runs counts as one space (character references
 * count as their source text: close enough for a threshold).
 *
 * A scanner over `indexOf` rather than one tokenising regex: the same tokens (comment, invisible element up to
 * its end tag, tag, text, lone `<`; tag names case-sensitive, as the regex was), at half the cost, since skipping
 * a 100 KB `<head>` is one `indexOf` instead of a regex step per character (test/browser/detect.test.ts checks it
 * against that regex on generated markup).
 */
export function visibleTextLength(html: string, cap: number): number {
  let count = 0;
  let space = true; // at the start, and after markup: a separator is pending
  const n = html.length;
  let i = 0;
  while (i < n) {
    let lt = html.indexOf("<", i);
    if (lt < 0) lt = n;
    for (; i < lt; i++) {
      const c = html.charCodeAt(i);
      if (c <= 32 || c === 160) {
        space = true;
      } else {
        if (space && count > 0) count++;
        space = false;
        if (++count >= cap) return count;
      }
    }
    if (lt === n) break;
    i = afterMarkup(html, lt);
    space = true;
  }
  return count;
}

/** Where the markup token starting at the `<` at `lt` ends (exclusive). */
function afterMarkup(html: string, lt: number): number {
  const first = html.charCodeAt(lt + 1);
  if (first === 33 /* ! */ && html.startsWith("<!--", lt)) {
    const end = html.indexOf("-->", lt + 4);
    if (end >= 0) return end + 3;
  }
  // Most tags (`<a`, `<div`, `</p`) cannot name an invisible element: one look at their first letter skips the names.
  if (INVISIBLE_FIRST_LETTERS.includes(first)) {
    for (const name of INVISIBLE_ELEMENTS) {
      if (!html.startsWith(name, lt + 1)) continue;
      const afterName = lt + 1 + name.length;
      if (afterName < html.length && WORD_CHAR.test(html[afterName]!)) continue; // `<header>`, `<styles>`
      const end = afterEndTag(html, name, afterName);
      if (end >= 0) return end;
      break; // no end tag: just the start tag, its content counts as text
    }
  }
  const gt = html.indexOf(">", lt + 1);
  return gt >= 0 ? gt + 1 : lt + 1;
}

/** The index after the first `</name\s*>` at or after `from`, or -1. */
function afterEndTag(html: string, name: string, from: number): number {
  const open = "</" + name;
  for (let at = html.indexOf(open, from); at >= 0; at = html.indexOf(open, at + 1)) {
    let q = at + open.length;
    while (q < html.length && SPACE_CHAR.test(html[q]!)) q++;
    if (html.charCodeAt(q) === 62 /* > */) return q + 1;
  }
  return -1;
}

/**
 * Where an HTML page sends its reader at once by a `Refresh` header or a `<meta http-equiv="refresh">` (as written,
 * unresolved), and which of the two; undefined when it does not, or sends them to the page itself (a periodic
 * reload shows this page). The header means what the meta tag means: browsers follow both.
 */
export function refreshOf(page: Page): { target: string; by: "header" | "meta" } | undefined {
  if (!HTML_TYPES.has(page.contentType) || page.statusCode >= 300) return undefined;
  const header = page.headers?.refresh;
  const headerTarget = header === undefined ? undefined : refreshTarget(header);
  if (headerTarget !== undefined && !sameDocument(headerTarget, page.finalUrl)) return { target: headerTarget, by: "header" };
  if (page.text === undefined || page.text.length > MAX_SCAN_CHARS) return undefined;
  const meta = metaRefreshTarget(page.text);
  return meta !== undefined && !sameDocument(meta, page.finalUrl) ? { target: meta, by: "meta" } : undefined;
}

/** Why a fetched page needs JavaScript to show its content, or undefined when it does not. */
export function needsJavaScript(page: Page): string | undefined {
  if (!HTML_TYPES.has(page.contentType) || page.statusCode >= 300) return undefined;
  // A refresh to another address: the browser engine follows it (the HTTP-only router does, engines/refresh-hops.ts).
  const refresh = refreshOf(page);
  if (refresh) return refresh.by === "header" ? "Refresh header to another page" : "meta refresh to another page";
  if (page.text === undefined) return undefined;
  const html = page.text;
  if (html.length > MAX_SCAN_CHARS) return undefined;
  const hasScript = SCRIPT.test(html);
  if (!hasScript && !NOSCRIPT_WALL.test(html)) return undefined;
  const chars = visibleTextLength(html, THIN_TEXT_CHARS);
  if (hasScript && chars < SHELL_TEXT_CHARS) return "script-only shell";
  if (chars < THIN_TEXT_CHARS && NOSCRIPT_WALL.test(html)) return "noscript wall";
  if (hasScript && chars < THIN_TEXT_CHARS && EMPTY_MOUNT.test(html)) return "empty client-side mount point";
  return undefined;
}

/** Whether `target`, resolved against `url`, is `url` itself (a fragment aside). */
function sameDocument(target: string, url: string): boolean {
  try {
    const a = new URL(target, url);
    const b = new URL(url);
    a.hash = "";
    b.hash = "";
    return a.href === b.href;
  } catch {
    return true; // an address that cannot be read sends nowhere
  }
}

const CHALLENGE =
  /cf-browser-verification|challenge-platform|cf_chl_opt|<title>\s*(just a moment|attention required|access denied|pardon our interruption|are you a robot|security check)|_incapsula_resource|px-captcha|captcha-delivery\.com|geo\.captcha-delivery|perimeterx|ddos-guard|sucuri website firewall|distil_r_captcha|please verify you are a human|unusual traffic from your computer/i;

/** Challenge pages are small (Cloudflare's, scripts included, stay under ~50 KB); larger pages are not scanned. */
const CHALLENGE_MAX_HTML_CHARS = 64_000;

/** Why a page looks like a bot wall, or undefined. */
export function looksBlocked(page: Page): string | undefined {
  const html = page.text;
  const challenge =
    html !== undefined &&
    HTML_TYPES.has(page.contentType) &&
    html.length < CHALLENGE_MAX_HTML_CHARS &&
    CHALLENGE.test(html);
  if (challenge) return "challenge page";
  if (page.statusCode === 403) return "HTTP 403";
  // 429/503 with Retry-After is the site asking us to come back later (rate limit, maintenance), not a bot wall:
  // the job layer honours it; an immediate retry in another mode would ignore it.
  if ((page.statusCode === 429 || page.statusCode === 503) && page.headers["retry-after"] === undefined) return `HTTP ${page.statusCode}`;
  return undefined;
}
