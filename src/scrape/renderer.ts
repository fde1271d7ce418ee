/**
 * @module scrape/renderer
 * The format plugin interface. Each format (`markdown`, `links`, `screenshot`, `json`, …) is one object
 * implementing {@link FormatRenderer}, registered once in `plugins/index.ts`. A renderer declares what it needs
 * (`needs`) so the service can pick an engine, refuse what this build cannot do, and price the page, without a
 * switch over format names anywhere.
 */
import type { RedactionBudget } from "../redact/redactor.ts";
import type { Page } from "../engines/types.ts";
import type { AttributeResult, AttributeSelector } from "../pipeline/attributes.ts";
import type { PageMetadata } from "../pipeline/metadata.ts";
import type { ScrapeDocument } from "./document.ts";
import type { FormatRequest, ScrapeSpec } from "./spec.ts";

/**
 * Capabilities a renderer may need from the rest of the system: `browser` renders the page in the browser; `sandbox`
 * runs code in a browser page of its own (the page itself is fetched as any other); `llm` is a configured model.
 */
export type RendererNeed = "browser" | "sandbox" | "llm";

/**
 * The views of a page that come from parsing its markup, each a method of {@link RenderContext}: `metadata`,
 * `links`, `images`, `html` (cleanedHtml), `markdown` and `attributes` (the values the request's `attributes`
 * formats ask for). A parse worker can compute them off the main thread in one parse, because they are plain data
 * (scrape/parse-workers).
 */
export type PageView = "metadata" | "links" | "images" | "html" | "markdown" | "attributes";

/**
 * Lazily computed views of one fetched page, shared by every renderer of a request so that the page is parsed
 * and cleaned at most once.
 */
export interface RenderContext {
  readonly spec: ScrapeSpec;
  readonly page: Page;
  /** URL the page was served from (after redirects); base for relative links unless `<base href>` says otherwise. */
  readonly pageUrl: string;
  /** The page as served, decoded to text (empty for binary pages). */
  rawHtml(): string;
  /** The parsed original DOM. Read-only: renderers must not mutate it. */
  originalDom(): Document;
  /** Base URL for relative links: `<base href>` or the page URL. */
  baseUrl(): string;
  /** Cleaned HTML after tag filters and main-content selection (the `html` format). */
  cleanedHtml(): string;
  /** Markdown of the cleaned HTML (the `markdown` format). */
  markdown(): string;
  /**
   * The markdown once redacted and cleaned as the request asks (`redactPII`, `onlyCleanContent`): what a renderer
   * that reads the original DOM and the markdown too ({@link FormatRenderer.readsMarkdownToo}) reads instead of
   * `markdown()`, which it may be called before that step. The scrape service sets it to run its memoised step first
   * (once per scrape), as its stages replace `markdown`; by default (a parse worker's context, which has no such step)
   * it is `markdown()`. Rejects with what the step throws (a model's `LLM_*` error fails the scrape).
   */
  preparedMarkdown(): Promise<string>;
  /** The page's metadata from its `<head>` (title, description, og:*, …), before the service adds its own fields. */
  metadata(): PageMetadata;
  /** Every link of the whole page (not only the main content), absolute and deduplicated. */
  links(): string[];
  /** Every image URL of the page, absolute and deduplicated; `data:` URLs only when `removeBase64Images` is off. */
  images(): string[];
  /**
   * For each pair, the attribute's values on the elements its selector matches in the original page (the `attributes`
   * format, pipeline/attributes.ts). The pairs of the request's `attributes` formats may come from a parse worker.
   */
  attributes(selectors: readonly AttributeSelector[]): AttributeResult[];
  /**
   * Stores a file produced for the document (screenshot, PDF, audio) and returns the URL to put in it:
   * a `/v2/files/…` URL that expires, or a `data:` URL under zero data retention (nothing is stored).
   */
  storeFile(bytes: Uint8Array, contentType: string, extension: string): Promise<string>;
  /** Who the page is scraped for and under which limits (LLM-backed formats, change tracking). */
  readonly run?: RenderRun;
}

/** The per-scrape facts renderers that call an LLM or keep history need; set by the scrape service. */
export interface RenderRun {
  /** The API key the page is scraped for (history and token usage are per key). */
  keyId: string;
  /** Aborts when the client goes away or the job is cancelled. */
  signal?: AbortSignal;
  /** Epoch ms by which the scrape should be finished (its `timeout`). */
  deadline: number;
  /** Records LLM tokens spent for the key (`/v2/team/token-usage`), even if the page fails later. */
  recordTokens(tokens: number): void;
  /** changeTracking: `hidden` when a crawl re-checks a page only because its previous crawl saw it. */
  visibility?: "visible" | "hidden";
  /**
   * A crawl or batch page before its last attempt: its LLM calls leave a model server that cannot be reached to the
   * job's retry of the page (llm/render-call.ts, llm/server-down.ts). @default false
   */
  retriedByJob?: boolean;
  /**
   * With `redactPII`: redacts other text the same way as the page's markdown (changeTracking's previous snapshot,
   * which a scrape without redaction may have stored raw). `budget`: a format's own LLM call and spending, which the
   * redaction's model reads then draw on (deterministicJson redacts the page text it sends its model within its budget).
   */
  redact?(markdown: string, budget?: RedactionBudget): Promise<string>;
  /**
   * Keeps `commit` until the whole scrape has succeeded (every format rendered), then runs it: what a format records
   * for later scrapes (changeTracking's new baseline) must not be recorded by a scrape the client got an error for.
   */
  onSuccess?(commit: () => void): void;
}

