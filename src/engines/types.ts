/**
 * @module engines/types
 * What an engine hands to the pipeline. Engines know nothing about formats: they turn a {@link FetchRequest}
 * into a {@link Page} (bytes plus what the transport said about them), and every outbound connection they make
 * goes through the egress gate.
 */

/** What the scrape asks an engine to fetch. */
export interface FetchRequest {
  /** Absolute http(s) URL, as the client gave it (after `http://` was prepended when missing). */
  url: string;
  /** Extra request headers from the client (`headers` option). */
  headers?: Record<string, string>;
  /**
   * The URL whose origin `headers` were given for (default: `url`). Map and sitemap fetches set it to the URL the
   * client asked for: a sitemap or link on another origin then gets only the cross-origin-safe headers, never the
   * client's `Authorization` or `Cookie`.
   */
  headersOrigin?: string;
  /** Accept invalid TLS certificates. */
  skipTlsVerification?: boolean;
  /** One deadline for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Largest decoded body to read; larger bodies fail with a `SiteError` code `SCRAPE_RESPONSE_TOO_LARGE` (500). */
  maxBodyBytes: number;
  /**
   * A configured upstream proxy URL to chain to (the router picks it, see docs/browser.md "Proxies"); the engine
   * still talks only to the egress gate, through `gate.proxyUrlFor(upstreamProxy)`. Undefined = direct.
   */
  upstreamProxy?: string;
}

/** A fetched resource, before any parsing. */
export interface Page {
  /** The URL that was asked for. */
  requestedUrl: string;
  /** The URL after redirects. */
  finalUrl: string;
  /** HTTP status of the final response. */
  statusCode: number;
  /** Lower-cased response headers of the final response. */
  headers: Record<string, string>;
  /** `Content-Type` without parameters, lower-cased (e.g. `text/html`); empty when absent. */
  contentType: string;
  /** The body as served (after transfer decoding: gzip/br/deflate undone). */
  body: Uint8Array;
  /** The body decoded to text with the sniffed charset (BOM, header, meta prescan); undefined for binary types. */
  text?: string;
  /** The charset used to decode `text`. */
  charset?: string;
  /** Which engine produced the page. */
  engine: "http" | "browser" | "upload";
  /** `stealth` when the enhanced mode (stealth measures, enhanced upstream proxy) served the page. @default "basic" */
  proxyUsed?: "basic" | "stealth";
  /** What a browser produced besides the page itself (screenshot, action results); absent for HTTP. */
  artifacts?: PageArtifacts;
  /**
   * What the client should know about how the page was obtained (a browser that failed, or is missing, for a page
   * that needs one); becomes the document's `warning`.
   */
  warning?: string;
  /** A worse copy than this server can normally make (its browser failed): served, but not cached for others. */
  degraded?: boolean;
  /** Time the fetch took. */
  elapsedMs: number;
}

/** An engine turns requests into pages. */
export interface Engine {
  readonly name: Page["engine"];
  fetch(request: FetchRequest, signal?: AbortSignal): Promise<Page>;
}

/** Binary and structured outputs of a browser session, turned into document fields by renderers. */
export interface PageArtifacts {
  /** The `screenshot` format's image; `clippedAtPx`: a full page cut at that height (engines/browser/actions.ts). */
  screenshot?: { bytes: Uint8Array; contentType: string; clippedAtPx?: number };
  /** Results of `actions`, in action order per kind (api-v2.md §6.6). */
  actions?: {
    screenshots: { bytes: Uint8Array; contentType: string }[];
    scrapes: { url: string; html: string }[];
    javascriptReturns: { type: string; value: unknown }[];
    pdfs: { bytes: Uint8Array; contentType: string }[];
  };
  /** Anything else an engine wants to hand to its renderers (keyed by renderer type). */
  [extra: string]: unknown;
}
