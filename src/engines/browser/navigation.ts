/**
 * @module engines/browser/navigation
 * What the browser engine makes of a navigation: whether the main response is rendered (HTML), read as text, or
 * handed to the document pipeline ({@link DocumentResponseError}); and which error a failed or gate-refused
 * navigation maps to, the same one the HTTP engine gives for the same cause, so callers need not know which
 * engine ran.
 */
import type { HTTPResponse } from "puppeteer-core";
import type { EgressGate } from "../../egress/index.ts";
import { EGRESS_ERROR_HEADER, EGRESS_MESSAGE_HEADER } from "../../egress/index.ts";
import { CrawlboxError, EgressDeniedError, ScrapeTimeoutError, SiteError } from "../../errors.ts";

/** The main response is a document (PDF…) for the document pipeline, not a page to render. */
export class DocumentResponseError extends CrawlboxError {
  constructor(
    readonly url: string,
    readonly contentType: string,
  ) {
    super("SCRAPE_DOCUMENT_RESPONSE", 500, `The URL answered with a ${contentType} document, not a web page.`);
  }
}

/** Content types the engine renders and reads back as the DOM (`""`: no Content-Type, which browsers render too). */
export const RENDERED_TYPES = new Set(["text/html", "application/xhtml+xml", ""]);
/** Content types the browser shows as text: read as the response body, not rendered and not a document. */
export const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|[\w.+-]+\+(json|xml)))/;

/** The gate's refusal of a plain-http navigation, recognised by its marker headers. */
export function egressRefusal(res: HTTPResponse): CrawlboxError | undefined {
  const h = res.headers();
  const code = h[EGRESS_ERROR_HEADER];
  if (!code) return undefined;
  const message = h[EGRESS_MESSAGE_HEADER] ?? `Egress proxy refused the request (${code}).`;
  if (code === "EGRESS_DENIED") return new EgressDeniedError(message);
  return new SiteError(code, message, { retryable: code !== "SCRAPE_DNS_RESOLUTION_ERROR" });
}

/** Maps a failed navigation to the error the HTTP engine would give for the same cause. */
export async function navigationError(err: unknown, url: string, timeoutMs: number, gate: Pick<EgressGate, "check">): Promise<CrawlboxError> {
  const msg = firstLine(err);
  if (/TimeoutError|Navigation timeout/i.test(msg) || (err as Error)?.name === "TimeoutError") {
    return new ScrapeTimeoutError(timeoutMs);
  }
  if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_NAME_NOT_RESOLVED/.test(msg)) {
    // The gate refused the tunnel (https) or could not resolve or connect: ask it why.
    try {
      await gate.check(url);
    } catch (e) {
      if (e instanceof CrawlboxError) return e;
    }
    return new SiteError("SCRAPE_SITE_ERROR", `Could not connect to ${new URL(url).host} (${msg}).`);
  }
  if (/ERR_CERT_|ERR_SSL_|SSL_PROTOCOL/.test(msg)) {
    return new SiteError("SCRAPE_SSL_ERROR", `TLS error for ${new URL(url).host}: ${msg}. Set skipTlsVerification to accept it.`, {
      retryable: false,
    });
  }
  return new SiteError("SCRAPE_SITE_ERROR", `The browser could not load ${url}: ${msg}`);
}

/** The first line of an error's message, at most 300 characters (for error messages that quote it). */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300);
}