/** A format plugin. */
export interface FormatRenderer {
  /** The format's `type` on the wire. */
  readonly type: string;
  /** What the renderer needs; a request that needs what this build lacks is refused with a clear 400. */
  readonly needs: readonly RendererNeed[];
  /**
   * Credits charged per page on top of the base page credit (docs/credits.md, upstream's prices): a number, or one
   * that depends on the format's options (changeTracking's `json` mode). @default 0
   */
  readonly extraCredits?: number | ((format: Record<string, unknown>) => number);
  /**
   * Formats of one group add their extra once per page, the largest of them: upstream bills `json` and
   * changeTracking's `json` mode as one +4, and `question` with `query` as one. @default each on its own
   */
  readonly creditGroup?: string;
  /** Reads the original DOM: such renderers run before cleaning consumes it. @default false */
  readonly usesOriginalDom?: boolean;
  /**
   * The parsed views the renderer reads (`ctx.markdown()`, `ctx.links()`, …), and nothing else of the DOM. When
   * every requested renderer declares its views, a parse worker may compute them on another core; a renderer
   * that leaves this out (it calls `originalDom()`) keeps the page on the main thread. @default undefined
   */
  readonly views?: readonly PageView[];
  /**
   * A reader of the original DOM ({@link usesOriginalDom}) that also reads the markdown (`product`, whose model reads
   * the page's text when it declares no structured data). It runs last among the readers of the original DOM (building
   * the markdown consumes the parsed page, which a DOM reader after it would parse again), and the redact-and-clean
   * step runs before it reads the markdown, through {@link RenderContext.preparedMarkdown}. @default false
   */
  readonly readsMarkdownToo?: boolean;
  /** Needs the live page: a cached copy would hide what it reports (changeTracking). @default false */
  readonly needsFreshPage?: boolean;
  /**
   * Reads only the fetched bytes (`rawBase64`): when every requested format does, the page is neither parsed nor
   * converted, so any content type is accepted and a PDF costs one credit, not one per page. @default false
   */
  readonly bytesOnly?: boolean;
  /** Validates the format's own options before anything is fetched; throws a 400-class error. */
  validate?(format: FormatRequest, spec: ScrapeSpec): void;
  /** Produces this format's fields of the document. */
  render(ctx: RenderContext, format: FormatRequest): Partial<ScrapeDocument> | Promise<Partial<ScrapeDocument>>;
}

/** Thrown at boot when two plugins claim the same format. */
export class DuplicateRendererError extends Error {}

/** The one registry of format renderers. */
export class RendererRegistry {
  private readonly byType = new Map<string, FormatRenderer>();

  /** Adds a renderer; a second renderer for the same type is a programming error. */
  register(renderer: FormatRenderer): this {
    if (this.byType.has(renderer.type)) throw new DuplicateRendererError(`format "${renderer.type}" is registered twice`);
    this.byType.set(renderer.type, renderer);
    return this;
  }

  /** The renderer for `type`, if any. */
  get(type: string): FormatRenderer | undefined {
    return this.byType.get(type);
  }

  /** Registered format types, in registration order. */
  types(): string[] {
    return [...this.byType.keys()];
  }
}

/** The credits `formats` add to a page beyond its base credit: each renderer's extra, a group's once. */
export function formatExtraCredits(formats: readonly (readonly [FormatRenderer, unknown])[]): number {
  const groups = new Map<string, number>();
  let sum = 0;
  for (const [r, f] of formats) {
    const n = typeof r.extraCredits === "function" ? r.extraCredits(f as Record<string, unknown>) : (r.extraCredits ?? 0);
    if (r.creditGroup === undefined) sum += n;
    else groups.set(r.creditGroup, Math.max(groups.get(r.creditGroup) ?? 0, n));
  }
  for (const n of groups.values()) sum += n;
  return sum;
}

/**
 * Where `format` stands in the request's `formats` (the same object, else the first of its type): validation issues
 * name a format by its index (`["formats", 2, "schema"]`), as the request's other issues do.
 */
export function formatIndex(spec: Pick<ScrapeSpec, "formats">, format: FormatRequest): number {
  const i = spec.formats.indexOf(format);
  return i >= 0 ? i : spec.formats.findIndex((f) => f.type === format.type);
}
