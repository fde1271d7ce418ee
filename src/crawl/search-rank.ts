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
 * Short and numeric words match whole words only ({@link wholeWordOnly}: under 3 characters, or with a digit), with
 * no substring, stem or plural, and the phrase bonus wants them whole at its ends: `search:"a guide"` kept every
 * URL or title with an "a" in it (`/about`, a "Data guide" title given the phrase bonus too) and `"page 2"` gave
 * `/blog/page-21` the phrase bonus and `/page-12` a point. This holds only for words of digits and of the scripts
 * whose words stand alone between spaces ({@link STANDALONE_WORD_CHAR}: Latin, Greek, Cyrillic, Armenian,
 * Georgian). Elsewhere a short word is found inside a longer run, as before: Han, kana, Thai, Lao, Khmer, Myanmar
 * have no spaces; Hangul writes particles and compounds onto a noun, mostly of 2 syllables (`서울` in `서울의`,
 * `서울시`; `가격` in `가격표`); Hebrew and Arabic write prefixes onto a word (`בגן`, `والسعر`); Indic scripts attach
 * suffixes, and their vowel signs split {@link words}. Agglutinative languages written in Latin or Cyrillic (Turkish
 * `su`/`suyu`) cannot be told by script and lose that for their 1-2 letter stems. A word is whole where the
 * characters beside it are no letters of those scripts nor digits, so `2024` is in `2024年度` and `v2` in `v2버전`
 * (a point as for a form of the word), not in `20245` or `v20`.
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
  /** Its words as matched, in the order of {@link words}: worked out once per query, not per link. */
  terms: readonly QueryTerm[];
  /** Whether a lower-cased text has the phrase (whole at an end whose word is {@link QueryTerm.whole}). */
  hasPhrase: (text: string) => boolean;
}

/** A query word and how it is matched. */
export interface QueryTerm {
  word: string;
  /** {@link wholeWordOnly}: no stem, plural or substring; `within` finds it inside a longer run of another script. */
  whole: boolean;
  /** For a whole word: whether a lower-cased text has it with no {@link STANDALONE_WORD_CHAR} on either side. */
  within?: (text: string) => boolean;
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

/**
 * A character that continues a word written between spaces: a letter of Latin, Greek, Cyrillic, Armenian or
 * Georgian, a digit, or a mark on one. The scripts whose short words {@link wholeWordOnly} keeps whole (see the
 * module comment for why not Hangul, Han, Hebrew, Arabic, Indic...).
 */
const STANDALONE_WORD_CHAR = "[\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}\\p{Script=Armenian}\\p{Script=Georgian}\\p{N}\\p{M}]";
/** A word made only of {@link STANDALONE_WORD_CHAR}. */
const STANDALONE_WORD = new RegExp(`^${STANDALONE_WORD_CHAR}+$`, "u");

/**
 * Whether query word `w` matches only a whole word (equal, no substring, stem or plural): under 3 characters (`a`,
 * `v2`), or with a digit (`2024` is not `20245`, `v10` not `v100`), and of digits and standalone-word scripts only.
 */
function wholeWordOnly(w: string): boolean {
  return (w.length < 3 || /\p{N}/u.test(w)) && STANDALONE_WORD.test(w);
}

/**
 * A matcher of `text` in a lower-cased text: anywhere, but not beside a {@link STANDALONE_WORD_CHAR} at an end marked
 * whole (`page 2` is not in `page 21`, `a guide` not in `data guide`; `2024` is in `2024年度`). `text` is letters,
 * digits and single spaces, nothing a pattern would read as syntax.
 */
function matcher(text: string, wholeStart: boolean, wholeEnd: boolean): (s: string) => boolean {
  if (!wholeStart && !wholeEnd) return (s) => s.includes(text);
  const re = new RegExp(`${wholeStart ? `(?<!${STANDALONE_WORD_CHAR})` : ""}${text}${wholeEnd ? `(?!${STANDALONE_WORD_CHAR})` : ""}`, "u");
  return (s) => s.includes(text) && re.test(s);
}

/** The {@link QueryTerm} of query word `word`. */
function queryTerm(word: string): QueryTerm {
  return wholeWordOnly(word) ? { word, whole: true, within: matcher(word, true, true) } : { word, whole: false };
}

/** Whether one of `textWords` is `term`'s word or (unless whole) a form of it, or the whole word is `within` `text`. */
function textHas(text: string, textWords: readonly string[], term: QueryTerm): boolean {
  return term.within ? textWords.includes(term.word) || term.within(text) : textWords.some((t) => t === term.word || sameStem(t, term.word));
}

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
  if (q.length === 0) return undefined;
  const terms = q.map(queryTerm);
  const phrase = q.join(" ");
  return { words: q, phrase, terms, hasPhrase: matcher(phrase, terms[0]!.whole, terms[terms.length - 1]!.whole) };
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

/** The relevance of `link` to `query` (0 = unrelated). */
export function relevance(link: RankableLink, query: SearchQuery): number {
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
  let description: string | undefined; // lower-cased when a whole word needs it
  let score = 0;
  for (const term of query.terms) {
    const w = term.word;
    if (urlWords.includes(w)) score += 3;
    else if (term.within ? term.within(urlText) : urlWords.some((u) => sameStem(u, w))) score += 2;
    else if (!term.whole && urlText.includes(w)) score += 1;
    if (titleWords.includes(w)) score += 2;
    else if (term.within ? term.within(title) : titleWords.some((t) => sameStem(t, w)) || title.includes(w)) score += 1;
    if (term.within ? descWords.includes(w) || term.within((description ??= (link.description ?? "").toLowerCase())) : descWords.some((d) => d === w || sameStem(d, w))) score += 1;
  }
  if (score > 0 && query.terms.length > 1 && (query.hasPhrase(title) || query.hasPhrase(urlText.replace(/[-_/]+/g, " ")))) score += 2;
  return score;
}

/** The rank of `link` for `query`. */
export function searchRank(link: RankableLink, query: SearchQuery): SearchRank {
  const relevant = relevance(link, query);
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
  const leading = leadingTitle(link.title ?? "").toLowerCase();
  const titleWords = words(leading);
  if (query.terms.every((term) => textHas(leading, titleWords, term))) score += TITLE_MATCH_BONUS;
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
