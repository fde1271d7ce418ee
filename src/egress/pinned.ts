/**
 * @module egress/pinned
 * Pinned connections: a client that can address a request to an IP itself (Bun's fetch with a `Host` header and
 * `tls.serverName`) connects to an address the gate has just checked, without the loopback proxy hop. The policy is
 * the gate's, unchanged (`gate.resolve` = the proxy's resolve + classify); only the transport differs, and the
 * client never looks the name up again, so a rebinding answer cannot steer it (the same guarantee the proxy gives).
 *
 * Why: the proxy relays every byte through the JS thread; for the HTTP engine that cost ≈ 0.35 ms and a share
 * of the event loop per page (docs/benchmarks.md "Scrape"). Chromium, webhooks and upstream-proxy chaining keep
 * the proxy: they cannot pin.
 *
 * What the site sees is unchanged: the `Host` header is the URL's authority, TLS sends the URL's host name as SNI
 * and verifies the certificate against it (verified on Bun 1.4.5: a name missing from the certificate fails
 * with `ERR_TLS_CERT_ALTNAME_INVALID`; the connection pool keys on the TLS options, so one name's connection is
 * never reused for another name).
 */
import { parseIp } from "./classify.ts";

/** One way to reach a checked URL: fetch `url` with `Host: host` and, for https to a name, `tls.serverName`. */
export interface PinnedTarget {
  /** The URL with its host replaced by a checked address (IPv6 in brackets); path, query and port kept. */
  url: string;
  /** The original authority for the `Host` header (`name` or `name:port`, default port omitted). */
  host: string;
  /** SNI and certificate name: the URL's host for https to a host name; absent for http and IP literals. */
  serverName?: string;
  /** The checked address this target connects to. */
  address: string;
}

/**
 * The pinned targets for `url`, one per checked address, IPv4 first (a machine without IPv6 still reaches a
 * dual-stack site at once). `addresses` must come from `gate.resolve(url)`; the URL must be absolute http(s).
 */
export function pinnedTargets(url: string, addresses: readonly string[]): PinnedTarget[] {
  const u = new URL(url);
  const host = u.host;
  const name = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const serverName = u.protocol === "https:" && !parseIp(name) ? name : undefined;
  const ordered = [...addresses].sort((a, b) => Number(a.includes(":")) - Number(b.includes(":")));
  return ordered.map((address) => {
    u.hostname = address.includes(":") ? `[${address}]` : address;
    return { url: u.href, host, address, ...(serverName ? { serverName } : {}) };
  });
}

/** Connection-level failures after which the next checked address is worth trying (nothing was sent yet). */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ConnectionRefused", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** True when `err` says the connection could not be made, so another address may be tried. */
export function isConnectFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && CONNECT_FAILURES.has(code);
}
