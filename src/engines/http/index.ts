/**
 * @module engines/http
 * The plain HTTP engine: Bun's fetch through the egress gate, redirects by hand, one deadline, a decoded-size cap,
 * and charset sniffing. Every hop (the URL and each redirect) is resolved and checked by the gate; the engine then
 * connects to a checked address itself (egress/pinned.ts), or through the gate's listener for a request with an
 * upstream proxy. Non-2xx responses are pages (the pipeline records `statusCode` and `metadata.error`); only
 * transport failures throw: `EgressDeniedError`, `ScrapeTimeoutError`, or a `SiteError` with code
 * `SCRAPE_DNS_RESOLUTION_ERROR`, `SCRAPE_SSL_ERROR`, `SCRAPE_RESPONSE_TOO_LARGE` or `SCRAPE_SITE_ERROR`.
 *
 * @example
 * const engine = createHttpEngine({ gate });
 * const page = await engine.fetch({ url: "https://example.com", timeoutMs: 30_000, maxBodyBytes: 25 << 20 });
 */
import type { EgressGate } from "../../egress/index.ts";
import { errorFromProxyResponse, isConnectFailure, pinnedTargets } from "../../egress/index.ts";
import { CrawlboxError, ScrapeTimeoutError } from "../../errors.ts";
import { attachText, mimeTypeOf } from "../charset.ts";
import type { Engine, FetchRequest, Page } from "../types.ts";
import { readLimitedBody } from "./body.ts";
import { Deadline } from "./deadline.ts";
import { buildHeaders, DEFAULT_USER_AGENT } from "./request-headers.ts";
import { locationFromHeader, MAX_REDIRECTS, REDIRECT_STATUSES, RedirectChain, resolveLocation } from "./redirects.ts";
import { mapTransportError } from "./transport-errors.ts";

/** Options of {@link createHttpEngine}. */
export interface HttpEngineOptions {
  /** The egress gate every request goes through (`proxyUrlFor` is needed only for requests with `upstreamProxy`). */
  gate: Pick<EgressGate, "proxyUrl" | "resolve"> & Partial<Pick<EgressGate, "proxyUrlFor">>;
  /** User-Agent unless the request sets one. @default DEFAULT_USER_AGENT */
  userAgent?: string;
  /** Redirects followed per fetch. @default 20 */
  maxRedirects?: number;
  /**
   * Connect to the addresses the gate checked (egress/pinned.ts). `false` sends every request through the gate's
   * proxy listener instead: needed when the environment sets `HTTP(S)_PROXY`, which Bun's fetch would otherwise
   * apply to the pinned connections (config `environmentProxy`). @default true
   */
  pinned?: boolean;
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

/** `url` as WHATWG serialises it; the URL itself when it does not parse (never the case after the gate). */
function canonicalHref(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** Creates the HTTP engine. Throws on invalid options. */
export function createHttpEngine(options: HttpEngineOptions): Engine {
  if (typeof options?.gate?.resolve !== "function") throw new TypeError("createHttpEngine: gate with resolve() is required");
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new TypeError("createHttpEngine: maxRedirects must be >= 0");
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const { gate } = options;
  const pinned = options.pinned ?? true;

  /** The gate listener chaining to `upstreamProxy` (which resolves and checks the destination itself). */
  function gateUrlFor(upstreamProxy: string): string {
    if (!gate.proxyUrlFor) throw new TypeError("createHttpEngine: this gate cannot chain to upstream proxies");
    return gate.proxyUrlFor(upstreamProxy);
  }

  /**
   * One request for `url`: checked by the gate, then sent to a checked address (the next one when a connection is
   * refused), or through the gate's upstream listener when the request names an upstream proxy.
   */
  async function send(request: FetchRequest, url: string, deadline: Deadline): Promise<Response> {
    const headers = buildHeaders(request, url, userAgent);
    const init = { method: "GET", headers, redirect: "manual", decompress: false, signal: deadline.signal } as const; // body.ts decodes with a memory bound
    const rejectUnauthorized = !request.skipTlsVerification;
    if (request.upstreamProxy || !pinned) {
      const proxy = request.upstreamProxy ? gateUrlFor(request.upstreamProxy) : gate.proxyUrl;
      await deadline.race(gate.resolve(url)); // a clear refusal before the listener is even asked
      return deadline.race(fetch(url, { ...init, proxy, tls: { rejectUnauthorized } }));
    }
    const targets = pinnedTargets(url, await deadline.race(gate.resolve(url)));
    for (let i = 0; ; i++) {
      const target = targets[i]!;
      headers.set("host", target.host);
      const tls = target.serverName ? { rejectUnauthorized, serverName: target.serverName } : { rejectUnauthorized };
      try {
        return await deadline.race(fetch(target.url, { ...init, tls }));
      } catch (err) {
        if (deadline.signal.aborted || i === targets.length - 1 || !isConnectFailure(err)) throw err;
      }
    }
  }

  async function fetchOnce(request: FetchRequest, deadline: Deadline, startedAt: number): Promise<Page> {
    const chain = new RedirectChain(request.url, maxRedirects);
    let url = request.url;
    for (;;) {
      let res: Response;
      try {
        res = await send(request, url, deadline);
      } catch (err) {
        if (deadline.signal.aborted || err instanceof CrawlboxError) throw err;
        throw mapTransportError(err, url);
      }
      // Only a plain-http answer through the gate's listener can come from the gate itself; over https, or pinned,
      // the bytes are the site's.
      const refused = (request.upstreamProxy || !pinned) && url.startsWith("http:") ? errorFromProxyResponse(res) : undefined;
      if (refused) {
        res.body?.cancel().catch(() => {});
        throw refused;
      }
      // An empty Location names no target (browsers then show the response itself), so only a non-empty one is
      // followed; resolving "" would give the current URL back and fail as a redirect loop.
      const location = REDIRECT_STATUSES.has(res.status) ? (res.headers.get("location")?.trim() ?? "") : "";
      if (location !== "") {
        res.body?.cancel().catch(() => {});
        const next = resolveLocation(locationFromHeader(location), url);
        chain.follow(next);
        url = next;
        continue;
      }
      let body: Uint8Array;
      try {
        body = await readLimitedBody(res, { url, maxBodyBytes: request.maxBodyBytes, deadline });
      } catch (err) {
        // A body that breaks off or is malformed (bad chunk sizes) is the site's error, as a failed connection is.
        if (deadline.signal.aborted || err instanceof CrawlboxError) throw err;
        throw mapTransportError(err, url);
      }
      const contentTypeHeader = res.headers.get("content-type");
      const contentType = mimeTypeOf(contentTypeHeader);
      const page: Page = {
        requestedUrl: request.url,
        // In the form a browser reports it (`http://host` → `http://host/`, scheme and host lower-cased), as the
        // browser engine and upstream's metadata.url do: the same request must not answer two spellings by engine.
        finalUrl: canonicalHref(url),
        statusCode: res.status,
        headers: headerRecord(res.headers),
        contentType,
        body,
        engine: "http",
        elapsedMs: 0,
      };
      attachText(page, contentTypeHeader);
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
