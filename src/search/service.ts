/**
 * @module search/service
 * `POST /v2/search` (api-v2.md §2.7, §3.3): asks the search backend (search/searxng.ts) for each requested source
 * (`web`, `news`, `images`), applies categories and domain filters, and, when `scrapeOptions.formats` asks for
 * content, scrapes the web and news results through the normal scrape path (egress gate, cache, credits).
 *
 * The answer is upstream's: `{success:true, data:{web?, news?, images?}, creditsUsed, id, warning?}`, each
 * source's list present when it was requested. Cost: 2 credits per 10 results (at least 2), plus what each
 * scraped result costs as a scrape. The request's `timeout` bounds the search and the scraping together (408).
 */
import type { SearchRequest, SearchSource } from "../api/search.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { CrawlboxError } from "../errors.ts";
import { specFromOptions, type SpecDefaults } from "../scrape/from-options.ts";
import type { FileSink } from "../scrape/render-context.ts";
import type { ScrapeService } from "../scrape/service.ts";
import { SearchNotConfiguredError, SearchTimeoutError } from "./errors.ts";
import type { BackendHit, BackendQuery, SearchBackend } from "./searxng.ts";

/** Credits per started block of 10 results (upstream's price). */
export const SEARCH_CREDITS_PER_10 = 2;
/** Results scraped at once when `scrapeOptions.formats` asks for content. */
const SCRAPE_CONCURRENCY = 4;

/** Dependencies of {@link SearchService}. */
export interface SearchServiceDeps {
  /** Undefined when `SEARXNG_ENDPOINT` is not set: every search is a 400 naming it. */
  backend?: SearchBackend;
  scrape: ScrapeService;
  ledger: CreditLedger;
  config: SpecDefaults;
  newId?: () => string;
}

type Result = Record<string, unknown>;

/** The `POST /v2/search` answer. */
export interface SearchResponse {
  success: true;
  data: { web?: Result[]; news?: Result[]; images?: Result[] };
  creditsUsed: number;
  id: string;
  warning?: string;
}

/** `tbs` (Google's `qdr:h|d|w|m|y`) as a SearXNG time range; SearXNG has no hour, so `qdr:h` becomes a day. */
function timeRange(tbs: string | undefined): BackendQuery["timeRange"] {
  const m = /qdr:([hdwmy])/.exec(tbs ?? "");
  if (!m) return undefined;
  return ({ h: "day", d: "day", w: "week", m: "month", y: "year" } as const)[m[1] as "h" | "d" | "w" | "m" | "y"];
}

function safeSearch(safe: boolean | string | undefined): BackendQuery["safeSearch"] {
  if (safe === undefined) return undefined;
  if (safe === true || safe === "moderate" || safe === "active") return 1;
  if (safe === "strict") return 2;
  return 0;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
};
const inDomain = (host: string, domain: string) => {
  const d = domain.toLowerCase().replace(/^\*?\./, "").replace(/^www\./, "");
  return host === d || host.endsWith(`.${d}`) || host === `www.${d}`;
};
const isPdf = (url: string) => /\.pdf$/i.test(new URL(url).pathname);

/** The image size from SearXNG's `resolution` ("1920x1080" or "1920 x 1080"). */
function imageSize(resolution: string | undefined): { imageWidth?: number; imageHeight?: number } {
  const m = /(\d+)\s*[x×]\s*(\d+)/i.exec(resolution ?? "");
  return m ? { imageWidth: Number(m[1]), imageHeight: Number(m[2]) } : {};
}

/** Runs searches. */
export class SearchService {
  private readonly newId: () => string;

  constructor(private readonly deps: SearchServiceDeps) {
    this.newId = deps.newId ?? (() => crypto.randomUUID());
  }

