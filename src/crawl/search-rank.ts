/**
 * @module crawl/search-rank
 * The `search` option of `POST /v2/map`: keeps the links that are relevant to a text and orders them best
 * first. Upstream ranks by cosine similarity of URL tokens (plus its search index); without an index we score
 * the words of the URL (host, path, query), the page title and the description, which is what the map knows.
 *
 * Score per query word: URL word equal 3, URL word sharing a stem (a common prefix of 4+ letters covering the
 * shorter word, e.g. `tomato`/`tomatoes`) 2, substring of the URL 1; title word equal 2, stem or substring 1;
 * description word 1. The whole phrase in the title or URL adds 2. Links scoring 0 are dropped; ties keep
 * discovery order.
 */

/** What ranking reads from a link. */
export interface RankableLink {
  url: string;
  title?: string;
  description?: string;
}

/** Lower-cased words (letters and digits of any script). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

function sameStem(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
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

/** The links relevant to `search`, best first (stable). A query without words returns `links` unchanged. */
export function rankBySearch<T extends RankableLink>(links: readonly T[], search: string): T[] {
  const q = [...new Set(words(search))];
  if (q.length === 0) return [...links];
  const phrase = q.join(" ");
  return links
    .map((link, i) => ({ link, i, score: relevance(link, q, phrase) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.link);
}
