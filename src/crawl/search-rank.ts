/**
 * @module crawl/search-rank
 * The `search` option of `POST /v2/map`: keeps the links that are relevant to a text and orders them best
 * first. Upstream ranks by cosine similarity of URL tokens (plus its search index); without an index we score
 * the words of the URL (host, path, query), the page title and the description, which is what the map knows.
 *
 * Score per query word: URL word equal 3, URL word of the same stem 2, substring of the URL 1; title word equal 2,
 * same stem or substring 1; description word 1. The whole phrase in the title or URL adds 2. Links scoring 0 are
 * dropped.
 *
 * Same stem ({@link sameStem}): a common prefix of 4+ letters covering the shorter word (`tomato`/`tomatoes`,
 * `page`/`pages`); for shorter words, the word and its plural (`faq`/`faqs`, `api`/`apis`, `key`/`keys`, and `es`
 * after s, x or z: `box`/`boxes`), which the prefix rule missed, so `search:"faqs"` found nothing though `/docs/faq`
 * existed. A word already ending in s has no plural by `+s`, and a few common 4-letter words ending in s are not
 * plurals of a 3-letter one ({@link NOT_PLURALS}: `news` is not `new`).
 *
 * Two bonuses name the page a user means. A link whose last path segment is the query (its words, in order:
 * `/pricing` for "pricing", `/getting-started/` for "getting started", `/pricing.html` and `/pricing/index.html` too)
 * gets {@link EXACT_SEGMENT_BONUS}, one less written in another case (an uppercase `/Pricing` variant is often a
 * 404). A title whose leading part (before the first ` | `, ` - `, `—`, `–`, `:`, `·`, `•`: what the page calls
 * itself, not the site's name after it) has every query word gets {@link TITLE_MATCH_BONUS}, less: a page that calls
 * itself the thing searched for is a good sign, but one that only names the site or section (`Quickstart | Acme
 * Docs`) is none. The segment bonus used to put a link above every score, so an unfetched `/blog/tag/python-sdk`
 * (no title) came before `/docs/sdk/python` titled "Python SDK", and `/blog/2019/03/pricing` before
 * `/en-us/pricing-plans` titled "Pricing"; a title bonus as large as it, given to any title with the words, then put
 * `/docs` ("Documentation") 17th of 18 behind its children titled "… | Acme Docs".
 *
 * Order: by score; on equal scores a link whose last segment is the query first, and among those the shallower
 * path (fewer segments, then fewer characters: `/pricing` before `/en/pricing`); other ties keep the listing's order
 * (the site's own, which a depth rule would overturn: `/docs-archive` before the `/docs/a` that `/docs` lists).
 */

/** What ranking reads from a link. */
export interface RankableLink {
  url: string;
  title?: string;
  description?: string;
}

/** A search text as ranking uses it; {@link searchQuery} makes one. */
export interface SearchQuery {
  /** Its words, lower-cased, each once. */
  words: readonly string[];
  /** The words joined by single spaces. */
  phrase: string;
}

/** How well a link matches a query, compared by {@link compareRanks}. */
export interface SearchRank {
  /** {@link relevance} and the bonuses (see the module comment); 0: unrelated (the link is dropped). */
  score: number;
  /** The last path segment is the query (in any case). */
  exact: boolean;
  /** Segments of the path (an index file and a trailing slash not counted): fewer wins among exact matches. */
  depth: number;
  /** Characters of that path: fewer wins among exact matches of one depth. */
  pathLength: number;
}

/** Score added when a link's last path segment is the query (one less when not written in lower case). */
export const EXACT_SEGMENT_BONUS = 3;
/**
 * Score added when the leading part of a link's title has every query word (or a form of it): less than
 * {@link EXACT_SEGMENT_BONUS}, enough with the title's word scores to put a page titled as the query before a bare
 * exact segment.
 */
export const TITLE_MATCH_BONUS = 2;

/** Words ending in s of 4 letters that are not the plural of their first three (`news` is not `new`s). */
const NOT_PLURALS = new Set(["news", "plus", "lens", "this", "thus", "bias"]);
/** A page's file extension, which a slug does not carry (`/pricing.html` is the pricing page). */
const PAGE_EXTENSION = /\.(?:html?|php|aspx?|jsp)$/i;
/** A directory's index file, which is the directory (crawl/url-normalize.ts folds it too). */
const INDEX_FILE = /\/index\.(?:html?|php)$/i;
/** Where a title's own name ends and the site's or section's begins (`Quickstart | Acme Docs`, `Pricing — Acme`). */
const TITLE_SEPARATOR = /\s[|\-–—·•]\s|[|–—·•:]/;

