/**
 * @module search/service
 * `POST /v2/search` (api-v2.md §2.7, §3.3): asks the search backend (search/searxng.ts) for each requested source
 * (`web`, `news`, `images`), applies categories and domain filters, and, when `scrapeOptions.formats` asks for
 * content, scrapes the web and news results through the normal scrape path (concurrency limiter, egress gate,
 * cache, credits), and replaces their descriptions with the passages of their pages that answer the query
 * (search/highlights.ts).
 *
 * The answer is upstream's: `{success:true, data:{web?, news?, images?}, creditsUsed, id, warning?}`, each
 * source's list present when it was requested. Cost: 2 credits per started 10 results (upstream's price), plus
 * what each scraped result costs as a scrape; the most the search can cost is checked before SearXNG is asked.
 * The request's `timeout` bounds the search (408 when SearXNG has not answered in time); results still being
 * scraped when it passes are returned without their documents, with a warning, because the pages already
 * scraped were paid for. With `asyncScraping`, the results come back at once and their pages are scraped as a
 * batch job (durable, retried, charged as they finish): `scrapeIds` name each result's scrape, which
 * `GET /v2/scrape/{id}` returns once it is done.
 */
import type { SearchCategory, SearchRequest, SearchSource } from "../api/search.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { BadRequestError, CrawlboxError } from "../errors.ts";
import { MAX_TIMEOUT_MS, specFromOptions, type SpecDefaults } from "../scrape/from-options.ts";
import type { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { FileSink } from "../scrape/render-context.ts";
import type { ScrapeDocument } from "../scrape/document.ts";
import { forEachLimited } from "../scrape/each-limited.ts";
import type { ScrapeService } from "../scrape/service.ts";
import { SearchEnginesSilentError, SearchNotConfiguredError, SearchTimeoutError } from "./errors.ts";
import type { BackendHit, BackendQuery, SearchBackend } from "./searxng.ts";
import { CATEGORY_QUERIES, domainOf, hostOf, imageSize, inReducedDomain, safeSearch, siteTerms } from "./query.ts";
import { timeWindow, withinWindow } from "./time-window.ts";
import { countryOfLocation } from "./location.ts";
import { searxngLanguage } from "./language.ts";
import { highlight } from "./highlights.ts";

/** Credits per started block of 10 results (upstream's price). */
export const SEARCH_CREDITS_PER_10 = 2;
/** Results scraped at once by one search (each also takes a slot of the server's scrape limiter). */
const SCRAPE_CONCURRENCY = 4;
/** Content (characters of markdown, html, rawHtml) one search answer may carry; later results come without it. */
export const MAX_SEARCH_CONTENT_CHARS = 64 * 1024 * 1024;

/** Dependencies of {@link SearchService}. */
export interface SearchServiceDeps {
  /** Undefined when `SEARXNG_ENDPOINT` is not set: every search is a 400 naming it. */
  backend?: SearchBackend;
  scrape: ScrapeService;
  /** The server's scrape slots (`CRAWLBOX_MAX_CONCURRENCY`), shared with `POST /v2/scrape`. */
  limiter: ConcurrencyLimiter;
  ledger: CreditLedger;
  config: SpecDefaults;
  newId?: () => string;
  /** The clock `tbs` windows are measured from. @default Date.now */
  now?: () => number;
  /** The longest a search waits, whatever its `timeout` asks (tests shorten it). @default MAX_TIMEOUT_MS (5 minutes) */
  maxTimeoutMs?: number;
  /**
   * `asyncScraping`: starts `urls` as a batch scrape job with `scrapeOptions` and returns each URL's scrape id
   * (its task id, which `GET /v2/scrape/{id}` resolves).
   */
  startScrapes?: (urls: string[], scrapeOptions: SearchRequest["scrapeOptions"], who: KeyIdentity, publicBaseUrl: string) => Map<string, string>;
}

type Result = Record<string, unknown>;

/** The `POST /v2/search` answer. */
export interface SearchResponse {
  success: true;
  data: { web?: Result[]; news?: Result[]; images?: Result[] };
  creditsUsed: number;
  id: string;
  warning?: string;
  /** `asyncScraping`: the scrape id of each web and news result, in the results' order. */
  scrapeIds?: { web?: string[]; news?: string[]; images?: string[] };
}

/** Runs searches. */
export class SearchService {
  private readonly newId: () => string;

  constructor(private readonly deps: SearchServiceDeps) {
    this.newId = deps.newId ?? (() => crypto.randomUUID());
  }

  /**
   * Searches for `who`; `files` stores what scraped results produce (screenshots). `chargeCredits: false` leaves
   * charging `creditsUsed` to the caller (an extract job, which charges each credit once across its runs).
   */
  async search(req: SearchRequest, who: KeyIdentity, options: { signal?: AbortSignal; files?: FileSink; chargeCredits?: boolean; publicBaseUrl?: string } = {}): Promise<SearchResponse> {
    const { backend, scrape, ledger, config } = this.deps;
    if (!backend) throw new SearchNotConfiguredError();
    const formats = req.scrapeOptions.formats;
    const zeroDataRetention = req.enterprise?.includes("zdr") ?? false;
    const later = req.asyncScraping && formats.length > 0 && this.deps.startScrapes !== undefined;
    if (later && zeroDataRetention) {
      throw new BadRequestError("asyncScraping cannot be combined with zero data retention: its results are fetched later, so they would have to be kept.");
    }
    // A request whose formats this build cannot render is refused before anything is searched or charged.
    if (formats.length > 0) scrape.validate(specFromOptions("https://example.com/", "https://example.com/", req.scrapeOptions, { zeroDataRetention }, config));
    const kinds = [...new Map(req.sources.map((s) => [s.type, s])).values()];
    // The most the search itself can cost; each scraped result is checked (and charged) as a scrape.
    // With asyncScraping, also the batch job's first page: the job is refused below that, after the search was paid.
    // Held until the search is charged, so that concurrent searches of one key cannot all pass on its last credits.
    const mostCredits = Math.ceil(req.limit / 10) * SEARCH_CREDITS_PER_10 * kinds.length + (later ? 1 : 0);

    // No maximum in upstream's schema; a timer longer than 2^31 ms would not be set, so 5 minutes is the most.
    // The error names the time actually waited, not a requested one that was never applied.
    const timeoutMs = Math.min(req.timeout, this.deps.maxTimeoutMs ?? MAX_TIMEOUT_MS);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    // Engines that did not answer a query that then found nothing (SearchEnginesSilentError).
    const silent = new Set<string>();
    const query = (q: BackendQuery) =>
      backend.search(q).catch((err: unknown) => {
        if (!(err instanceof SearchEnginesSilentError)) throw err;
        for (const engine of err.engines) silent.add(engine);
        return [];
      });
    const searched = () =>
      Promise.all(kinds.map((source) => this.searchSource(query, req, source, signal))).catch((err: unknown) => {
        if (timeout.aborted && !options.signal?.aborted) throw new SearchTimeoutError(timeoutMs);
        throw err;
      });
    const totalOf = (lists: Result[][]) => lists.reduce((n, l) => n + l.length, 0);
    // Nothing found because engines did not answer is an error, not charged.
    const unanswered = (total: number) => total === 0 && silent.size > 0;
    const priceOf = (total: number) => Math.ceil(total / 10) * SEARCH_CREDITS_PER_10;
    const charging = options.chargeCredits !== false;
    const lists = await ledger.holding(who, mostCredits, searched, (found) => (charging && !unanswered(totalOf(found)) ? priceOf(totalOf(found)) : 0));
    const total = totalOf(lists);
    if (unanswered(total)) throw new SearchEnginesSilentError([...silent]);
    const data: SearchResponse["data"] = {};
    kinds.forEach((source, i) => (data[source.type] = lists[i]!));
    const searchCredits = priceOf(total);
    let credits = searchCredits;
    const warnings: string[] = [];
    if (total === 0) warnings.push("No search results found");
    if (silent.size > 0) warnings.push(`Some results may be missing: these search engines did not answer: ${[...silent].join(", ")}.`);
    let scrapeIds: SearchResponse["scrapeIds"];
    if (later) {
      scrapeIds = this.scrapeLater(data, req, who, options.publicBaseUrl ?? "");
    } else if (formats.length > 0) {
      const toScrape = [...(data.web ?? []), ...(data.news ?? [])];
      const scraped = await this.scrapeResults(toScrape, req, who, signal, zeroDataRetention, charging, options.files);
      credits += scraped.credits;
      if (scraped.failures.length > 0) {
        warnings.push(`${scraped.failures.length} of ${toScrape.length} results could not be scraped (first: ${scraped.failures[0]}).`);
      }
      if (scraped.unscraped > 0) warnings.push(`The timeout passed while scraping: ${scraped.unscraped} results are returned without their content.`);
      if (scraped.overBudget > 0) warnings.push(`${scraped.overBudget} results are returned without their content: the answer already carried ${MAX_SEARCH_CONTENT_CHARS} characters.`);
    }
    const response: SearchResponse = { success: true, data, creditsUsed: credits, id: this.newId() };
    if (warnings.length > 0) response.warning = warnings.join(" ");
    if (scrapeIds) response.scrapeIds = scrapeIds;
    return response;
  }

  /** `asyncScraping`: the web and news results' pages as one batch job; their scrape ids by source. */
  private scrapeLater(data: SearchResponse["data"], req: SearchRequest, who: KeyIdentity, publicBaseUrl: string): NonNullable<SearchResponse["scrapeIds"]> {
    const urlsOf = (list: Result[] | undefined) => (list ?? []).map((r) => String(r.url)).filter((u) => /^https?:\/\//i.test(u) && URL.canParse(u));
    const urls = [...new Set([...urlsOf(data.web), ...urlsOf(data.news)])];
    const ids = urls.length > 0 ? this.deps.startScrapes!(urls, req.scrapeOptions, who, publicBaseUrl) : new Map<string, string>();
    const idsOf = (list: Result[] | undefined) => urlsOf(list).flatMap((u) => (ids.has(u) ? [ids.get(u)!] : []));
    return { ...(data.web ? { web: idsOf(data.web) } : {}), ...(data.news ? { news: idsOf(data.news) } : {}), ...(data.images ? { images: [] } : {}) };
  }

  /** One source's results, in upstream's shape for that source. */
  private async searchSource(search: SearchBackend["search"], req: SearchRequest, source: SearchSource, signal: AbortSignal): Promise<Result[]> {
    const web = source.type === "web" ? source : undefined;
    const lang = web?.lang ?? req.lang;
    // The most specific country the caller gave: the source's own `country` or `location`, then the request's. A
    // `location` localises by the country it names (SearXNG has nothing finer). The default "us" is only a fallback:
    // it must not hide a source's `location` (api-v2.md §2.7) nor a region `lang` carries.
    const explicit =
      web?.country ?? countryOfLocation(web?.location) ?? (req.countryDefaulted ? undefined : req.country) ?? countryOfLocation(req.location);
    const language = searxngLanguage(lang, { explicit, fallback: req.countryDefaulted ? req.country : undefined });
    const include = req.includeDomains ?? [];
    const exclude = req.excludeDomains ?? [];
    // Reduced once per request, not once per hit and domain.
    const includeHosts = include.map(domainOf);
    const excludeHosts = exclude.map(domainOf);
    const window = timeWindow(web?.tbs ?? req.tbs, (this.deps.now ?? Date.now)());
    // An image result is its picture: a hit without one (no `img_src` nor thumbnail) is no image result, and is
    // dropped rather than shown with the page's URL as its imageUrl.
    const hasPicture = (hit: BackendHit) => source.type !== "images" || Boolean(hit.imgSrc || hit.thumbnailSrc);
    const inScope = (hit: BackendHit) => {
      const host = hostOf(hit.url);
      return (includeHosts.length === 0 || includeHosts.some((d) => inReducedDomain(host, d))) && !excludeHosts.some((d) => inReducedDomain(host, d)) && withinWindow(hit, window) && hasPicture(hit);
    };
    const base: BackendQuery = {
      query: req.query + siteTerms(include, exclude),
      category: source.type === "web" ? "general" : source.type,
      limit: req.limit,
      ...(language ? { language } : {}),
      timeRange: window?.timeRange,
      safeSearch: safeSearch(req.safe),
      signal,
      accept: inScope,
    };
    const categories = source.type === "web" ? [...new Set(req.categories ?? [])] : [];
    let labelled: { hit: BackendHit; category?: SearchCategory }[];
    if (categories.length === 0) {
      labelled = (await search(base)).map((hit) => ({ hit }));
    } else {
      const perCategory = await Promise.all(
        categories.map(async (c) => {
          const how = CATEGORY_QUERIES[c];
          const hits = await search({ ...base, query: base.query + how.suffix, category: how.category, accept: (hit) => inScope(hit) && how.keep(hit) });
          return hits.map((hit) => ({ hit, category: c }));
        }),
      );
      // Interleaved, so that every category is represented within `limit`; a URL found twice is listed once.
      labelled = [];
      const seen = new Set<string>();
      for (let i = 0; labelled.length < req.limit && perCategory.some((l) => i < l.length); i++) {
        for (const list of perCategory) {
          const item = list[i];
          if (item && !seen.has(item.hit.url) && labelled.length < req.limit) {
            seen.add(item.hit.url);
            labelled.push(item);
          }
        }
      }
    }
    return labelled.map(({ hit, category }, i) => {
      const position = i + 1;
      if (source.type === "images") {
        return { title: hit.title, imageUrl: hit.imgSrc ?? hit.thumbnailSrc, ...imageSize(hit.resolution), url: hit.url, position };
      }
      if (source.type === "news") {
        return {
          title: hit.title,
          url: hit.url,
          snippet: hit.content,
          ...(hit.publishedDate ? { date: hit.publishedDate } : {}),
          ...(hit.thumbnailSrc || hit.imgSrc ? { imageUrl: hit.thumbnailSrc ?? hit.imgSrc } : {}),
          position,
        };
      }
      return { url: hit.url, title: hit.title, description: hit.content, position, ...(category ? { category } : {}) };
    });
  }

  /**
   * Scrapes `results` in place (their document fields are merged in), each URL once even when web and news both
   * list it, each in a slot of the server's scrape limiter. Returns the credits charged, the failures, and how
   * many results the timeout left unscraped.
   */
  private async scrapeResults(results: Result[], req: SearchRequest, who: KeyIdentity, signal: AbortSignal, zeroDataRetention: boolean, chargeCredits: boolean, files?: FileSink) {
    let credits = 0;
    const failures: string[] = [];
    const byUrl = new Map<string, Result[]>();
    for (const r of results) byUrl.set(String(r.url), [...(byUrl.get(String(r.url)) ?? []), r]);
    const urls = [...byUrl.keys()];
    let done = 0;
    let contentChars = 0;
    let overBudget = 0;
    await forEachLimited(urls, SCRAPE_CONCURRENCY, signal, async (url) => {
      try {
        const spec = specFromOptions(url, url, req.scrapeOptions, { zeroDataRetention }, this.deps.config);
        const doc: ScrapeDocument = await this.deps.limiter.run(
          Math.max(0, spec.timeoutMs),
          () => this.deps.scrape.scrape(spec, who, { signal, chargeCredits, ...(files ? { files } : {}) }),
          who.keyId,
        );
        credits += Number(doc.metadata.creditsUsed ?? 0);
        // Highlights (on unless `highlights: false`; never under zero data retention, as upstream's): the passages of
        // the page that answer the query, in place of the engine's description or snippet.
        const passages = req.highlights !== false && !zeroDataRetention && typeof doc.markdown === "string" ? highlight(doc.markdown, req.query) : undefined;
        const size = ["markdown", "html", "rawHtml"].reduce((n, k) => n + (typeof doc[k] === "string" ? (doc[k] as string).length : 0), 0) * byUrl.get(url)!.length;
        if (contentChars + size > MAX_SEARCH_CONTENT_CHARS) {
          overBudget++;
          for (const r of byUrl.get(url)!) r.metadata = structuredClone(doc.metadata);
        } else {
          contentChars += size;
          for (const r of byUrl.get(url)!) Object.assign(r, structuredClone(doc));
        }
        if (passages) for (const r of byUrl.get(url)!) r["snippet" in r ? "snippet" : "description"] = passages;
        done++;
      } catch (err) {
        if (signal.aborted) return;
        done++;
        failures.push(`${url}: ${err instanceof CrawlboxError ? err.code : (err as Error).message}`);
      }
    });
    return { credits, failures, unscraped: urls.length - done, overBudget };
  }
}
