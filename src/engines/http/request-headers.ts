/**
 * @module engines/http/request-headers
 * The request headers of one hop: our defaults, then the client's `headers` option, filtered by origin
 * (see {@link CROSS_ORIGIN_SAFE_HEADERS}). `Accept-Encoding` is always ours: the body reader can only undo
 * gzip, deflate and br, so a client asking for zstd would get bytes nobody can decode.
 */
import type { FetchRequest } from "../types.ts";
import { CROSS_ORIGIN_SAFE_HEADERS, headersAllowed } from "./redirects.ts";

/** Identifies crawlbox honestly, in the `compatible;` form sites' bot rules recognise. Overridable per request. */
export const DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; crawlbox/0.1; +https://github.com/crawlbox)";

/** What a browser-like client sends; HTML first, anything accepted. */
export const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** Matches the decoders in body.ts. */
export const ACCEPT_ENCODING = "gzip, deflate, br";

/** Headers a client may not set: framing, hop-by-hop and proxy headers belong to the transport. */
/** Headers a client may not set: transport, hop-by-hop and proxy headers (the HTTP and browser engines alike). */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "transfer-encoding",
  "content-length",
  "te",
  "upgrade",
  "trailer",
  "accept-encoding",
]);

/**
 * Headers for fetching `url` as part of `request`. Client headers are applied in full on the origin of
 * `request.headersOrigin` (default `request.url`) and on its https upgrade ({@link headersAllowed}); on any other
 * origin only the cross-origin-safe ones are kept.
 */
export function buildHeaders(request: FetchRequest, url: string, userAgent: string): Headers {
  const headers = new Headers({
    "user-agent": userAgent,
    accept: DEFAULT_ACCEPT,
    "accept-language": "en-US,en;q=0.9",
  });
  const trusted = headersAllowed(url, request.headersOrigin ?? request.url);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith("proxy-")) continue;
    if (!trusted && !CROSS_ORIGIN_SAFE_HEADERS.has(lower)) continue;
    headers.set(lower, value);
  }
  headers.set("accept-encoding", ACCEPT_ENCODING);
  return headers;
}
