/**
 * @module search/searxng
 * The search backend: a SearXNG instance (`SEARXNG_ENDPOINT`, upstream's self-host variable), asked through its
 * JSON API (`GET /search?q=…&format=json`, docs.searxng.org/dev/search_api). SearXNG is the operator's own
 * service, usually on the private network, so it is reached like the LLM provider: by a fetch pinned to the
 * configured origin and path, never redirected (llm/pinned-fetch.ts), not through the egress gate. Result pages
 * are read until `limit` hits are collected or a page adds nothing new.
 *
 * Which engines run: SearXNG takes `engines=` and `categories=` as a union (searx/webadapter.py `parse_generic`:
 * the named engines, each under its first category, plus every engine of the named categories). So
 * `SEARXNG_ENGINES` goes alone on web queries, where it replaces the `general` engines, and never on news, images or
 * the category queries, where it would add its web engines to them. Each hit is labelled with its engine's first
 * category (searx/results.py), and a hit outside the query's categories is dropped: an image engine named in
 * `SEARXNG_ENGINES` then gives no "web" results, and a web engine no images.
 */
import { createPinnedFetch, LlmResponseTooLargeError } from "../llm/pinned-fetch.ts";
import { SearchBackendError, SearchEnginesSilentError } from "./errors.ts";

/** Result pages read at most for one query: enough for `limit` at ~10 hits a page, plus two for filtered hits. */
const pagesFor = (limit: number) => Math.min(12, Math.ceil(limit / 10) + 2);
/** Largest SearXNG answer read (a page of hits is tens of KB). */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** SearXNG's category of web results, and the label of the hits of its web engines (duckduckgo, brave, wikipedia…). */
const WEB_CATEGORY = "general";

/** What one query asks of the backend. */
export interface BackendQuery {
  query: string;
  /** `general` for web results, `news`, `images`, or `science` for research papers. */
  category: string;
  limit: number;
  /** SearXNG language code, e.g. `en` or `en-US` (search/language.ts); none: the instance's default. */
  language?: string;
  timeRange?: "day" | "week" | "month" | "year";
  /** 0 off, 1 moderate, 2 strict. */
  safeSearch?: 0 | 1 | 2;
  signal?: AbortSignal;
  /**
   * Keep only hits this accepts (domain filters, an image's picture); filtered hits do not count towards `limit`.
   * Hits outside the query's category are dropped before.
   */
  accept?: (hit: BackendHit) => boolean;
}

/** One SearXNG result, as its JSON gives it (only the fields crawlbox uses). */
export interface BackendHit {
  url: string;
  title: string;
  content: string;
  publishedDate?: string;
  imgSrc?: string;
  /** `thumbnail_src` (images), else `thumbnail` (news and web results of current SearXNG). */
  thumbnailSrc?: string;
  resolution?: string;
  /** SearXNG's label: the first category of the engine that found it (searx/results.py); absent from old answers. */
  category?: string;
}

/** A search backend. */
export interface SearchBackend {
  search(q: BackendQuery): Promise<BackendHit[]>;
}

