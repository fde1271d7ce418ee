/**
 * @module crawl/sitemap-entries
 * The text of each `<url>` / `<sitemap>` entry's `<loc>` in an XML sitemap, in one forward pass.
 *
 * A lazy regex such as `<url>([\s\S]*?)</url>` rescans to the end of the file for every entry that is never closed,
 * which is quadratic, and a sitemap may be 50 MiB. Here the scan only moves forward: the next closing tag of a
 * name and the next `>` come from cursors that remember what they found (once a closing tag is missing, every later
 * opening of that name is unclosed too, at no cost), and extension elements, whose names are open-ended, from an
 * index of the closing tags built once. The matches are those of the regexes this replaced (quoted at each step),
 * on well-formed and malformed files alike.
 */

/** `[\w.-]`: the characters of a name or prefix. */
function isNameCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

/** Regex `\s` (without the `u` flag). */
function isSpaceCode(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  return c > 127 && /\s/.test(String.fromCharCode(c));
}

function nameEnd(s: string, i: number): number {
  while (i < s.length && isNameCode(s.charCodeAt(i))) i++;
  return i;
}

function spaceEnd(s: string, i: number): number {
  while (i < s.length && isSpaceCode(s.charCodeAt(i))) i++;
  return i;
}

/** A tag name in a string: `prefixEnd` is -1 without a prefix, else the index of its `:`. */
interface TagName {
  start: number;
  prefixEnd: number;
  /** Start of the local name. */
  local: number;
  end: number;
}

/**
 * The name after `<` or `</` at `i`: `(?:([\w.-]+):)?([\w.-]+)`, both runs maximal. A regex that backtracked to a
 * shorter run would need `:`, `\s`, `>` or `/` next, which a name character is not, so maximal runs are the only match.
 */
function tagNameAt(s: string, i: number): TagName | undefined {
  const run = nameEnd(s, i);
  if (run === i) return undefined;
  if (s.charCodeAt(run) !== 58) return { start: i, prefixEnd: -1, local: i, end: run };
  const end = nameEnd(s, run + 1);
  return end === run + 1 ? undefined : { start: i, prefixEnd: run, local: run + 1, end };
}

/** Whether the local name is `lower` (letters only), ASCII case-insensitively, as the regexes' `i` flag compares. */
function localIs(s: string, name: TagName, lower: string): boolean {
  if (name.end - name.local !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) if ((s.charCodeAt(name.local + k) | 0x20) !== lower.charCodeAt(k)) return false;
  return true;
}

function prefixOf(s: string, name: TagName): string {
  return name.prefixEnd === -1 ? "" : s.slice(name.start, name.prefixEnd).toLowerCase();
}

/** The first `>` at or after a position, for positions that (nearly always) grow: each stretch is scanned once. */
class GtCursor {
  private from = Infinity;
  private found = -1;
  constructor(private readonly s: string) {}
  next(at: number): number {
    if (at < this.from || (this.found !== -1 && this.found < at)) {
      this.from = at;
      this.found = this.s.indexOf(">", at);
    }
    return this.found;
  }
}

/** End of an opening tag whose name ends at `at`: `(?:\s[^>]*)?>`, that is `>` now, or after a space the first `>`. */
function openingEnd(s: string, at: number, gt: GtCursor): number {
  const c = s.charCodeAt(at);
  if (c === 62) return at + 1;
  if (!isSpaceCode(c)) return -1;
  const g = gt.next(at + 1);
  return g === -1 ? -1 : g + 1;
}

/** End of a closing tag `</(?:prefix:)?local\s*>` whose name (after `</`) is `name`, or -1. */
function closingEnd(s: string, name: TagName): number {
  const close = spaceEnd(s, name.end);
  return s.charCodeAt(close) === 62 ? close + 1 : -1;
}

/**
 * The first closing tag `</(?:prefix:)?local\s*>` of one local name (lower-case, any prefix) at or after a position,
 * for positions that (nearly always) grow: what a lazy `[\s\S]*?</…>` finds, with each stretch scanned once, so
 * that once one is missing the rest cost nothing.
 */
