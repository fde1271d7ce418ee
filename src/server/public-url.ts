/**
 * @module server/public-url
 * The absolute base URL clients should use for links crawlbox hands out (`next`, file URLs):
 * `CRAWLBOX_PUBLIC_URL` when set, otherwise the origin the client used: the one a reverse proxy reports
 * (`Forwarded: proto=…;host=…`, or `X-Forwarded-Proto` / `X-Forwarded-Host`), else the request's own. So a server
 * behind a TLS-terminating proxy hands out `https://` links without configuration. A forged header only changes
 * the links of the forger's own answers (and jobs), which that client reads; the `Host` check of an
 * unauthenticated server (server/cors.ts) reads `Host` itself.
 */
import { fileUrl } from "../storage/files.ts";
import type { FileSink } from "../scrape/render-context.ts";
import type { Services } from "./services.ts";

/** A host with an optional port, as a proxy may report it (a name, IPv4, or a bracketed IPv6 literal). */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The first value of a comma-separated header, unquoted and trimmed. */
const first = (v: string | null | undefined) => v?.split(",")[0]?.trim().replace(/^"(.*)"$/, "$1") || undefined;

/** What a reverse proxy says the client used: `Forwarded` (RFC 7239) first, else the `X-Forwarded-*` pair. */
function forwarded(headers: Headers): { proto?: string; host?: string } {
  const element = first(headers.get("forwarded"));
  if (element) {
    const pairs = Object.fromEntries(element.split(";").map((p) => p.split("=").map((x) => x.trim())).filter((kv) => kv.length === 2).map(([k, v]) => [k!.toLowerCase(), v!.replace(/^"(.*)"$/, "$1")]));
    if (pairs.proto || pairs.host) return { proto: pairs.proto, host: pairs.host };
  }
  return { proto: first(headers.get("x-forwarded-proto")), host: first(headers.get("x-forwarded-host")) };
}

/** Base URL for absolute links in answers to `request`. */
export function publicBaseUrl(configuredUrl: string, request: Request): string {
  if (configuredUrl) return configuredUrl;
  const own = new URL(request.url);
  const { proto, host } = forwarded(request.headers);
  const scheme = proto && /^https?$/i.test(proto) ? `${proto.toLowerCase()}:` : own.protocol;
  const authority = host && HOST.test(host) ? host : own.host;
  return `${scheme}//${authority}`;
}

/** A file sink storing into the file store for `keyId`, returning URLs under `baseUrl`. */
export function fileSinkFor(services: Pick<Services, "files">, keyId: string, baseUrl: string): FileSink {
  return async (bytes, contentType, extension) => fileUrl(baseUrl, await services.files.put(bytes, contentType, keyId, extension));
}
