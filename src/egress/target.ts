/**
 * @module egress/target
 * Turns what a client asked for (an absolute URL, or a CONNECT authority `host:port`) into a normalised
 * {@link EgressTarget}, using the WHATWG URL parser so that `0x7f000001`, `0177.0.0.1`, `127.1` and
 * `[::ffff:127.0.0.1]` all become the canonical address they denote before anything is checked (OWASP SSRF cheat
 * sheet: validate with a real parser and compare the parser's *output*).
 *
 * Port policy: every port from 1 to 65535 except the WHATWG Fetch "bad ports" (SMTP, IMAP, SSH, IRC, …; the list
 * browsers and therefore Chromium already refuse). Sites legitimately serve HTTP on 8080, 8443, 3000 and the like,
 * so an 80/443-only rule would break real scrapes; the bad-port list stops the classic cross-protocol tricks
 * (talking SMTP through an HTTP request body). It applies even with `allowPrivateNetwork`.
 */
import { EgressDeniedError } from "../errors.ts";
import { parseIp } from "./classify.ts";

/** A destination, after normalisation. */
export interface EgressTarget {
  /** Host name (lower-case, punycode) or IP literal without brackets, e.g. `example.com`, `127.0.0.1`, `::1`. */
  host: string;
  /** TCP port (the scheme default when the URL has none). */
  port: number;
  /** Set when `host` is an IP literal: no DNS lookup happens for it. */
  ip?: string;
}

/** WHATWG Fetch "bad port" list (https://fetch.spec.whatwg.org/#bad-port), as of 2025. */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540,
  548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000,
  6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Schemes a scrape may use. Everything else (file:, ftp:, gopher:, data:, ws:…) is refused up front. */
export const ALLOWED_SCHEMES: ReadonlySet<string> = new Set(["http:", "https:"]);

function fromUrl(u: URL, original: string): EgressTarget {
  if (u.username || u.password) {
    // Credentials in the URL would be forwarded to the site; refuse rather than leak or silently drop them.
    throw new EgressDeniedError(`Egress denied for ${original}: URLs with embedded credentials are not allowed.`, {
      reason: "credentials",
    });
  }
  const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  if (host === "") throw new EgressDeniedError(`Egress denied for ${original}: the URL has no host.`, { reason: "host" });
  const port = u.port === "" ? (u.protocol === "https:" ? 443 : 80) : Number(u.port);
  if (BAD_PORTS.has(port)) {
    throw new EgressDeniedError(`Egress denied for ${host}: port ${port} is not allowed for HTTP(S).`, {
      host,
      port,
      reason: "port",
    });
  }
  const ip = parseIp(host);
  return ip ? { host, port, ip: ip.toString() } : { host, port };
}

/**
 * Parses an absolute URL that is about to be fetched. Only `allowedSchemes` are accepted (default http/https).
 * Throws {@link EgressDeniedError} for an unparseable URL, another scheme, embedded credentials or a bad port.
 */
export function parseUrlTarget(url: string, allowedSchemes: ReadonlySet<string> = ALLOWED_SCHEMES): EgressTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new EgressDeniedError(`Egress denied: ${JSON.stringify(url)} is not a valid absolute URL.`, { reason: "url" });
  }
  if (!allowedSchemes.has(u.protocol)) {
    throw new EgressDeniedError(`Egress denied for ${url}: scheme ${u.protocol} is not allowed (only http and https).`, {
      reason: "scheme",
    });
  }
  return fromUrl(u, url);
}

/**
 * Parses the authority of a `CONNECT host:port` request (RFC 9110 §9.3.6: the port is required). The authority is
 * run through the URL parser with an `http:` scheme so numeric IPv4 forms normalise exactly as they do for URLs.
 */
export function parseConnectAuthority(authority: string): EgressTarget {
  // The URL parser would accept a path, user info or a missing port here; CONNECT allows none of them.
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s/@?#[\]:]+):\d{1,5}$/.test(authority)) {
    throw new EgressDeniedError(`Egress denied: malformed CONNECT authority ${JSON.stringify(authority)}.`, {
      reason: "url",
    });
  }
  let u: URL;
  try {
    u = new URL(`http://${authority}/`);
  } catch {
    throw new EgressDeniedError(`Egress denied: malformed CONNECT authority ${JSON.stringify(authority)}.`, {
      reason: "url",
    });
  }
  // `new URL` drops the port when it equals the scheme default (80); put it back from the authority.
  const port = Number(authority.slice(authority.lastIndexOf(":") + 1));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new EgressDeniedError(`Egress denied: invalid port in CONNECT ${authority}.`, { reason: "port" });
  }
  const t = fromUrl(u, authority);
  if (BAD_PORTS.has(port)) {
    throw new EgressDeniedError(`Egress denied for ${t.host}: port ${port} is not allowed for HTTP(S).`, {
      host: t.host,
      port,
      reason: "port",
    });
  }
  return { ...t, port };
}