/** Options of {@link createSearxngBackend}. */
export interface SearxngOptions {
  /** The instance's base URL (`…/` or `…/searxng`); `/search` is appended. */
  endpoint: string;
  /**
   * `SEARXNG_ENGINES`: comma-separated engines for web queries, in place of the instance's `general` engines; empty =
   * those. News, images and the category queries always use the instance's engines of that category.
   */
  engines: string;
  /**
   * `SEARXNG_CATEGORIES`: comma-separated categories for web queries instead of `general`. With `SEARXNG_ENGINES`
   * they are not sent (SearXNG would add their engines), only used to keep the hits labelled with one of them.
   */
  categories: string;
  /** fetch under the pinned fetch (tests observe it). */
  fetch?: typeof fetch;
  /** Where the details of a backend failure go: the client's message names neither the address nor the cause. */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

function parseHit(raw: unknown): BackendHit | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const url = str(r.url);
  if (!url || !/^https?:\/\//i.test(url) || !URL.canParse(url)) return undefined;
  const hit: BackendHit = { url, title: str(r.title) ?? "", content: str(r.content) ?? "" };
  const date = str(r.publishedDate) ?? str(r.pubdate);
  if (date) hit.publishedDate = date;
  if (str(r.img_src)) hit.imgSrc = str(r.img_src);
  // Images carry `thumbnail_src`; current news (and web) engines `thumbnail` (searx/result_types).
  const thumbnail = str(r.thumbnail_src) || str(r.thumbnail);
  if (thumbnail) hit.thumbnailSrc = thumbnail;
  if (str(r.resolution)) hit.resolution = str(r.resolution);
  if (typeof r.category === "string") hit.category = r.category;
  return hit;
}

/** SearXNG's `unresponsive_engines` (`[[name, reason], …]`) as "name (reason)" strings, at most 20, each short. */
function unresponsiveEngines(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const clip = (x: unknown) => (typeof x === "string" ? x.replace(/\s+/g, " ").trim().slice(0, 80) : "");
  return value.slice(0, 20).flatMap((entry) => {
    const [name, reason] = Array.isArray(entry) ? entry.map(clip) : [clip(entry), ""];
    return name ? [reason ? `${name} (${reason})` : name] : [];
  });
}

/** Creates the SearXNG backend. */
export function createSearxngBackend(options: SearxngOptions): SearchBackend {
  const base = options.endpoint.replace(/\/+$/, "");
  const pinned = createPinnedFetch(base, options.fetch ?? fetch, MAX_RESPONSE_BYTES);
  const list = (csv: string) => csv.split(",").map((x) => x.trim()).filter(Boolean);
  const webCategories = list(options.categories);
  const engines = list(options.engines).join(",");

  /**
   * The categories a query's hits may carry. A web query also keeps `general`: SearXNG labels a hit with its engine's
   * first category, which for web engines is `general` even when they were asked through another of theirs (`web`).
   */
  function categoriesOf(q: BackendQuery): Set<string> {
    return new Set(q.category === WEB_CATEGORY ? [WEB_CATEGORY, ...webCategories] : [q.category]);
  }

  /** A failure for the client (no address, which is the operator's private business), logged in full. */
  function failure(clientMessage: string, detail: string, cause?: unknown): SearchBackendError {
    options.log?.("search backend failed", { endpoint: base, detail });
    return new SearchBackendError(`${clientMessage} (details in the server log).`, cause);
  }

  /** One result page: its raw hits, and the engines SearXNG lists as not having answered (`[name, reason]` pairs). */
  async function page(q: BackendQuery, pageno: number): Promise<{ results: unknown[]; unresponsive: string[] }> {
    const params = new URLSearchParams({ q: q.query, format: "json", pageno: String(pageno) });
    if (q.language) params.set("language", q.language);
    if (q.category !== WEB_CATEGORY) params.set("categories", q.category);
    else if (engines) params.set("engines", engines);
    else params.set("categories", webCategories.length > 0 ? webCategories.join(",") : WEB_CATEGORY);
    if (q.timeRange) params.set("time_range", q.timeRange);
    if (q.safeSearch !== undefined) params.set("safesearch", String(q.safeSearch));
    let res: Response;
    try {
      res = await pinned(`${base}/search?${params}`, { headers: { accept: "application/json" }, ...(q.signal ? { signal: q.signal } : {}) });
    } catch (err) {
      if (q.signal?.aborted) throw err;
      // The pinned fetch reads the body too: an answer over the cap reached us, it is not a connection failure.
      if (err instanceof LlmResponseTooLargeError) throw failure(`The search backend answered more than ${MAX_RESPONSE_BYTES} bytes (4 MiB), more than a page of results can be`, (err as Error).message, err);
      throw failure("The search backend could not be reached", (err as Error).message, err);
    }
    if (res.status === 403) {
      throw failure('The search backend refused format=json: enable "json" under search.formats in its settings.yml', "HTTP 403");
    }
    if (!res.ok) throw failure(`The search backend answered HTTP ${res.status}`, `HTTP ${res.status}`);
    let body: unknown;
    try {
      body = await res.json();
    } catch (err) {
      throw failure("The search backend did not answer JSON: is SEARXNG_ENDPOINT a SearXNG instance?", (err as Error).message, err);
    }
    const results = (body as { results?: unknown })?.results;
    if (!Array.isArray(results)) throw failure("The search backend answered JSON without a results list", "no results array");
    return { results, unresponsive: unresponsiveEngines((body as { unresponsive_engines?: unknown }).unresponsive_engines) };
  }

  return {
    async search(q) {
      const hits: BackendHit[] = [];
      const seen = new Set<string>();
      const categories = categoriesOf(q);
      const inCategory = (hit: BackendHit) => hit.category === undefined || categories.has(hit.category);
      const accept = (hit: BackendHit) => inCategory(hit) && (q.accept ?? (() => true))(hit);
      const unresponsive = new Set<string>();
      let answered = 0; // hits of the query's categories, before the caller's filters
      let barren = 0; // pages in a row whose hits were all filtered out
      for (let pageno = 1; pageno <= pagesFor(q.limit) && hits.length < q.limit && barren < 2; pageno++) {
        let added = 0;
        const before = hits.length;
        const answer = await page(q, pageno);
        for (const engine of answer.unresponsive) unresponsive.add(engine);
        for (const raw of answer.results) {
          const hit = parseHit(raw);
          if (!hit || seen.has(hit.url)) continue;
          seen.add(hit.url);
          added++;
          if (inCategory(hit)) answered++;
          if (accept(hit) && hits.length < q.limit) hits.push(hit);
        }
        if (added === 0) break;
        barren = hits.length === before ? barren + 1 : 0;
      }
      // Nothing came back while engines failed (blocked by a CAPTCHA, timed out): not "no results", which would be a
      // lie. Hits of the query's categories that the caller's filters (domains, time window) all left out are an
      // answer: no results. (Hits of other categories, an image engine's on a web query, answer nothing.)
      if (answered === 0 && unresponsive.size > 0) {
        options.log?.("search engines did not answer", { endpoint: base, engines: [...unresponsive].join(", ") });
        throw new SearchEnginesSilentError([...unresponsive]);
      }
      return hits;
    },
  };
}
