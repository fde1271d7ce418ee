/**
 * @module server/cors
 * Browser access: CORS for the web pages allowed by `CRAWLBOX_CORS_ORIGINS`, and a guard against drive-by requests
 * when authentication is off.
 *
 * Upstream answers CORS for any origin (`app.use(cors())`), and the JS SDK runs in browsers too: without it every
 * POST from a web page fails its preflight. With authentication on, any origin is safe to allow (the default): a
 * page still needs a key, which browsers never attach by themselves. With authentication off (loopback only) no
 * origin is allowed by default, and a state-changing request that a browser sends from another origin is refused
 * (403 `FORBIDDEN_ORIGIN`): a page on any website could otherwise make the visitor's own crawlbox start crawls or
 * reach the private addresses it was allowed to (a plain form POST needs no preflight, and every body is read as
 * JSON). Requests without an `Origin` header (the SDKs, curl) and same-origin ones (the /docs page) are never
 * affected. Also with authentication off, a request must name this machine in its `Host` header (a loopback name,
 * `HOST`, or the host of `CRAWLBOX_PUBLIC_URL`), else 403 `FORBIDDEN_HOST`: a website whose name is re-pointed at
 * 127.0.0.1 (DNS rebinding) is same-origin to the browser, so the origin rule alone would let it in, answers
 * included.
 */
import { Elysia } from "elysia";
import { isLoopbackHost } from "../config.ts";
import { CrawlboxError } from "../errors.ts";

/** 403: a browser request from a web origin that may not use this server. */
export class ForbiddenOriginError extends CrawlboxError {
  constructor(origin: string) {
    super(
      "FORBIDDEN_ORIGIN",
      403,
      `Requests from ${origin} are not allowed: authentication is off, so only origins listed in CRAWLBOX_CORS_ORIGINS may call this server from a browser.`,
      { details: { origin } },
    );
  }
}

/** 403: with authentication off, a request for a host name that is not this machine's (DNS rebinding). */
export class ForbiddenHostError extends CrawlboxError {
  constructor(host: string) {
    super(
      "FORBIDDEN_HOST",
      403,
      `Requests for ${host} are not served: authentication is off, so only loopback names, HOST and the host of CRAWLBOX_PUBLIC_URL are accepted (a page reaching this server under another name is refused).`,
      { details: { host } },
    );
  }
}

/** Whether `hostname` (as URL.hostname gives it) names this machine: a loopback address or a `*.localhost` name. */
function isLoopbackName(hostname: string): boolean {
  const h = hostname.replace(/\.$/, "");
  return isLoopbackHost(h) || h.endsWith(".localhost");
}

/** Methods the API has (PATCH: a monitor; PUT: a parse upload URL). */
const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/** Request headers a page may send when the preflight does not list its own. */
const DEFAULT_ALLOW_HEADERS = "authorization, content-type, idempotency-key, x-idempotency-key";
/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSE_HEADERS = "Idempotent-Replayed, Retry-After, WWW-Authenticate";
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE_S = 600;
/** Methods that change nothing; a cross-origin page cannot read their answers without CORS anyway. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The CORS policy for `origins` (`["*"]` = any); `authEnabled` decides whether foreign origins may even write, and
 * whether the `Host` header is checked against `trustedHosts` (host names besides loopback ones: `HOST`, the host
 * of `CRAWLBOX_PUBLIC_URL`).
 */
export function corsPlugin(origins: readonly string[], authEnabled: boolean, trustedHosts: readonly string[] = []) {
  const any = origins.includes("*");
  const listed = new Set(origins);
  const trusted = new Set(trustedHosts.filter(Boolean).map((h) => h.toLowerCase()));
  /** The `Access-Control-Allow-Origin` value for `origin`, or undefined when it is not allowed. */
  const allowOrigin = (origin: string) => (any ? "*" : listed.has(origin) ? origin : undefined);

  return new Elysia({ name: "crawlbox-cors" }).onRequest(({ request, set }) => {
    if (!authEnabled) {
      const hostHeader = request.headers.get("host");
      if (hostHeader) {
        let hostname: string;
        try {
          hostname = new URL(`http://${hostHeader}`).hostname;
        } catch {
          throw new ForbiddenHostError(hostHeader);
        }
        if (!isLoopbackName(hostname) && !trusted.has(hostname)) throw new ForbiddenHostError(hostname);
      }
    }
    const origin = request.headers.get("origin");
    if (!origin) return;
    const allowed = allowOrigin(origin);
    if (!allowed && !authEnabled && !SAFE_METHODS.has(request.method) && origin !== new URL(request.url).origin) {
      throw new ForbiddenOriginError(origin);
    }
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      const headers = new Headers({ vary: "Origin, Access-Control-Request-Headers" });
      if (allowed) {
        headers.set("access-control-allow-origin", allowed);
        headers.set("access-control-allow-methods", ALLOW_METHODS);
        headers.set("access-control-allow-headers", request.headers.get("access-control-request-headers") || DEFAULT_ALLOW_HEADERS);
        headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_S));
      }
      return new Response(null, { status: 204, headers });
    }
    if (allowed) {
      set.headers["access-control-allow-origin"] = allowed;
      set.headers["access-control-expose-headers"] = EXPOSE_HEADERS;
      if (!any) set.headers["vary"] = "Origin";
    }
  });
}
