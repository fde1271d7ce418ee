/**
 * @module egress/chain
 * Chaining the gate to an operator's upstream proxy (`CRAWLBOX_PROXY_BASIC`, `CRAWLBOX_PROXY_ENHANCED`,
 * `CRAWLBOX_PROXY_COUNTRIES`). The gate still checks the DESTINATION first (resolve, classify every address);
 * only then does it open a connection to the upstream proxy, whose own address is configuration and is not
 * checked (it is the operator's, and may well be on a private network). Firecrawl's check sees the proxy's
 * address instead of the destination (reliability.md B1, "Open gap: upstream proxy"); this is the fix.
 *
 * - https (a client `CONNECT`): `CONNECT <checked IP>:<port>` to the upstream, so the upstream never resolves the
 *   name again and a rebinding DNS answer cannot steer it. TLS is untouched: the client's TLS session (SNI,
 *   certificate check against the host name of its URL) runs end to end inside the tunnel; the IP only tells the
 *   upstream where to open its TCP connection.
 * - plain http: the absolute-form request (`GET http://host/path`) with `Host` from the URL, as RFC 9112 §3.2.2
 *   requires; here the upstream resolves the name itself (see src/egress/README.md, "Upstream proxies").
 *
 * `Proxy-Authorization: Basic …` comes from the proxy URL's credentials; the client's own Proxy-* headers are
 * never forwarded (they are hop-by-hop, and addressed to the gate).
 */
import type { Socket } from "bun";
import { SiteError } from "../errors.ts";
import { parseIp } from "./classify.ts";
import { headEnd, MAX_HEAD_BYTES, parseStatusLine } from "./http-head.ts";
import type { EgressTarget } from "./target.ts";
import { connectOne, type UpstreamData, type UpstreamHandlers } from "./upstream.ts";

/** A parsed upstream proxy URL. */
export interface UpstreamProxy {
  /** The URL as configured (with credentials: never log it, log {@link label}). */
  readonly url: string;
  /** `http://host:port` without credentials, for logs and error messages. */
  readonly label: string;
  /** Host name or IP literal (no brackets). */
  readonly host: string;
  readonly port: number;
  /** `Basic <base64(user:pass)>` when the URL carries credentials. */
  readonly authorization?: string;
}

/** `http://user:pass@host` → `http://***@host`, for messages about a URL that may carry a password. */
export function redactProxyUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1***@");
}

/**
 * Parses an upstream proxy URL: `http://[user[:password]@]host[:port]` (port 80 when absent; user and password
 * percent-decoded). Throws a TypeError, whose message never contains the password, for anything else (other
 * schemes such as https:// or socks5://, a path, a query).
 */
export function parseUpstreamProxy(url: string): UpstreamProxy {
  const shown = JSON.stringify(redactProxyUrl(url));
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError(`${shown} is not a valid proxy URL (expected http://user:pass@host:port)`);
  }
  if (u.protocol !== "http:") throw new TypeError(`${shown}: only http:// upstream proxies are supported`);
  if ((u.pathname !== "/" && u.pathname !== "") || u.search !== "" || u.hash !== "") {
    throw new TypeError(`${shown}: a proxy URL has no path, query or fragment`);
  }
  if (u.hostname === "") throw new TypeError(`${shown}: the proxy URL has no host`);
  const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port === "" ? 80 : Number(u.port);
  const label = `http://${u.host}`;
  let authorization: string | undefined;
  if (u.username !== "" || u.password !== "") {
    let user: string;
    let pass: string;
    try {
      user = decodeURIComponent(u.username);
      pass = decodeURIComponent(u.password);
    } catch {
      throw new TypeError(`${shown}: invalid percent-encoding in the proxy credentials`);
    }
    authorization = `Basic ${Buffer.from(`${user}:${pass}`, "utf8").toString("base64")}`;
  }
  return { url, label, host, port, ...(authorization ? { authorization } : {}) };
}

