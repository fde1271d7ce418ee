/**
 * @module scrape/run-options
 * What a caller says about one scrape beyond its spec (the request's options): its signal, where files go, which
 * id it gets, whether it is stored and charged here (crawl and batch pages: with their job), whether its links are
 * wanted, and what comes back besides the document. Sync scrapes, crawl and batch pages, search results, extract and
 * agent reads, and `/v2/parse` each set these differently.
 */
import type { CreditHold } from "../auth/credits.ts";
import type { Page } from "../engines/types.ts";
import type { ScrapeDocument } from "./document.ts";
import type { FileSink } from "./render-context.ts";
import type { ScrapeSpec } from "./spec.ts";

/**
 * What a stored scrape keeps for an interact session on it (src/interact/replay.ts): its actions, replayed from the
 * URL it started at, and the device and place its page was emulated as. A crawl or batch page's comes from its job's
 * options (jobs/results.ts), where `url` is absent and `location` may lack either field.
 */
export interface ScrapeReplay {
  actions?: ScrapeSpec["actions"];
  url?: string;
  mobile?: boolean;
  location?: { country?: string; languages?: string[] };
}

/** Per-call options of a scrape. */
export interface ScrapeRunOptions {
  signal?: AbortSignal;
  /** Where files the formats produce are stored (see render-context.ts). */
  files?: FileSink;
  /** Use this id as `metadata.scrapeId` (crawl pages use their task id). */
  scrapeId?: string;
  /** Store the document for `GET /v2/scrape/{id}`. @default true */
  storeResult?: boolean;
  /**
   * Charge the key's credits here. Crawl and batch pages pass false: the job store charges them when it stores the
   * page, in the same transaction (jobs/sqlite-store.ts setChargeHook). @default true
   */
  chargeCredits?: boolean;
  /**
   * A hold the caller took on the key's quota for this page and keeps until it has charged it (with
   * `chargeCredits: false`): the scrape raises it to the page's price instead of holding credits of its own, which
   * other checks would count twice. @default the scrape holds its own, released when it returns
   */
  creditHold?: CreditHold;
  /** Also return every link of the page (crawl discovery). */
  collectLinks?: boolean;
  /** changeTracking visibility: `hidden` when a crawl re-checks a page its previous crawl saw (see RenderRun). */
  visibility?: "visible" | "hidden";
  /**
   * `POST /v2/scrape` only: how long the request waited for a scrape slot (`queuedMs` undefined: not at all),
   * reported as upstream's [LATEST] `concurrencyLimited` / `concurrencyQueueDurationMs` (api-v2.md §3.1).
   */
  queue?: { queuedMs: number | undefined };
  /** A page the caller already has (`POST /v2/parse`: an uploaded file): used as is, nothing fetched or cached. */
  page?: Page;
  /**
   * Leave what the formats keep for later scrapes (the changeTracking baseline) unrecorded, and return it as
   * {@link ScrapedPage.commit}: crawl and batch pages decide only afterwards whether they keep this result or retry
   * the page (a 503, say), and a discarded attempt must not be the page the next scrape compares with. @default false
   */
  deferCommit?: boolean;
  /**
   * `POST /v2/scrape`: a document still converting at the deadline goes on, and the 408 says so
   * (`processing_continues`); the same request sent again collects it (document-continuations.ts). @default false
   */
  resumable?: boolean;
  /**
   * A crawl or batch page before its last attempt (jobs/task-runner.ts): the job tries it again on a retryable
   * failure, so its LLM calls leave an unreachable model server to that retry (llm/render-call.ts, llm/server-down.ts).
   * @default false
   */
  retriedByJob?: boolean;
}

/** A scraped page: the document, and for crawls its links and the response headers (`Retry-After`). */
export interface ScrapedPage {
  document: ScrapeDocument;
  links?: string[];
  headers: Record<string, string>;
  /** With `deferCommit`: records what the formats keep for later scrapes; to be called once the result is kept. */
  commit?: () => void;
}
