/**
 * @module engines/http/redirects
 * Redirects are followed by hand (`redirect: "manual"`) so that every hop goes back through the egress gate's
 * check (OWASP: an auto-following client bypasses your own validation) and so that headers meant for the original
 * site do not leak to another one.
 *
 * Rules: at most {@link MAX_REDIRECTS} hops (Firecrawl and Scrapy both use 20); a URL seen twice in one chain is a
 * loop and fails at once (no cookie jar here, so a repeat can only repeat). The engine only issues GET, so the
 * RFC 9110 §15.4 rule "301/302/303 → GET without a body; 307/308 keep the method" holds by construction.
 */
import { SiteError } from "../../errors.ts";

/** Largest number of redirects followed for one fetch. */
export const MAX_REDIRECTS = 20;

/** Statuses whose `Location` we follow. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Client headers that are harmless to send to another origin. Everything else the client supplied
 * (Authorization, Cookie, API keys in custom headers…) goes only to the origin of the URL the client asked for.
 * User-Agent stays so that an http→https or apex→www hop keeps the identity the client chose; Range (no credential,
 * CORS-safelisted) so that a part asked for is still a part where a redirect leads (a sitemap on S3 or a CDN).
 */
export const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set(["user-agent", "accept", "accept-language", "range"]);

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The `Location` header as the URL text the site meant. Fetch's `Headers` hand out each raw byte as one Latin-1
 * character, so a UTF-8 `/tést` arrives as `/tÃ©st` and `new URL` would percent-encode it twice (`/t%C3%83%C2%A9st`).
 * The bytes are recovered first: valid UTF-8 is decoded as such (then `new URL` encodes it once, like a browser);
 * anything else has each byte above 0x7F percent-encoded as it is, so the site gets back exactly the bytes it sent.
 * A value that is already ASCII (nearly all) is returned unchanged.
 */
export function locationFromHeader(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  if (/[^\x00-\xff]/.test(value)) return value; // not a byte string: it did not come from the wire as Latin-1
  const bytes = Buffer.from(value, "latin1");
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    let out = "";
    for (const byte of bytes) out += byte > 0x7f ? `%${byte.toString(16).toUpperCase()}` : String.fromCharCode(byte);
    return out;
  }
}

/** Resolves a `Location` header against the current URL. Throws SCRAPE_SITE_ERROR when it is not a URL. */
export function resolveLocation(location: string, currentUrl: string): string {
  try {
    const next = new URL(location, currentUrl);
    next.hash = next.hash || new URL(currentUrl).hash; // RFC 9110 §10.2.2: inherit the fragment
    return next.href;
  } catch {
    throw new SiteError("SCRAPE_SITE_ERROR", `Invalid redirect Location ${JSON.stringify(location)} from ${currentUrl}.`, {
      retryable: false,
      details: { reason: "invalid_redirect" },
    });
  }
}

/** Tracks one redirect chain and fails on loops and on too many hops. */
export class RedirectChain {
  private readonly seen = new Set<string>();
  readonly urls: string[] = [];

  constructor(
    startUrl: string,
    private readonly maxRedirects = MAX_REDIRECTS,
  ) {
    this.add(startUrl);
  }

  /** Number of redirects followed so far. */
  get hops(): number {
    return this.urls.length - 1;
  }

  /** Records the next hop, or throws. */
  follow(nextUrl: string): void {
    if (this.hops >= this.maxRedirects) {
      throw new SiteError("SCRAPE_SITE_ERROR", `Too many redirects (more than ${this.maxRedirects}) starting at ${this.urls[0]}.`, {
        retryable: false,
        details: { reason: "too_many_redirects", chain: this.urls },
      });
    }
    if (this.seen.has(withoutHash(nextUrl))) {
      throw new SiteError("SCRAPE_SITE_ERROR", `Redirect loop: ${nextUrl} was already visited (starting at ${this.urls[0]}).`, {
        retryable: false,
        details: { reason: "redirect_loop", chain: [...this.urls, nextUrl] },
      });
    }
    this.add(nextUrl);
  }

  private add(url: string): void {
    this.seen.add(withoutHash(url));
    this.urls.push(url);
  }
}

function withoutHash(url: string): string {
  const i = url.indexOf("#");
  return i < 0 ? url : url.slice(0, i);
}

/** Whether two URLs share scheme, host and port. */
export function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}

/**
 * The origin the usual http→https redirect leads to from `origin`: `http://host` (port 80) → `https://host`
 * (port 443). Undefined for an https origin (going down to http is never an upgrade) and for an explicit port,
 * whose https counterpart cannot be known.
 */
export function httpsUpgradeOrigin(origin: string): string | undefined {
  const url = new URL(origin);
  return url.protocol === "http:" && url.port === "" ? `https://${url.host}` : undefined;
}

/**
 * Whether the client headers meant for `headersUrl` (Cookie, Authorization…) may be sent to `url`: its own origin,
 * or that origin's https upgrade. Without the upgrade, `{"url":"example.com","headers":{"Cookie":…}}` (`http://`
 * is prepended to a scheme-less URL) would lose its Cookie on the redirect to https nearly every site makes; the
 * upgrade only adds TLS on the same host, so nothing reaches a party the client did not name.
 */
export function headersAllowed(url: string, headersUrl: string): boolean {
  const target = new URL(url).origin;
  const own = new URL(headersUrl).origin;
  return target === own || target === httpsUpgradeOrigin(own);
}
