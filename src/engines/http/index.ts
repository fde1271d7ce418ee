/**
 * @module engines/http
 * The plain HTTP engine: Bun's fetch through the egress gate, redirects by hand, one deadline, a decoded-size cap,
 * and charset sniffing. Non-2xx responses are pages (the pipeline records `statusCode` and `metadata.error`); only
 * transport failures throw: `EgressDeniedError`, `ScrapeTimeoutError`, or a `SiteError` with code
 * `SCRAPE_DNS_RESOLUTION_ERROR`, `SCRAPE_SSL_ERROR`, `SCRAPE_RESPONSE_TOO_LARGE` or `SCRAPE_SITE_ERROR`.
 *
 * @example
 * const engine = createHttpEngine({ gate });
 * const page = await engine.fetch({ url: "https://example.com", timeoutMs: 30_000, maxBodyBytes: 25 << 20 });
 */
import type { EgressGate } from "../../egress/index.ts";
import { errorFromProxyResponse } from "../../egress/index.ts";
import { ScrapeTimeoutError } from "../../errors.ts";
import { decodeText, isTextMimeType } from "../charset.ts";
import type { Engine, FetchRequest, Page } from "../types.ts";
import { readLimitedBody } from "./body.ts";
import { Deadline } from "./deadline.ts";
import { buildHeaders, DEFAULT_USER_AGENT } from "./request-headers.ts";
import { MAX_REDIRECTS, REDIRECT_STATUSES, RedirectChain, resolveLocation } from "./redirects.ts";
import { mapTransportError } from "./transport-errors.ts";

/** Options of {@link createHttpEngine}. */
export interface HttpEngineOptions {
  /** The egress gate every request goes through (`proxyUrlFor` is needed only for requests with `upstreamProxy`). */
  gate: Pick<EgressGate, "proxyUrl" | "check"> & Partial<Pick<EgressGate, "proxyUrlFor">>;
  /** User-Agent unless the request sets one. @default DEFAULT_USER_AGENT */
  userAgent?: string;
  /** Redirects followed per fetch. @default 20 */
  maxRedirects?: number;
}

/** Lower-cased response headers; repeated `Set-Cookie` lines are joined with "\n" (commas occur in dates). */
function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies.join("\n");
  return out;
}

function mimeOf(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Text when the type says so, or when there is no type and the first KiB has no NUL byte. */
function looksLikeText(mime: string, body: Uint8Array): boolean {
  if (mime !== "") return isTextMimeType(mime);
  return !body.subarray(0, 1024).includes(0);
}

/** Creates the HTTP engine. Throws on invalid options. */
export function createHttpEngine(options: HttpEngineOptions): Engine {
  if (!options?.gate?.proxyUrl) throw new TypeError("createHttpEngine: gate with a proxyUrl is required");
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new TypeError("createHttpEngine: maxRedirects must be >= 0");
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const { gate } = options;

  /** The gate listener for the request's upstream proxy (the plain gate when there is none). */
  function gateUrlFor(upstreamProxy: string | undefined): string {
    if (!upstreamProxy) return gate.proxyUrl;
    if (!gate.proxyUrlFor) throw new TypeError("createHttpEngine: this gate cannot chain to upstream proxies");
    return gate.proxyUrlFor(upstreamProxy);
  }

  async function fetchOnce(request: FetchRequest, deadline: Deadline, startedAt: number): Promise<Page> {
    const chain = new RedirectChain(request.url, maxRedirects);
    const proxy = gateUrlFor(request.upstreamProxy);
    let url = request.url;
    for (;;) {
      await deadline.race(gate.check(url));
      let res: Response;
      try {
        res = await deadline.race(
          fetch(url, {
            method: "GET",
            headers: buildHeaders(request, url, userAgent),
            proxy,
            redirect: "manual",
            decompress: false, // body.ts decodes with a memory bound
            tls: { rejectUnauthorized: !request.skipTlsVerification },
            signal: deadline.signal,
          }),
        );
      } catch (err) {
        if (deadline.signal.aborted) throw err;
        throw mapTransportError(err, url);
      }
      // Only a plain-http answer can come from the proxy itself; over https the bytes are the site's.
      const refused = url.startsWith("http:") ? errorFromProxyResponse(res) : undefined;
      if (refused) {
        res.body?.cancel().catch(() => {});
        throw refused;
      }
      const location = REDIRECT_STATUSES.has(res.status) ? res.headers.get("location") : null;
      if (location !== null) {
        res.body?.cancel().catch(() => {});
        const next = resolveLocation(location, url);
        chain.follow(next);
        url = next;
        continue;
      }
      const body = await readLimitedBody(res, { url, maxBodyBytes: request.maxBodyBytes, deadline });
      const contentTypeHeader = res.headers.get("content-type");
      const contentType = mimeOf(contentTypeHeader);
      const page: Page = {
        requestedUrl: request.url,
        finalUrl: url,
        statusCode: res.status,
        headers: headerRecord(res.headers),
        contentType,
        body,
        engine: "http",
        elapsedMs: 0,
      };
      if (looksLikeText(contentType, body)) {
        const decoded = decodeText(body, contentType, contentTypeHeader);
        page.text = decoded.text;
        page.charset = decoded.charset;
      }
      page.elapsedMs = Math.round(performance.now() - startedAt);
      return page;
    }
  }

  return {
    name: "http",
    async fetch(request: FetchRequest, signal?: AbortSignal): Promise<Page> {
      if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0) throw new TypeError("timeoutMs must be > 0");
      const startedAt = performance.now();
      const deadline = new Deadline(request.timeoutMs, signal);
      try {
        return await fetchOnce(request, deadline, startedAt);
      } catch (err) {
        if (deadline.timedOut) throw new ScrapeTimeoutError(request.timeoutMs);
        if (signal?.aborted) throw signal.reason ?? err;
        throw err;
      } finally {
        deadline.clear();
      }
    },
  };
}

export { DEFAULT_USER_AGENT } from "./request-headers.ts";
export { RESPONSE_TOO_LARGE_CODE } from "./body.ts";
export { MAX_REDIRECTS } from "./redirects.ts";
