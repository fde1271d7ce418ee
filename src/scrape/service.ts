/**
 * @module scrape/service
 * One scrape, end to end: capability check → credits → cache or engine → renderers → metadata → store.
 * Routes, crawl pages and batch pages all call {@link ScrapeService.scrape}; it knows nothing about HTTP.
 *
 * ```
 * spec ─▶ assertSupported ─▶ quota ─▶ cache? ──hit──▶ page ─┐
 *                                      └─miss─▶ engine ─────┴▶ render formats ─▶ metadata ─▶ store ─▶ Document
 * ```
 */
import { patternRedactor, type Redactor } from "../redact/redactor.ts";
import { armRedaction, redactMarkdownView, redactPages, unredactedWarning } from "../redact/stage.ts";
import { readsMarkdown } from "../redact/markdown-readers.ts";
import { ONLY_CLEAN_CONTENT_EXTRA_CREDITS, type ContentCleaner } from "../clean-content/cleaner.ts";
import { cleanMarkdownView, type CleaningOutcome } from "../clean-content/stage.ts";
import type { Logger } from "../log.ts";
import type { CreditHold, CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { UnsupportedFileError } from "../errors.ts";
import type { ConvertedDocument, DocumentParser, ParserRegistry } from "../documents/types.ts";
import { detectKind } from "../documents/detect.ts";
import { PdfCorruptError } from "../documents/errors.ts";
import type { EngineRouter } from "../engines/router.ts";
import type { Page } from "../engines/types.ts";
import type { PageCache } from "../storage/page-cache.ts";
import type { ScrapeResults } from "../storage/scrape-results.ts";
import { obtainPage, type PageSource } from "./page-source.ts";
import type { ScrapedPage, ScrapeReplay, ScrapeRunOptions } from "./run-options.ts";
import { assertSupported } from "./capabilities.ts";
import type { DocumentMetadata, ScrapeDocument } from "./document.ts";
import { mergeRendered, statusError, withoutServiceFields } from "./document-fields.ts";
import { documentViewsElsewhere, pageViewsElsewhere } from "./parse-workers/offload.ts";
import type { ParsePool } from "./parse-workers/pool.ts";
import { createRenderContext, isPlainText } from "./render-context.ts";
import { type FormatRenderer, type RenderRun, type RendererNeed, type RendererRegistry } from "./renderer.ts";
import type { ScrapeSpec } from "./spec.ts";
import { renderActionResults } from "./action-results.ts";
import { continuationKey, DocumentContinuations } from "./document-continuations.ts";
import { enhancedCredits, leastCredits, upFrontCosts, waivedExtraCredits, type UpFrontCosts } from "./costs.ts";

export { ENHANCED_PROXY_EXTRA_CREDITS, LOCKDOWN_EXTRA_CREDITS } from "./costs.ts";

/** What the service is built from; time and ids are injected so tests can control them. */
export interface ScrapeServiceDeps {
  engines: EngineRouter;
  renderers: RendererRegistry;
  parsers: ParserRegistry;
  cache: PageCache;
  results: ScrapeResults;
  ledger: CreditLedger;
  /** Largest page body engines may read. */
  maxPageBytes: number;
  /** Capabilities this build has beyond the engines' (e.g. `llm` when a provider is configured). */
  capabilities: ReadonlySet<RendererNeed>;
  now?: () => number;
  newId?: () => string;
  /** Where a failed cache write is reported (the scrape itself goes on). */
  log?: Pick<Logger, "warn">;
  /** Parse workers for concurrent and large pages (scrape/parse-workers); without them every page parses here. */
  parseWorkers?: ParsePool;
  /** PII redaction of the markdown (`redactPII`). @default patterns only: the capability check refuses the model modes */
  redactor?: Redactor;
  /** The boilerplate pass of `onlyCleanContent`; given when an LLM is configured (the capability check needs `llm`). */
  cleaner?: ContentCleaner;
  /**
   * Whether the egress gate lets private addresses through (`CRAWLBOX_ALLOW_PRIVATE_NETWORK`): copies cached then
   * are not served once it is off (scrape/cache-key.ts). @default false
   */
  privateNetwork?: boolean;
  /**
   * Document conversions that may go on past their request's deadline at once (`CRAWLBOX_DOCUMENT_CONTINUATIONS`;
   * they hold document workers). @default 0: none, a timeout stops the conversion
   */
  maxDocumentContinuations?: number;
}

export type { ScrapedPage, ScrapeRunOptions } from "./run-options.ts";


const HTML_TYPES = new Set(["text/html", "application/xhtml+xml", "application/xml", "text/xml", ""]);

/**
 * Whether the pipeline can render `page` (markup or plain text). Other types wait for document parsers. Bytes that
 * are a known binary kind (a PNG, a video, a zip) are not text whatever the type says: served as `text/html` with no
 * parser for them, they came back as 200s of junk markdown instead of the 422 the same file gets under its own type.
 */
function isRenderable(page: Page): boolean {
  if (page.text === undefined || !(HTML_TYPES.has(page.contentType) || isPlainText(page) || page.contentType.endsWith("+xml"))) return false;
  const kind = detectKind(page);
  return kind === "unknown" || kind === "rtf";
}

/**
 * What an interact session on this scrape needs to show the page as the scrape saw it (src/interact/replay.ts): its
 * actions, replayed from the starting URL, and the device and place it was emulated as; undefined when none applies.
 */
function replayOf(spec: ScrapeSpec): ScrapeReplay | undefined {
  if (spec.actions.length === 0 && !spec.mobile && !spec.location) return undefined;
  return { actions: spec.actions, url: spec.url, ...(spec.mobile ? { mobile: true } : {}), ...(spec.location ? { location: spec.location } : {}) };
}

/** Runs scrapes. */
export class ScrapeService {
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly capabilities: ReadonlySet<RendererNeed>;
  private readonly redactor: Redactor;
  /** Scrapes running now (sync scrapes, crawl and batch pages): whether parsing may go to another core. */
  private inFlight = 0;
  /** Document conversions going on past their request's deadline, for the request sent again. */
  private readonly continuations: DocumentContinuations<ConvertedDocument>;
  /** The cache and engines a page comes from (page-source.ts). */
  private readonly pageSource: PageSource;

  constructor(private readonly deps: ScrapeServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? (() => crypto.randomUUID());
    this.capabilities = new Set([...deps.engines.capabilities, ...deps.capabilities]);
    this.redactor = deps.redactor ?? patternRedactor;
    this.continuations = new DocumentContinuations(deps.maxDocumentContinuations ?? 0);
    const { engines, cache, renderers, maxPageBytes, privateNetwork, log } = deps;
    this.pageSource = { engines, cache, renderers, maxPageBytes, now: this.now, ...(privateNetwork !== undefined ? { privateNetwork } : {}), ...(log ? { log } : {}) };
  }

  /** Checks `spec` against what this build supports; throws the 400 a client would get. */
  validate(spec: ScrapeSpec): void {
    assertSupported(spec, this.deps.renderers, this.capabilities);
  }

  /**
   * Scrapes one page for `who`, charging credits and storing the result unless zero data retention is on.
   * `files` stores screenshots and other files the formats produce (see render-context.ts).
   */
  async scrape(spec: ScrapeSpec, who: KeyIdentity, options: ScrapeRunOptions = {}): Promise<ScrapeDocument> {
    return (await this.scrapePage(spec, who, options)).document;
  }

  /**
   * {@link scrape} plus what crawls need: the page's links (all of them, whatever the formats) when
   * `collectLinks` is set. Crawl and batch pages pass their task id as `scrapeId` and `storeResult: false`
   * (their results live with the job).
   */
  async scrapePage(spec: ScrapeSpec, who: KeyIdentity, options: ScrapeRunOptions = {}): Promise<ScrapedPage> {
    this.validate(spec);
    const renderers = this.renderersFor(spec);
    const costs = upFrontCosts(spec, renderers);
    // Held, not only checked: a concurrent scrape of the same key sees these credits as taken until this one charges.
    const hold = options.creditHold ?? this.deps.ledger.hold(who, leastCredits(costs));
    if (options.creditHold) hold.raise(leastCredits(costs));
    this.inFlight++;
    try {
      return await this.scrapeHeld(spec, who, options, renderers, costs, hold);
    } finally {
      this.inFlight--;
      if (!options.creditHold) hold.release();
    }
  }

  /** The scrape itself, with its up-front credits held; `hold` is raised as the page's full price becomes known. */
  private async scrapeHeld(spec: ScrapeSpec, who: KeyIdentity, options: ScrapeRunOptions, renderers: [FormatRenderer, ScrapeSpec["formats"][number]][], costs: UpFrontCosts, hold: CreditHold): Promise<ScrapedPage> {
    const { perPage, extraCredits, cleaningReserve } = costs;
    const startedAt = this.now();
    const scrapeId = options.scrapeId ?? this.newId();
    const { page, cachedAt } = options.page ? { page: options.page, cachedAt: undefined } : await obtainPage(this.pageSource, spec, options.signal, who.keyId);
    const bytesOnly = renderers.length > 0 && renderers.every(([r]) => r.bytesOnly);
    const parser = bytesOnly ? undefined : this.deps.parsers.find(page, spec);
    const fixedCredits = extraCredits + enhancedCredits(spec, page.proxyUsed);
    const converted = parser ? await this.convert(parser, page, spec, who, options, (documentCredits) => hold.raise(documentCredits * perPage + fixedCredits + cleaningReserve)) : undefined;
    const renderable = isRenderable(page);
    if (!converted && !renderable && !bytesOnly) {
      // Served as a PDF but no PDF inside: the file is at fault, not the type (which is supported).
      if (/^application\/(x-)?pdf$/i.test(page.contentType)) throw new PdfCorruptError(page.body.byteLength === 0 ? "the body is empty" : "it does not start with %PDF-");
      // Named by what the bytes are when they say (a PNG served as text/html), else by the type it was served as.
      const kind = detectKind(page);
      throw new UnsupportedFileError(kind !== "unknown" && !page.contentType.includes(kind) ? `${page.contentType || "unknown"} (the bytes are ${kind})` : page.contentType || "unknown");
    }
    let credits = (converted ? converted.credits : 1) * perPage + fixedCredits;
    // A PDF's per-page credits and the enhanced mode's extra are known only now: the quota must hold for them too,
    // before the formats (LLM calls) run and anything is charged.
    hold.raise(credits + cleaningReserve);

    // What LLM-backed and history-keeping renderers need: the key, the deadline, token accounting.
    const commits: (() => void)[] = [];
    const run: RenderRun = {
      onSuccess: (commit) => commits.push(commit),
      keyId: who.keyId,
      deadline: startedAt + spec.timeoutMs,
      recordTokens: (tokens) => this.deps.ledger.charge(who, 0, tokens),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.visibility ? { visibility: options.visibility } : {}),
      ...(options.retriedByJob ? { retriedByJob: true } : {}),
    };
    const markup = !converted && renderable && !isPlainText(page);
    // Views a parse worker computes, the caller's selectors among them (parse-workers/offload.ts).
    const offload = { pool: this.deps.parseWorkers, spec, othersInFlight: this.inFlight - 1, deadline: run.deadline };
    // A converted document's own views cost no parse of it (its metadata reads its head alone: converted-head.ts).
    const prefilled = markup
      ? await pageViewsElsewhere(offload, page, renderers, options.collectLinks === true)
      : converted ? await documentViewsElsewhere(offload, converted.html, page.finalUrl, renderers, options.collectLinks === true) : undefined;
    const ctx = createRenderContext(spec, page, options.files, converted, run, prefilled);
    const pageMeta = converted ? { ...withoutServiceFields(ctx.metadata()), ...converted.metadata } : markup ? withoutServiceFields(ctx.metadata()) : {};
    // Links are read before the renderers run, while the parsed original DOM is still intact (one parse).
    const links = options.collectLinks ? ctx.links() : undefined;
    const doc: ScrapeDocument = { metadata: undefined as unknown as DocumentMetadata };
    armRedaction(spec, this.redactor, run);
    // The markdown redacted (and so built), then cleaned: once, before the first renderer that reads it.
    let prepared: Promise<CleaningOutcome> | undefined;
    const prepareMarkdown = () =>
      (prepared ??= (async () => {
        await redactMarkdownView(ctx, renderers, run);
        return await cleanMarkdownView(ctx, renderers, this.deps.cleaner, run);
      })());
    ctx.preparedMarkdown = async () => {
      await prepareMarkdown();
      return ctx.markdown();
    };
    for (const [renderer, format] of renderers) {
      // Readers of the original page come first, and the step after them; one that reads the markdown too (product,
      // `readsMarkdownToo`) runs it when it asks for the markdown (ctx.preparedMarkdown).
      if (!renderer.usesOriginalDom) await prepareMarkdown();
      mergeRendered(doc, await renderer.render(ctx, format));
    }
    const cleaning: CleaningOutcome = prepared ? await prepared : { ran: false };
    if (cleaning.ran) credits += ONLY_CLEAN_CONTENT_EXTRA_CREDITS;
    // Formats that did not call their model (a page without text) do not charge their extra (costs.ts).
    credits -= waivedExtraCredits(renderers, ctx);
    Object.assign(doc, await renderActionResults(page.artifacts, ctx));
    if (converted?.fields) {
      const pages = await redactPages(converted.fields.pages, spec.redactPII, this.redactor, run);
      mergeRendered(doc, pages ? { ...converted.fields, pages } : converted.fields);
    }
    if (page.warning) mergeRendered(doc, { warning: page.warning });
    if (cleaning.warning) mergeRendered(doc, { warning: cleaning.warning });
    const unredacted = unredactedWarning(spec);
    if (unredacted) mergeRendered(doc, { warning: unredacted });

    const metadata: DocumentMetadata = {
      ...pageMeta,
      url: page.finalUrl,
      sourceURL: spec.sourceUrl,
      statusCode: page.statusCode,
      contentType: page.headers["content-type"] ?? page.contentType,
      scrapeId,
      proxyUsed: page.proxyUsed ?? "basic",
      cacheState: cachedAt === undefined ? "miss" : "hit",
      creditsUsed: credits,
      engine: page.engine,
    };
    if (cachedAt !== undefined) metadata.cachedAt = new Date(cachedAt).toISOString();
    if (options.queue) {
      metadata.concurrencyLimited = options.queue.queuedMs !== undefined;
      if (options.queue.queuedMs !== undefined) metadata.concurrencyQueueDurationMs = options.queue.queuedMs;
    }
    if (page.statusCode >= 400) metadata.error = statusError(page.statusCode);
    // Metadata goes last, as in upstream's documents.
    delete (doc as { metadata?: unknown }).metadata;
    doc.metadata = metadata;

    // Every format rendered: what they keep for later scrapes is recorded now, or by the caller once it keeps the result.
    const commit = () => {
      for (const c of commits.splice(0)) c();
    };
    if (!options.deferCommit) commit();
    if (options.chargeCredits !== false) this.deps.ledger.charge(who, credits);
    if (!spec.zeroDataRetention && options.storeResult !== false) this.deps.results.put(scrapeId, who.keyId, spec.url, doc, this.now(), replayOf(spec));
    const scraped: ScrapedPage = links ? { document: doc, links, headers: page.headers } : { document: doc, headers: page.headers };
    if (options.deferCommit) scraped.commit = commit;
    return scraped;
  }

  /**
   * A document converted by `parser`. A synchronous scrape (`resumable`) converts through the continuations: past
   * its deadline the conversion goes on, and the same request sent again collects it (document-continuations.ts).
   */
  private convert(parser: DocumentParser, page: Page, spec: ScrapeSpec, who: KeyIdentity, options: ScrapeRunOptions, affordCredits: (credits: number) => void): Promise<ConvertedDocument> {
    if (!options.resumable) return parser.parse(page, spec, options.signal, { affordCredits });
    // The request's time left, counted as the parsers count it (documents/deadline.ts).
    const remainingMs = spec.timeoutMs - Math.max(0, page.elapsedMs);
    const key = continuationKey(who.keyId, parser.name, spec.parsers, page.body);
    return this.continuations.run(key, who.keyId, remainingMs, spec.timeoutMs, options.signal, (signal, extraMs) =>
      parser.parse(page, { ...spec, timeoutMs: spec.timeoutMs + extraMs }, signal, { affordCredits }),
    );
  }

  /**
   * The renderers of the requested formats, readers of the original DOM first (see render-context.ts), and among
   * them those that read the markdown too last (product: building the markdown consumes the parsed page, which a
   * DOM reader after it would parse again). A format type given twice is rendered (and charged) once, from its first
   * entry, as upstream reads a format with `formats.find`: two `changeTracking` entries would otherwise both write
   * their history and answer the last.
   */
  private renderersFor(spec: ScrapeSpec): [FormatRenderer, ScrapeSpec["formats"][number]][] {
    const firsts = spec.formats.filter((f, i) => spec.formats.findIndex((g) => g.type === f.type) === i);
    const pairs = firsts.map((f) => [this.deps.renderers.get(f.type)!, f] as [FormatRenderer, typeof f]);
    const rank = (r: FormatRenderer) => (r.usesOriginalDom ? (readsMarkdown(r) ? 1 : 2) : 0);
    return pairs.sort((a, b) => rank(b[0]) - rank(a[0]));
  }
}
