/**
 * @module extract/read-pages
 * How LLM research jobs (extract, agent) read pages: each URL scraped as markdown, a few at a time in the server's
 * scrape slots, charged as a scrape through the job's own `charge` (so a resumed job pays once), each page's
 * markdown capped; pages that fail or answer an HTTP error become one warning, not the job's failure.
 */
import { parseScrapeBody } from "../api/scrape.ts";
import type { ScrapeOptions } from "../api/scrape-options.ts";
import type { CreditHold, CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { CrawlboxError } from "../errors.ts";
import { forEachLimited } from "../scrape/each-limited.ts";
import { specFromOptions, type SpecDefaults } from "../scrape/from-options.ts";
import type { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { ScrapeService } from "../scrape/service.ts";

/** Markdown kept per page for the LLM: beyond this a page is cut (with a warning), bounding a job's memory. */
export const MAX_PAGE_CHARS = 200_000;

/** What reading needs from the server. */
export interface PageReaderDeps {
  scrape: ScrapeService;
  limiter: ConcurrencyLimiter;
  ledger: CreditLedger;
  config: SpecDefaults;
}

/** One page read. */
export interface ReadPage {
  url: string;
  /** The page's `<title>`, when it has one. */
  title?: string;
  markdown: string;
  /** Every link of the page (with `collectLinks`). */
  links: string[];
}

/** The pages as one text for a model, each under its URL (extract's and the agent's prompts). */
export function pagesText(pages: readonly ReadPage[]): string {
  return pages.map(pageText).join(PAGE_SEPARATOR);
}

const PAGE_SEPARATOR = "\n\n---\n\n";
const pageText = (p: ReadPage) => `Source: ${p.url}\n\n${p.markdown}`;

/**
 * The pages of {@link pagesText} whose text begins within its first `chars` characters: what a model read of them
 * when a long extraction was cut to its leading parts (llm/client.ts `extract` `readChars`). A job's `sources` listed
 * every page read, also those the model never saw.
 */
export function pagesWithin<T extends ReadPage>(pages: readonly T[], chars: number): T[] {
  const out: T[] = [];
  let at = 0;
  for (const p of pages) {
    if (at >= chars && out.length > 0) break;
    out.push(p);
    at += pageText(p).length + PAGE_SEPARATOR.length;
  }
  return out;
}

/** How to read. */
export interface ReadOptions {
  who: KeyIdentity;
  signal: AbortSignal;
  /** Charges a page's credits to the job (and the key). */
  charge: (credits: number) => void;
  /** Where problems are reported. */
  warnings: string[];
  /** Pages scraped at once. */
  concurrency: number;
  /** The request's scrapeOptions (formats are replaced by markdown). @default the API's defaults */
  scrapeOptions?: ScrapeOptions;
  /** Also return each page's links (the agent follows them). */
  collectLinks?: boolean;
  /**
   * Called as a page gets its scrape slot, before it is fetched; what it throws ends that page's read as the run's
   * failure (extract/owner-guard.ts: a revoked key's page waiting for a slot is never fetched).
   */
  beforePage?: () => void;
}

/** Scrape options when the request gives none: the API's defaults, from the same validator a scrape uses. */
const DEFAULT_SCRAPE_OPTIONS: ScrapeOptions = parseScrapeBody({ url: "https://example.com/" }).scrapeOptions;

/** Reads `urls`; the pages that could be read, in the order of `urls`. */
export async function readPages(deps: PageReaderDeps, urls: readonly string[], o: ReadOptions): Promise<ReadPage[]> {
  const pages: ReadPage[] = [];
  const failed: string[] = [];
  const cut: string[] = [];
  await forEachLimited([...urls], o.concurrency, o.signal, async (url) => {
    let hold: CreditHold | undefined;
    try {
      // The key must be able to pay for this page on top of every page still running, the job's and others': the
      // credit is held from here, through the wait for a scrape slot, until the job has charged the page.
      hold = deps.ledger.hold(o.who, 1);
      const options = { ...(o.scrapeOptions ?? DEFAULT_SCRAPE_OPTIONS), formats: [{ type: "markdown" }] } as ScrapeOptions;
      const spec = specFromOptions(url, url, options, {}, deps.config);
      const creditHold = hold;
      // The page is part of the job's answer, not a scrape result of its own: nothing stored under its id.
      const scraped = await deps.limiter.run(spec.timeoutMs, () => (o.beforePage?.(), deps.scrape.scrapePage(spec, o.who, { signal: o.signal, storeResult: false, chargeCredits: false, creditHold, collectLinks: o.collectLinks === true })), o.who.keyId);
      const doc = scraped.document;
      o.charge(Number(doc.metadata.creditsUsed ?? 0));
      if (doc.metadata.statusCode >= 400) failed.push(`${url}: HTTP ${doc.metadata.statusCode}`);
      else {
        const markdown = doc.markdown ?? "";
        if (markdown.length > MAX_PAGE_CHARS) cut.push(url);
        const title = typeof doc.metadata.title === "string" ? doc.metadata.title : undefined;
        pages.push({ url, ...(title ? { title } : {}), markdown: markdown.slice(0, MAX_PAGE_CHARS), links: scraped.links ?? [] });
      }
    } catch (err) {
      if (o.signal.aborted) throw err;
      failed.push(`${url}: ${err instanceof CrawlboxError ? err.code : (err as Error).message}`);
    } finally {
      hold?.release();
    }
  });
  if (failed.length > 0) o.warnings.push(`${failed.length} of ${urls.length} pages could not be read (first: ${failed[0]}).`);
  if (cut.length > 0) o.warnings.push(`${cut.length} pages were longer than ${MAX_PAGE_CHARS} characters of markdown and were cut (first: ${cut[0]}).`);
  // Keep the given order: the LLM sees the pages as the caller listed them.
  return pages.sort((a, b) => urls.indexOf(a.url) - urls.indexOf(b.url));
}
