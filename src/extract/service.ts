/**
 * @module extract/service
 * `POST /v2/extract` and `GET /v2/extract/{id}` (api-v2.md §2.8, §3.3): an asynchronous job that gathers pages
 * and asks the configured LLM for the requested data across all of them.
 *
 * ```
 * urls ─▶ "https://site/*" mapped (up to `limit` pages) ─┐
 * prompt ─▶ web search (enableWebSearch or no urls) ──────┴▶ scrape each (markdown) ─▶ one LLM extraction over
 *                                                            the pages, chunked and merged ─▶ data (+ sources)
 * ```
 *
 * The job row is written before the answer (nothing accepted is lost: `crawlbox serve` runs unfinished jobs
 * again at start) and webhooks announce `extract.started`, then `extract.completed` or `extract.failed`. Cost:
 * each page as a scrape, the LLM's tokens as token usage (`/v2/team/token-usage`).
 */
import type { Database } from "bun:sqlite";
import type { ExtractRequest } from "../api/extract.ts";
import type { ScrapeOptions } from "../api/scrape-options.ts";
import { parseSearchBody } from "../api/search.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity, KeyStore } from "../auth/keys.ts";
import { BadRequestError, CrawlboxError, TooManyRequestsError } from "../errors.ts";
import type { LlmClient } from "../llm/client.ts";
import { LlmNotConfiguredError } from "../llm/errors.ts";
import { JOB_LLM_RETRY } from "../llm/retry.ts";
import { assertRequestSchema } from "../llm/schema.ts";
import type { Logger } from "../log.ts";
import { mapSite, type MapDeps } from "../crawl/map.ts";
import { specFromOptions } from "../scrape/from-options.ts";
import type { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { ScrapeService } from "../scrape/service.ts";
import type { SearchService } from "../search/service.ts";
import { immediate } from "../storage/database.ts";
import { enqueueWebhookEvent } from "../webhooks/index.ts";
import { pagesText, pagesWithin, readPages } from "./read-pages.ts";
import { RunQueue } from "./run-queue.ts";
import { JobCredits } from "./job-credits.ts";
import { OwnerGuard } from "./owner-guard.ts";
import type { ExtractJob, ExtractStore } from "./store.ts";

/** Pages one wildcard URL (`https://site/*`) may add when `limit` is not given. */
export const DEFAULT_WILDCARD_PAGES = 10;
/** Most pages one extract job reads. */
export const MAX_EXTRACT_PAGES = 50;
/** Search results used when the prompt is searched for. */
const SEARCH_RESULTS = 5;
/** Extract jobs run at once; more wait in order. */
const JOBS_AT_ONCE = 2;
/** Pages of one job scraped at once (each also takes a slot of the server's scrape limiter): 2 jobs × 2 pages
 * leave half of the default 8 slots to everything else. */
const PAGES_AT_ONCE = 2;
/** Jobs one key may have processing (running or waiting); more is a 429. */
export const MAX_JOBS_PER_KEY = 10;
/** Runs of one job (the server stopped during each) after which it is failed instead of run again. */
export const MAX_EXTRACT_ATTEMPTS = 3;

/** Dependencies of {@link ExtractService}. */
export interface ExtractServiceDeps {
  db: Database;
  store: ExtractStore;
  /** Undefined when no LLM is configured: extract is then a 400. */
  llm?: LlmClient;
  scrape: ScrapeService;
  limiter: ConcurrencyLimiter;
  ledger: CreditLedger;
  /** The keys: a job runs under its key's current quota, and stops once the key is revoked (extract/owner-guard.ts). */
  keys: Pick<KeyStore, "identityOf" | "isActive">;
  search: SearchService;
  /** Whether a search backend is configured (web search for prompt-only requests). */
  canSearch: boolean;
  map: MapDeps;
  config: { defaultTimeoutMs: number; llmTimeoutMs: number; llmTokenBudget: number; authEnabled: boolean };
  /** Delivers the webhook outbox after a committed event. */
  kickWebhooks: () => void;
  log: Pick<Logger, "warn">;
  now?: () => number;
  newId?: () => string;
}

/** The `GET /v2/extract/{id}` answer. */
export interface ExtractStatus {
  success: boolean;
  status: ExtractJob["status"];
  /** The extracted data once completed; `[]` before, and when failed or cancelled (upstream's empty value). */
  data: unknown;
  error?: string;
  warning?: string;
  expiresAt: string;
  tokensUsed: number;
  creditsUsed: number;
  sources?: Record<string, string[]>;
}

/** The caller's instructions for the model: `systemPrompt` and `prompt` together, when either is given. */
function extractPrompt(req: ExtractRequest): string | undefined {
  return [req.systemPrompt, req.prompt].filter((s): s is string => !!s && s.trim() !== "").join("\n\n") || undefined;
}

/** Runs extract jobs. */
export class ExtractService {
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly queue: RunQueue;
  /** This process, as the owner of the jobs it runs (store claim and finish). */
  private readonly owner = crypto.randomUUID();

  constructor(private readonly deps: ExtractServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? (() => crypto.randomUUID());
    this.queue = new RunQueue(JOBS_AT_ONCE, (id, signal) => this.run(id, signal), (id, err) => deps.log.warn("extract job could not be recorded", { id, error: String(err) }));
  }

  /** Accepts a job for `who` and starts it; throws the 400/402 a client would get before anything is stored. */
  start(req: ExtractRequest, who: KeyIdentity): { success: true; id: string; urlTrace: []; invalidURLs?: string[] } {
    // Named by what it is, not by a route: /v1/extract reaches this too.
    if (!this.deps.llm) throw new LlmNotConfiguredError("Extract");
    if (req.urls.length === 0 && (req.invalidURLs?.length ?? 0) > 0) throw new BadRequestError("No valid URLs provided");
    if (req.urls.length === 0 && !this.deps.canSearch) {
      throw new BadRequestError("An extract without urls searches the web for its prompt, which needs a search backend: set SEARXNG_ENDPOINT (docs/search.md), or give urls.");
    }
    // Without urls the search is where the pages come from; with them, a search with nothing to search for is a
    // warning at run time, as one without a backend is (upstream accepts such a body).
    if (req.urls.length === 0 && !req.prompt) throw new BadRequestError("A web search for an extract needs a prompt.");
    if (req.scrapeOptions) this.deps.scrape.validate(specFromOptions("https://example.com/", "https://example.com/", { ...req.scrapeOptions, formats: [{ type: "markdown" }] } as ScrapeOptions, {}, this.deps.config));
    assertRequestSchema(req.schema);
    // A prompt that leaves the model no room for page content is a 400 now, not a job failing after pages were paid.
    this.deps.llm.chunkChars(req.schema, { prompt: extractPrompt(req) ?? "", callerSchema: true });
    this.deps.ledger.assertCanSpend(who, Math.max(1, req.urls.length));
    if (this.deps.store.processingCount(who.keyId) >= MAX_JOBS_PER_KEY) {
      throw new TooManyRequestsError("TOO_MANY_EXTRACT_JOBS", `This key already has ${MAX_JOBS_PER_KEY} extract jobs processing; wait for one to finish.`);
    }
    const id = this.newId();
    immediate(this.deps.db, () => {
      this.deps.store.create(id, who.keyId, req, this.now());
      this.announce(id, who.keyId, req, "started", true, []);
    });
    this.deps.kickWebhooks();
    this.queue.schedule(id);
    return { success: true, id, urlTrace: [], ...(req.invalidURLs && req.invalidURLs.length > 0 ? { invalidURLs: req.invalidURLs } : {}) };
  }

  /** The job `id` of `keyId` in upstream's status shape, or undefined (unknown, expired, another key's). */
  status(id: string, keyId: string): ExtractStatus | undefined {
    const job = this.deps.store.get(id, this.now());
    if (!job || job.keyId !== keyId) return undefined;
    const out: ExtractStatus = {
      success: job.status !== "failed",
      // Always present (api-v2.md §3.3): upstream's status starts from `data = []` and fills it in once completed.
      data: job.status === "completed" ? job.data : [],
      status: job.status,
      expiresAt: new Date(job.expiresAt).toISOString(),
      tokensUsed: job.tokens,
      creditsUsed: job.credits,
    };
    if (job.error !== undefined) out.error = job.error;
    if (job.warning !== undefined) out.warning = job.warning;
    if (job.sources !== undefined) out.sources = { "*": job.sources };
    return out;
  }

  /** At `crawlbox serve` start: runs again the jobs a stopped process left unfinished. Returns how many. */
  resumeAbandoned(): number {
    const jobs = this.deps.store.processing();
    for (const job of jobs) this.queue.schedule(job.id);
    return jobs.length;
  }

  /**
   * Stops running jobs and refuses new ones. The jobs stay `processing`, to be resumed by the next start, and are
   * released with their attempt given back (ExtractStore.releaseOwned): a graceful stop is not one of the
   * {@link MAX_EXTRACT_ATTEMPTS} a job may be interrupted. Done here, before the server closes the database, not in
   * each run's abort handler, which may only run after it.
   */
  async close(): Promise<void> {
    this.queue.close();
    try {
      this.deps.store.releaseOwned(this.owner, this.now());
    } catch (err) {
      // The jobs keep the attempt (as after a crash); the stop goes on.
      this.deps.log.warn("extract jobs could not be released at shutdown", { error: String(err) });
    }
  }

  private announce(id: string, keyId: string, req: ExtractRequest, event: "started" | "completed" | "failed", success: boolean, data: unknown[], error?: string) {
    if (!req.webhook) return;
    enqueueWebhookEvent(this.deps.db, { jobId: id, keyId, jobKind: "extract", event, success, data, webhook: req.webhook, ...(error ? { error } : {}) }, { now: this.now() });
  }

  private async run(id: string, signal: AbortSignal): Promise<void> {
    const job = this.deps.store.get(id, this.now());
    if (!job || job.status !== "processing") return;
    const attempts = this.deps.store.claim(id, this.owner, this.now());
    if (attempts === undefined) return;
    const req = job.request;
    if (attempts > MAX_EXTRACT_ATTEMPTS) {
      const error = `The job was started ${MAX_EXTRACT_ATTEMPTS} times and the server stopped each time before it finished.`;
      immediate(this.deps.db, () => {
        if (this.deps.store.finish(id, this.owner, { status: "failed", error, tokens: job.tokens, credits: job.credits }, this.now())) {
          this.announce(id, job.keyId, req, "failed", false, [], error);
        }
      });
      this.deps.kickWebhooks();
      return;
    }
    const who = this.deps.keys.identityOf(job.keyId);
    let tokens = 0;
    const credits = JobCredits.forJob(this.deps.db, this.deps.store, this.deps.ledger, who, job, this.owner);
    // A key revoked while the job runs or waits (or gone from CRAWLBOX_API_KEYS at a restart) fails it before its next
    // page, charge or model call; `run` stops with the job's own signal too.
    const guard = new OwnerGuard(this.deps, job.keyId, signal, credits);
    const run = guard.signal;
    const warnings: string[] = [];
    try {
      guard.check();
      const urls = await this.gatherUrls(req, who, warnings, run, guard.charge);
      if (urls.length === 0) throw new BadRequestError("No pages to extract from: the URLs and the search found nothing.");
      const pages = await readPages(this.deps, urls, { who, signal: run, charge: guard.charge, warnings, concurrency: PAGES_AT_ONCE, beforePage: guard.check, ...(req.scrapeOptions ? { scrapeOptions: req.scrapeOptions } : {}) });
      if (pages.length === 0) throw new CrawlboxError("EXTRACT_NO_PAGES", 500, `None of the ${urls.length} pages could be scraped.`);
      const content = pagesText(pages);
      const prompt = extractPrompt(req);
      const limitMs = Math.min(req.timeout ?? this.deps.config.llmTimeoutMs, this.deps.config.llmTimeoutMs);
      const deadline = this.now() + limitMs;
      guard.check();
      const { value, readChars } = await this.deps.llm!.extract(
        { content, ...(req.schema ? { schema: req.schema } : {}), ...(prompt ? { prompt } : {}) },
        {
          signal: run,
          deadline,
          limitMs,
          // A transient 429/503 of the model is waited out here, not failed: the pages are already read and paid.
          retry: JOB_LLM_RETRY,
          // What the model could not cover (pages cut to the budget, required fields no page gives): the job's warning.
          warnings,
          tokenBudget: this.deps.config.llmTokenBudget * pages.length,
          onTokens: (t) => {
            tokens += t;
            this.deps.ledger.charge(who, 0, t);
          },
        },
      );
      immediate(this.deps.db, () => {
        const ended = this.deps.store.finish(id, this.owner, { status: "completed", data: value, ...(req.showSources ? { sources: pagesWithin(pages, readChars).map((p) => p.url) } : {}), ...(warnings.length ? { warning: warnings.join(" ") } : {}), tokens, credits: credits.total }, this.now());
        // Not ours any more (another process took the job over): its end is that process's to announce.
        if (ended) this.announce(id, job.keyId, req, "completed", true, [value]);
      });
    } catch (err) {
      if (signal.aborted && this.queue.closed) return; // stopping: the job stays processing and is resumed at the next start
      const message = guard.failureMessage(err);
      immediate(this.deps.db, () => {
        if (this.deps.store.finish(id, this.owner, { status: "failed", error: message, ...(warnings.length ? { warning: warnings.join(" ") } : {}), tokens, credits: credits.total }, this.now())) {
          this.announce(id, job.keyId, req, "failed", false, [], message);
        }
      });
    }
    this.deps.kickWebhooks();
  }

  /** The request's URLs, wildcards mapped, plus search results for the prompt when asked; at most {@link MAX_EXTRACT_PAGES}. */
  private async gatherUrls(req: ExtractRequest, who: KeyIdentity, warnings: string[], signal: AbortSignal, charged: (credits: number) => void): Promise<string[]> {
    const urls: string[] = [];
    const add = (u: string) => {
      if (!urls.includes(u) && urls.length < MAX_EXTRACT_PAGES) urls.push(u);
    };
    for (const { url } of req.urls) {
      if (!/\/\*$/.test(url)) {
        add(url);
        continue;
      }
      const base = url.replace(/\/\*$/, "/");
      // The caller's own allowExternalLinks, not the one enableWebSearch forces: a site's wildcard lists that site.
      const allowExternalLinks = req.mapExternalLinks ?? (req.allowExternalLinks && !req.enableWebSearch);
      try {
        const mapped = await mapSite(
          { url: base, limit: req.limit ?? DEFAULT_WILDCARD_PAGES, includeSubdomains: req.includeSubdomains, allowExternalLinks, sitemap: req.ignoreSitemap ? "skip" : "include" },
          this.deps.map,
          signal,
        );
        for (const link of mapped.links) add(link.url);
      } catch (err) {
        if (signal.aborted) throw err;
        warnings.push(`${url} could not be mapped (${err instanceof CrawlboxError ? err.code : (err as Error).message}); only its start page is read.`);
        add(base);
      }
    }
    if (req.enableWebSearch || req.urls.length === 0) {
      if (!this.deps.canSearch) {
        warnings.push("enableWebSearch needs a search backend (SEARXNG_ENDPOINT); only the given URLs were read.");
      } else if (!req.prompt) {
        warnings.push("enableWebSearch searches for the prompt, and there is none; only the given URLs were read.");
      } else {
        const found = await this.deps.search.search(parseSearchBody({ query: req.prompt!, limit: SEARCH_RESULTS, origin: "extract" }), who, { signal, chargeCredits: false });
        charged(found.creditsUsed);
        for (const r of found.data.web ?? []) add(String(r.url));
      }
    }
    return urls;
  }
}
