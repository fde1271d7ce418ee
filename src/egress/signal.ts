/**
 * @module egress/signal
 * How the egress proxy tells its HTTP client *why* it refused, so the client can raise a typed error
 * ({@link EgressDeniedError}, DNS, connect failure) instead of a generic network error.
 *
 * The proxy answers a refusal with an ordinary HTTP response (403 for a denial, 502 for DNS/connect failures)
 * carrying two marker headers: `x-crawlbox-egress-error: <error code>` and `x-crawlbox-egress-message: <message>`.
 * - Plain http:// requests: the client receives that response as if it came from the site; {@link errorFromProxyResponse}
 *   recognises it. The proxy strips these headers from every real upstream response, so a site cannot forge them.
 * - https:// (CONNECT): Bun's fetch rejects with `code: "ERR_PROXY_TUNNEL"` and exposes `status` and `headers` of the
 *   proxy's answer (verified on bun 1.4.5); {@link errorFromFetchFailure} maps that. Chromium shows the body.
 */
import { CrawlboxError, EgressDeniedError, SiteError } from "../errors.ts";

/** Header carrying the error code of a refusal made by the proxy itself. */
export const EGRESS_ERROR_HEADER = "x-crawlbox-egress-error";
/** Header carrying the human-readable message of a refusal made by the proxy itself. */
export const EGRESS_MESSAGE_HEADER = "x-crawlbox-egress-message";
/** Prefix of every marker header; the proxy removes upstream headers with this prefix. */
export const EGRESS_HEADER_PREFIX = "x-crawlbox-egress-";

const REASONS: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway" };

/** Header values must be visible ASCII; anything else (control characters, CR/LF) is replaced. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 1000);
}

/**
 * The raw HTTP/1.1 response the proxy writes for a refusal. `Connection: close` because the proxy closes the
 * client connection after a refusal.
 */
export function proxyErrorResponse(err: CrawlboxError): string {
  const status = err.code === "EGRESS_DENIED" ? 403 : err.status === 400 || err.status === 431 ? err.status : 502;
  const body = JSON.stringify({ success: false, code: err.code, error: err.message });
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
    `Content-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `${EGRESS_ERROR_HEADER}: ${headerSafe(err.code)}\r\n` +
    `${EGRESS_MESSAGE_HEADER}: ${headerSafe(err.message)}\r\n` +
    `Connection: close\r\nProxy-Connection: close\r\n\r\n${body}`
  );
}

function fromMarkers(headers: Headers): CrawlboxError | undefined {
  const code = headers.get(EGRESS_ERROR_HEADER);
  if (!code) return undefined;
  const message = headers.get(EGRESS_MESSAGE_HEADER) ?? `Egress proxy refused the request (${code}).`;
  if (code === "EGRESS_DENIED") return new EgressDeniedError(message);
  const retryable = code !== "SCRAPE_DNS_RESOLUTION_ERROR";
  return new SiteError(code, message, { retryable });
}

/**
 * The typed error behind a plain-http response the proxy produced itself, or undefined for a real site response.
 * Only call this on responses fetched through the gate's proxy.
 */
export function errorFromProxyResponse(res: Response): CrawlboxError | undefined {
  return fromMarkers(res.headers);
}

/**
 * The typed error behind a fetch rejection caused by the proxy refusing a CONNECT tunnel, or undefined when the
 * rejection has another cause (TLS, reset, abort…). A tunnel refusal without markers (should not happen with our
 * proxy) maps to a retryable `SCRAPE_SITE_ERROR`.
 */
export function errorFromFetchFailure(err: unknown): CrawlboxError | undefined {
  if (!err || typeof err !== "object" || (err as { code?: unknown }).code !== "ERR_PROXY_TUNNEL") return undefined;
  const e = err as { status?: number; headers?: unknown; message?: string };
  if (e.headers instanceof Headers) {
    const typed = fromMarkers(e.headers);
    if (typed) return typed;
  }
  return new SiteError("SCRAPE_SITE_ERROR", `The egress proxy refused the tunnel: ${e.message ?? "unknown reason"}`, {
    cause: err,
  });
}