  /** Searches for `who`; `files` stores what scraped results produce (screenshots). */
  async search(req: SearchRequest, who: KeyIdentity, options: { signal?: AbortSignal; files?: FileSink } = {}): Promise<SearchResponse> {
    const { backend, scrape, ledger, config } = this.deps;
    if (!backend) throw new SearchNotConfiguredError();
    const formats = req.scrapeOptions.formats;
    // A request whose formats this build cannot render is refused before anything is searched or charged.
    if (formats.length > 0) scrape.validate(specFromOptions("https://example.com/", "https://example.com/", req.scrapeOptions, {}, config));
    ledger.assertCanSpend(who, SEARCH_CREDITS_PER_10);

    const timeout = AbortSignal.timeout(req.timeout);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const timedOut = () => timeout.aborted && !options.signal?.aborted;
    try {
      const kinds = [...new Map(req.sources.map((s) => [s.type, s])).values()];
      const lists = await Promise.all(kinds.map((source) => this.searchSource(backend, req, source, signal)));
      const data: SearchResponse["data"] = {};
      kinds.forEach((source, i) => (data[source.type] = lists[i]!));
      const total = lists.reduce((n, l) => n + l.length, 0);
      const searchCredits = Math.max(1, Math.ceil(total / 10)) * SEARCH_CREDITS_PER_10;
      let credits = searchCredits;
      const warnings: string[] = [];
      if (total === 0) warnings.push("No search results found");
      if (formats.length > 0) {
        const toScrape = [...(data.web ?? []), ...(data.news ?? [])];
        const scraped = await this.scrapeResults(toScrape, req, who, signal, options.files);
        credits += scraped.credits;
        if (scraped.failures.length > 0) {
          warnings.push(`${scraped.failures.length} of ${toScrape.length} results could not be scraped (first: ${scraped.failures[0]}).`);
        }
      }
      if (timedOut()) throw new SearchTimeoutError(req.timeout);
      // Scraped results were charged as scrapes; the search itself is charged here.
      ledger.charge(who, searchCredits);
      const response: SearchResponse = { success: true, data, creditsUsed: credits, id: this.newId() };
      if (warnings.length > 0) response.warning = warnings.join(" ");
      return response;
    } catch (err) {
      if (timedOut()) throw new SearchTimeoutError(req.timeout);
      throw err;
    }
  }

  /** One source's results, in upstream's shape for that source. */
  private async searchSource(backend: SearchBackend, req: SearchRequest, source: SearchSource, signal: AbortSignal): Promise<Result[]> {
    const web = source.type === "web" ? source : undefined;
    const categories = new Set(req.categories ?? []);
    let query = req.query;
    if (source.type === "web" && categories.has("github")) query += " site:github.com";
    if (source.type === "web" && categories.has("pdf")) query += " filetype:pdf";
    const lang = web?.lang ?? req.lang;
    const country = web?.country ?? req.country;
    const include = req.includeDomains ?? [];
    const exclude = req.excludeDomains ?? [];
    const accept = (hit: BackendHit) => {
      const host = hostOf(hit.url);
      if (include.length > 0 && !include.some((d) => inDomain(host, d))) return false;
      if (exclude.some((d) => inDomain(host, d))) return false;
      if (source.type !== "web" || categories.size === 0) return true;
      // A result matches if any requested category has it; `research` is the science category's own results.
      return (categories.has("github") && inDomain(host, "github.com")) || (categories.has("pdf") && isPdf(hit.url)) || categories.has("research");
    };
    const hits = await backend.search({
      query,
      category: source.type === "web" ? (categories.has("research") && !categories.has("github") && !categories.has("pdf") ? "science" : "general") : source.type,
      limit: req.limit,
      language: country ? `${lang}-${country.toUpperCase()}` : lang,
      timeRange: timeRange(web?.tbs ?? req.tbs),
      safeSearch: safeSearch(req.safe),
      signal,
      accept,
    });
    return hits.map((hit, i) => {
      const position = i + 1;
      if (source.type === "images") {
        return { title: hit.title, imageUrl: hit.imgSrc ?? hit.thumbnailSrc ?? hit.url, ...imageSize(hit.resolution), url: hit.url, position };
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
      const category = categories.has("github") && inDomain(hostOf(hit.url), "github.com") ? "github" : categories.has("pdf") && isPdf(hit.url) ? "pdf" : categories.has("research") ? "research" : undefined;
      return { url: hit.url, title: hit.title, description: hit.content, position, ...(category ? { category } : {}) };
    });
  }

  /** Scrapes `results` in place (their document fields are merged in); returns the credits and the failures. */
  private async scrapeResults(results: Result[], req: SearchRequest, who: KeyIdentity, signal: AbortSignal, files?: FileSink) {
    let credits = 0;
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < results.length && !signal.aborted) {
        const result = results[next++]!;
        const url = String(result.url);
        try {
          const spec = specFromOptions(url, url, req.scrapeOptions, {}, this.deps.config);
          const doc = await this.deps.scrape.scrape(spec, who, { signal, ...(files ? { files } : {}) });
          credits += Number(doc.metadata.creditsUsed ?? 0);
          Object.assign(result, doc);
        } catch (err) {
          if (signal.aborted) return;
          failures.push(`${url}: ${err instanceof CrawlboxError ? err.code : (err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SCRAPE_CONCURRENCY, results.length) }, worker));
    return { credits, failures };
  }
}