class ClosingCursor {
  private from = Infinity;
  private found: [number, number] | undefined;
  constructor(
    private readonly s: string,
    private readonly local: string,
  ) {}
  next(at: number): [number, number] | undefined {
    if (at < this.from || (this.found && this.found[0] < at)) {
      this.from = at;
      this.found = undefined;
      for (let p = this.s.indexOf("</", at); p !== -1; p = this.s.indexOf("</", p + 1)) {
        const name = tagNameAt(this.s, p + 2);
        const end = name && localIs(this.s, name, this.local) ? closingEnd(this.s, name) : -1;
        if (end !== -1) {
          this.found = [p, end];
          break;
        }
      }
    }
    return this.found;
  }
}

/**
 * The closing tags `</prefix:local\s*>` of a string by exact name, in order, for extension elements: there may be
 * as many names as tags, so a cursor per name could rescan the string per name. Built on first use.
 */
class PrefixedClosings {
  private readonly byName = new Map<string, number[]>();
  constructor(s: string) {
    for (let p = s.indexOf("</"); p !== -1; p = s.indexOf("</", p + 1)) {
      const name = tagNameAt(s, p + 2);
      const end = name && name.prefixEnd !== -1 ? closingEnd(s, name) : -1;
      if (end === -1) continue;
      const key = s.slice(name!.start, name!.end);
      const list = this.byName.get(key);
      if (list) list.push(p, end);
      else this.byName.set(key, [p, end]);
    }
  }
  /** End of the first closing tag named `key` (`prefix:local`, case-sensitive) starting at or after `at`, or -1. */
  endAfter(key: string, at: number): number {
    const list = this.byName.get(key);
    if (!list) return -1;
    let lo = 0;
    let hi = list.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[2 * mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length / 2 ? list[2 * lo + 1]! : -1;
  }
}

/** End of the first `</prefix:local\s*>` at or after `at`, `needle` being `</prefix:local`, or -1. */
function nextClosingEnd(s: string, needle: string, at: number): number {
  for (let p = s.indexOf(needle, at); p !== -1; p = s.indexOf(needle, p + 1)) {
    const close = spaceEnd(s, p + needle.length);
    if (s.charCodeAt(close) === 62) return close + 1;
  }
  return -1;
}

/**
 * `/<(?:([\w.-]+):)?(url|sitemap)(?:\s[^>]*)?>([\s\S]*?)<\/(?:[\w.-]+:)?\2\s*>/gi`: each entry's prefix and content.
 * An entry that is never closed is skipped and the scan goes on at the next `<`, as the regex does.
 */
function entries(body: string): { prefix: string; content: string }[] {
  const gt = new GtCursor(body);
  const urlEnds = new ClosingCursor(body, "url");
  const sitemapEnds = new ClosingCursor(body, "sitemap");
  const out: { prefix: string; content: string }[] = [];
  for (let i = body.indexOf("<"); i !== -1; ) {
    const name = tagNameAt(body, i + 1);
    const ends = !name ? undefined : localIs(body, name, "url") ? urlEnds : localIs(body, name, "sitemap") ? sitemapEnds : undefined;
    const start = ends ? openingEnd(body, name!.end, gt) : -1;
    const close = start === -1 ? undefined : ends!.next(start);
    if (!close) {
      i = body.indexOf("<", i + 1);
      continue;
    }
    out.push({ prefix: prefixOf(body, name!), content: body.slice(start, close[0]) });
    i = body.indexOf("<", close[1]);
  }
  return out;
}

/**
 * Extension elements (`<image:image>…</image:image>`, `<video:video>`, `<xhtml:link/>`) dropped with their content:
 * `/<([\w.-]+):([\w.-]+)(?:\s[^>]*)?>[\s\S]*?<\/\1:\2\s*>/g` then `/<([\w.-]+):[\w.-]+(?:\s[^>]*)?\/>/g`, each
 * match removed unless its prefix is one of `own` (a kept match is still skipped whole).
 */
function withoutExtensions(content: string, own: ReadonlySet<string>): string {
  let closings: PrefixedClosings | undefined;
  const paired = removeMatches(content, own, (name, gt, s) => {
    const start = openingEnd(s, name.end, gt);
    if (start === -1) return -1;
    const key = s.slice(name.start, name.end);
    if (closings) return closings.endAfter(key, start);
    // A found closing tag ends the match, so these searches cover disjoint stretches; after the first miss (which
    // would repeat for every later unclosed element) the index answers.
    const end = nextClosingEnd(s, `</${key}`, start);
    if (end === -1) closings = new PrefixedClosings(s);
    return end;
  });
  return removeMatches(paired, own, (name, gt, s) => {
    if (s.charCodeAt(name.end) === 47) return s.charCodeAt(name.end + 1) === 62 ? name.end + 2 : -1;
    if (!isSpaceCode(s.charCodeAt(name.end))) return -1;
    const g = gt.next(name.end + 1);
    return g !== -1 && s.charCodeAt(g - 1) === 47 ? g + 1 : -1;
  });
}

/** A global replace of prefixed-tag matches: `matchEnd` gives where the match at a `<` ends, or -1. */
function removeMatches(s: string, own: ReadonlySet<string>, matchEnd: (name: TagName, gt: GtCursor, s: string) => number): string {
  if (!/<[\w.-]+:/.test(s)) return s; // no prefixed tag: the common entry, answered by one native scan
  const gt = new GtCursor(s);
  let out = "";
  let kept = 0;
  for (let i = s.indexOf("<"); i !== -1; ) {
    const run = nameEnd(s, i + 1);
    // Only prefixed tags can match: the others are passed over without building their name.
    const name = run > i + 1 && s.charCodeAt(run) === 58 ? tagNameAt(s, i + 1) : undefined;
    const end = name ? matchEnd(name, gt, s) : -1;
    if (end === -1) {
      i = s.indexOf("<", i + 1);
      continue;
    }
    if (!own.has(prefixOf(s, name!))) {
      out += s.slice(kept, i);
      kept = end;
    }
    i = s.indexOf("<", end);
  }
  return kept === 0 ? s : out + s.slice(kept);
}

const LOC_OPENING = /<(?:([\w.-]+):)?loc\s*>/gi;
const LOC_CLOSING = /<\/(?:[\w.-]+:)?loc\s*>/gi;

/**
 * The first `<loc>` of an entry's content with one of the `own` prefixes:
 * `/<(?:([\w.-]+):)?loc\s*>([\s\S]*?)<\/(?:[\w.-]+:)?loc\s*>/gi`, matches of other prefixes skipped whole. Split
 * in two regexes that each only move forward: once a closing tag is missing, every later `<loc>` is unclosed too.
 */
function firstOwnLoc(content: string, own: ReadonlySet<string>): string | undefined {
  LOC_OPENING.lastIndex = 0;
  for (let open = LOC_OPENING.exec(content); open; open = LOC_OPENING.exec(content)) {
    LOC_CLOSING.lastIndex = LOC_OPENING.lastIndex;
    const close = LOC_CLOSING.exec(content);
    if (!close) return undefined;
    if (own.has((open[1] ?? "").toLowerCase())) return content.slice(LOC_OPENING.lastIndex, close.index);
    LOC_OPENING.lastIndex = LOC_CLOSING.lastIndex;
  }
  return undefined;
}

/**
 * The raw text of each entry's own `<loc>`, in order: entries (`<url>`, `<sitemap>`) and `<loc>`s whose prefix is in
 * `own` (the sitemap protocol's prefixes), extension elements of other prefixes dropped first.
 */
export function ownLocTexts(body: string, own: ReadonlySet<string>): string[] {
  const texts: string[] = [];
  for (const entry of entries(body)) {
    if (!own.has(entry.prefix)) continue;
    const text = firstOwnLoc(withoutExtensions(entry.content, own), own);
    if (text !== undefined) texts.push(text);
  }
  return texts;
}