/** `host:port` for a request line, IPv6 literals in brackets. */
function authority(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The headers the gate adds to what it sends the upstream proxy. */
export function upstreamProxyHeaders(upstream: UpstreamProxy): Array<[string, string]> {
  return upstream.authorization ? [["Proxy-Authorization", upstream.authorization]] : [];
}

function proxyError(upstream: UpstreamProxy, message: string, details: Record<string, unknown> = {}, retryable = true): SiteError {
  return new SiteError("SCRAPE_SITE_ERROR", `Upstream proxy ${upstream.label}: ${message}`, {
    retryable,
    details: { upstreamProxy: upstream.label, ...details },
  });
}

/** The error for a 407 from the upstream proxy (missing or wrong credentials in its URL). Not retryable. */
export function upstreamAuthError(upstream: UpstreamProxy): SiteError {
  return proxyError(
    upstream,
    "407 Proxy Authentication Required (check the user and password in its URL).",
    { status: 407 },
    false,
  );
}

/** Connects to the upstream proxy itself (its host name, if any, is resolved normally: it is configuration). */
export async function connectUpstreamProxy(upstream: UpstreamProxy, handlers: UpstreamHandlers): Promise<Socket<UpstreamData>> {
  try {
    return await connectOne(upstream.host, upstream.port, handlers);
  } catch (err) {
    const code = (err as { code?: string } | undefined)?.code;
    throw proxyError(upstream, `could not connect (${code ?? (err instanceof Error ? err.message : "unknown error")}).`, { code });
  }
}

/** IPv4 first: an upstream proxy without IPv6 connectivity then still reaches a dual-stack site. */
function ipv4First(addresses: string[]): string[] {
  const v4 = addresses.filter((a) => parseIp(a)?.kind() === "ipv4");
  return [...v4, ...addresses.filter((a) => !v4.includes(a))];
}

/**
 * Opens a tunnel to `target` through `upstream`: one `CONNECT <address>:<port>` per checked address (IPv4 first)
 * until the upstream answers 2xx. The returned socket carries the tunnel; bytes the upstream sent after its answer
 * are handed to `handlers.onData`. Throws a `SCRAPE_SITE_ERROR` {@link SiteError} naming the upstream (without its
 * credentials) when it cannot be reached, refuses the credentials (407, not retried with another address) or
 * reaches none of the addresses.
 */
export async function tunnelThroughUpstream(
  upstream: UpstreamProxy,
  target: EgressTarget,
  addresses: string[],
  handlers: UpstreamHandlers,
): Promise<Socket<UpstreamData>> {
  let last: SiteError | undefined;
  for (const address of ipv4First(addresses)) {
    const status = await connectOnce(upstream, address, target.port, handlers);
    if (typeof status !== "number") return status;
    if (status === 407) throw upstreamAuthError(upstream);
    last = proxyError(upstream, `CONNECT ${target.host}:${target.port} (${address}) answered ${status}.`, {
      status,
      host: target.host,
      port: target.port,
    });
  }
  throw last ?? proxyError(upstream, `no address to connect to for ${target.host}.`);
}

/** One CONNECT attempt: the open tunnel, or the upstream's non-2xx status (its connection already closed). */
async function connectOnce(
  upstream: UpstreamProxy,
  address: string,
  port: number,
  h: UpstreamHandlers,
): Promise<Socket<UpstreamData> | number> {
  let established = false;
  let head = Buffer.alloc(0);
  let settle!: { resolve: (status: number) => void; reject: (err: Error) => void };
  const answer = new Promise<number>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const socket = await connectUpstreamProxy(upstream, {
    ...h,
    onData(chunk) {
      if (established) return h.onData(chunk);
      head = Buffer.concat([head, chunk]);
      const end = headEnd(head);
      if (end < 0) {
        if (head.byteLength > MAX_HEAD_BYTES) settle.reject(new Error("answer head too large"));
        return;
      }
      const status = parseStatusLine(head.toString("latin1", 0, head.indexOf("\r\n")));
      if (status === undefined) return settle.reject(new Error("malformed answer"));
      if (status >= 200 && status < 300) {
        established = true;
        settle.resolve(status);
        // Site bytes that arrived with the answer (a server speaking first): the caller holds them until it is ready.
        if (head.byteLength > end) h.onData(Buffer.from(head.subarray(end)));
        return;
      }
      settle.resolve(status);
    },
    onClose() {
      if (established) return h.onClose();
      settle.reject(new Error("closed the connection before answering CONNECT"));
    },
  });
  const target = authority(address, port);
  let lines = `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n`;
  for (const [n, v] of upstreamProxyHeaders(upstream)) lines += `${n}: ${v}\r\n`;
  socket.data.toUpstream.write(Buffer.from(`${lines}\r\n`, "latin1"));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to CONNECT within ${h.connectTimeoutMs} ms`)), h.connectTimeoutMs);
  });
  try {
    const status = await Promise.race([answer, deadline]);
    if (established) return socket;
    socket.terminate();
    return status;
  } catch (err) {
    socket.terminate();
    throw proxyError(upstream, `${(err as Error).message}.`);
  } finally {
    clearTimeout(timer);
  }
}
