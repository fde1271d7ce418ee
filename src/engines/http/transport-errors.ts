/**
 * @module engines/http/transport-errors
 * Maps what Bun's fetch throws into the stable /v2 codes. Only transport failures end up here; HTTP error
 * statuses are pages, not errors. Codes observed on bun 1.4.5: TLS verification failures carry the OpenSSL
 * reason as `code` (`DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`…),
 * connection failures `ECONNREFUSED` / `ECONNRESET`, a non-HTTP answer `Malformed_HTTP_Response`, DNS `ENOTFOUND`.
 * Through the egress proxy, DNS and connect failures arrive as proxy answers instead (egress/signal.ts).
 */
import { type CrawlboxError, SiteError } from "../../errors.ts";
import { errorFromFetchFailure } from "../../egress/index.ts";

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME|ALTNAME|HANDSHAKE/i;
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "DNS_ENOTFOUND", "EAI_NONAME"]);

/** The typed error for a fetch rejection that was not an abort. */
export function mapTransportError(err: unknown, url: string): CrawlboxError {
  const fromProxy = errorFromFetchFailure(err);
  if (fromProxy) return fromProxy;
  const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : "";
  const message = err instanceof Error ? err.message : String(err);
  const host = safeHost(url);
  if (code && TLS_CODE.test(code)) {
    return new SiteError("SCRAPE_SSL_ERROR", `TLS error connecting to ${host}: ${message} (${code}). Pass skipTlsVerification to ignore.`, {
      retryable: false,
      cause: err,
      details: { code },
    });
  }
  if (DNS_CODES.has(code)) {
    return new SiteError("SCRAPE_DNS_RESOLUTION_ERROR", `DNS resolution failed for hostname: ${host}.`, {
      retryable: false,
      cause: err,
    });
  }
  return new SiteError("SCRAPE_SITE_ERROR", `Fetching ${url} failed: ${message}${code && !message.includes(code) ? ` (${code})` : ""}`, {
    cause: err,
    details: code ? { code } : undefined,
  });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