/** Lower-cased words (letters and digits of any script). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

/** The query of a search text; undefined when it has no words (such a search keeps every link). */
export function searchQuery(search: string): SearchQuery | undefined {
  const q = [...new Set(words(search))];
  return q.length === 0 ? undefined : { words: q, phrase: q.join(" ") };
}

/** Whether two lower-cased words are one word's forms: see the module comment. */
function sameStem(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 4) return long.startsWith(short);
  if (short.length < 3 || !long.startsWith(short) || NOT_PLURALS.has(long)) return false;
  const suffix = long.slice(short.length);
  return (suffix === "s" && !short.endsWith("s")) || (suffix === "es" && /[sxz]$/.test(short));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The relevance of `link` to the query words `q` (0 = unrelated). */
export function relevance(link: RankableLink, q: readonly string[], phrase: string): number {
  let urlText: string;
  try {
    const u = new URL(link.url);
    urlText = safeDecode(`${u.hostname}${u.pathname}${u.search}`).toLowerCase();
  } catch {
    urlText = link.url.toLowerCase();
  }
  const urlWords = words(urlText);
  const title = (link.title ?? "").toLowerCase();
  const titleWords = words(title);
  const descWords = words(link.description ?? "");
  let score = 0;
  for (const w of q) {
    if (urlWords.includes(w)) score += 3;
    else if (urlWords.some((u) => sameStem(u, w))) score += 2;
    else if (urlText.includes(w)) score += 1;
    if (titleWords.includes(w)) score += 2;
    else if (titleWords.some((t) => sameStem(t, w)) || title.includes(w)) score += 1;
    if (descWords.includes(w) || descWords.some((d) => sameStem(d, w))) score += 1;
  }
  if (score > 0 && q.length > 1 && (title.includes(phrase) || urlText.replace(/[-_/]+/g, " ").includes(phrase))) score += 2;
  return score;
}

/** The rank of `link` for `query`. */
export function searchRank(link: RankableLink, query: SearchQuery): SearchRank {
  const relevant = relevance(link, query.words, query.phrase);
  let path: string;
  try {
    path = safeDecode(new URL(link.url).pathname).replace(INDEX_FILE, "/").replace(/\/+$/, "");
  } catch {
    return { score: relevant, exact: false, depth: Infinity, pathLength: Infinity };
  }
  const depth = path.split("/").filter((s) => s !== "").length;
  const segment = path.slice(path.lastIndexOf("/") + 1).replace(PAGE_EXTENSION, "");
  const exact = relevant > 0 && words(segment).join(" ") === query.phrase;
  if (relevant === 0) return { score: 0, exact, depth, pathLength: path.length };
  let score = relevant;
  if (exact) score += segment === segment.toLowerCase() ? EXACT_SEGMENT_BONUS : EXACT_SEGMENT_BONUS - 1;
  const titleWords = words(leadingTitle(link.title ?? ""));
  if (query.words.every((w) => titleWords.some((t) => t === w || sameStem(t, w)))) score += TITLE_MATCH_BONUS;
  return { score, exact, depth, pathLength: path.length };
}

/**
 * A title's first non-empty part before a separator ({@link TITLE_SEPARATOR}): what the page calls itself.
 *
 * @example leadingTitle("Quickstart | Acme Docs") // "Quickstart"
 */
function leadingTitle(title: string): string {
  return title.split(TITLE_SEPARATOR).find((part) => words(part).length > 0) ?? "";
}

/** Negative when `a` ranks before `b`, positive after, 0 for a tie (see the module comment for the order). */
export function compareRanks(a: SearchRank, b: SearchRank): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.exact !== b.exact) return a.exact ? -1 : 1;
  return a.exact ? a.depth - b.depth || a.pathLength - b.pathLength : 0;
}

/** The links relevant to `search`, best first (stable). A query without words returns `links` unchanged. */
export function rankBySearch<T extends RankableLink>(links: readonly T[], search: string): T[] {
  const query = searchQuery(search);
  if (!query) return [...links];
  return links
    .map((link, i) => ({ link, i, rank: searchRank(link, query) }))
    .filter((x) => x.rank.score > 0)
    .sort((a, b) => compareRanks(a.rank, b.rank) || a.i - b.i)
    .map((x) => x.link);
}
