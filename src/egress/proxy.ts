/**
 * @module egress/proxy
 * The in-process forward proxy every outbound connection goes through (reliability.md B1). It listens on
 * 127.0.0.1 and speaks the two things HTTP clients send a proxy:
 * - `CONNECT host:port` (https, wss): check, connect to the checked address, answer 200, then relay bytes;
 * - absolute-form `GET http://host/path HTTP/1.1` (plain http): check, connect, rewrite the head to origin-form with
 *   `Host` from the URL (RFC 9112 §3.2.2) and `Connection: close`, relay the body both ways.
 *
 * One target per client connection. Bun's fetch keeps its proxy connection alive and reuses it for requests to
 * different hosts, so a proxy that piped the connection to the first host would send later requests there too.
 * Every response therefore carries `Connection: close` and the client connection is closed after it; any bytes the
 * client sends after its first request can only ever reach the already-checked address.
 *
 * Refusals are HTTP answers with marker headers (egress/signal.ts), so the fetch caller gets a typed error.
 */
import type { Socket, TCPSocketListener } from "bun";
import { CrawlboxError, EgressDeniedError, toCrawlboxError } from "../errors.ts";
import { MAX_HEAD_BYTES, headEnd, parseHead, parseRequestLine, parseStatusLine, serializeHead, withoutHopByHop } from "./http-head.ts";
import { type DestinationPolicy, resolveDestination } from "./policy.ts";
import { EGRESS_HEADER_PREFIX, proxyErrorResponse } from "./signal.ts";
import { SocketWriter } from "./socket-writer.ts";
import { type EgressTarget, parseConnectAuthority, parseUrlTarget } from "./target.ts";
import { connectUpstream, type UpstreamData } from "./upstream.ts";

/** Something that can log; a subset of the project logger so the gate does not depend on it. */
export interface EgressLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Options of {@link startProxy}. */
export interface ProxyOptions {
  policy: DestinationPolicy;
  logger?: EgressLogger;
  /** Close a connection idle for this long (either direction). @default 120000 */
  idleTimeoutMs?: number;
  /** Give up connecting to one address after this long. @default 10000 */
  connectTimeoutMs?: number;
}

interface ClientData {
  head: Buffer[];
  headBytes: number;
  /** Bytes that arrived after the head while the upstream connection was being set up. */
  early: Buffer[];
  started: boolean;
  closed: boolean;
  upstream?: Socket<UpstreamData>;
  toClient?: SocketWriter;
}

/** Cap on body bytes buffered while connecting (the client is paused, so only what Bun had already read). */
const MAX_EARLY_BYTES = 1024 * 1024;

const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** Parses what the client wants, returning the target and the bytes to send upstream first. */
function planRequest(headBytes: Buffer): { target: EgressTarget; tunnel: boolean; upstreamHead?: Buffer } {
  const head = parseHead(headBytes);
  const line = head && parseRequestLine(head.startLine);
  if (!head || !line) throw new CrawlboxError("BAD_REQUEST", 400, "Egress proxy: malformed request head.");
  if (line.method === "CONNECT") return { target: parseConnectAuthority(line.target), tunnel: true };
  if (!/^http:\/\//i.test(line.target)) {
    throw new CrawlboxError(
      "BAD_REQUEST",
      400,
      "Egress proxy: only CONNECT and absolute-form http:// requests are accepted (use CONNECT for https).",
    );
  }
  const target = parseUrlTarget(line.target, new Set(["http:"]));
  const url = new URL(line.target);
  const headers = withoutHopByHop(head.headers, (n) => n === "host");
  const rewritten = serializeHead(`${line.method} ${url.pathname}${url.search} ${line.version}`, [
    ["Host", url.host],
    ...headers,
    ["Connection", "close"],
  ]);
  return { target, tunnel: false, upstreamHead: rewritten };
}

/** Rewrites upstream response heads (plain-http mode) so the client never keeps the connection for another host. */
function createResponseRewriter(write: (b: Uint8Array) => void, fail: () => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let passthrough = false;
  return (chunk) => {
    if (passthrough) return write(chunk);
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = headEnd(buf);
      if (end < 0) {
        if (buf.byteLength > MAX_HEAD_BYTES) fail();
        return;
      }
      const head = parseHead(buf.subarray(0, end));
      const status = head && parseStatusLine(head.startLine);
      if (!head || status === undefined) return fail();
      const headers = withoutHopByHop(head.headers, (n) => n.startsWith(EGRESS_HEADER_PREFIX));
      write(serializeHead(head.startLine, [...headers, ["Connection", "close"]]));
      buf = buf.subarray(end);
      // 1xx interim responses (100 Continue, 103 Early Hints) are followed by another head; 101 switches protocol.
      if (status >= 200 || status === 101) {
        passthrough = true;
        if (buf.byteLength > 0) write(buf);
        return;
      }
    }
  };
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1 with a random port. */
export function startProxy(options: ProxyOptions): RunningProxy {
  const idleTimeoutSeconds = Math.max(1, Math.ceil((options.idleTimeoutMs ?? 120_000) / 1000));
  const upstreams = new Set<Socket<UpstreamData>>();

  function refuse(client: Socket<ClientData>, err: unknown): void {
    const e = toCrawlboxError(err);
    if (e instanceof EgressDeniedError) options.logger?.warn("egress denied", { error: e.message });
    if (!client.data.closed) client.end(proxyErrorResponse(e));
  }

  async function start(client: Socket<ClientData>, headBytes: Buffer, rest: Buffer): Promise<void> {
    const { target, tunnel, upstreamHead } = planRequest(headBytes);
    const addresses = await resolveDestination(target, options.policy);
    if (client.data.closed) return;
    const toClient = new SocketWriter(client as Socket<unknown>, (paused) => {
      const up = client.data.upstream;
      if (up) paused ? up.pause() : up.resume();
    });
    client.data.toClient = toClient;
    const rewrite = tunnel
      ? (chunk: Buffer) => toClient.write(chunk)
      : createResponseRewriter(
          (b) => toClient.write(b),
          () => {
            client.data.upstream?.terminate();
            toClient.destroyed();
            client.terminate();
          },
        );
    let upstream: Socket<UpstreamData> | undefined;
    upstream = await connectUpstream(target, addresses, {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      idleTimeoutSeconds,
      onData: rewrite,
      onClose: () => {
        if (upstream) upstreams.delete(upstream);
        toClient.end();
      },
      setPaused: (paused) => (paused ? client.pause() : client.resume()),
    });
    upstreams.add(upstream);
    if (client.data.closed) {
      upstream.end();
      return;
    }
    client.data.upstream = upstream;
    if (tunnel) client.write(ESTABLISHED);
    else upstream.data.toUpstream.write(upstreamHead!);
    upstream.data.toUpstream.write(rest);
    for (const b of client.data.early) upstream.data.toUpstream.write(b);
    client.data.early = [];
    client.resume();
  }

  const listener: TCPSocketListener<ClientData> = Bun.listen<ClientData>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { head: [], headBytes: 0, early: [], started: false, closed: false };
        client.timeout(idleTimeoutSeconds);
      },
      data(client, chunk) {
        const d = client.data;
        if (d.upstream) return d.upstream.data.toUpstream.write(chunk);
        if (d.started) {
          // Paused while connecting, but Bun may still deliver what it had already read.
          if (d.early.reduce((n, b) => n + b.byteLength, 0) > MAX_EARLY_BYTES) return client.terminate();
          d.early.push(Buffer.from(chunk));
          return;
        }
        d.head.push(Buffer.from(chunk));
        d.headBytes += chunk.byteLength;
        const all = Buffer.concat(d.head);
        const end = headEnd(all);
        if (end < 0) {
          if (d.headBytes > MAX_HEAD_BYTES) refuse(client, new CrawlboxError("HEAD_TOO_LARGE", 431, "Request head too large."));
          return;
        }
        d.started = true;
        d.head = [];
        client.pause();
        start(client, all.subarray(0, end), all.subarray(end)).catch((err) => refuse(client, err));
      },
      drain(client) {
        client.data.toClient?.drain();
      },
      close(client) {
        client.data.closed = true;
        client.data.toClient?.destroyed();
        // Nobody is left to read the answer: drop the site connection now rather than let a slow or endless
        // response keep it (and its buffers) alive until the idle timeout.
        client.data.upstream?.data.toUpstream.destroyed();
        client.data.upstream?.terminate();
      },
      error(client) {
        client.data.closed = true;
      },
      timeout(client) {
        client.end();
      },
    },
  });

  if (options.policy.allowPrivateNetwork) {
    options.logger?.warn("egress gate allows private networks: loopback, LAN and cloud metadata addresses are reachable", {
      port: listener.port,
    });
  }

  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    async stop() {
      listener.stop(true);
      for (const s of upstreams) s.terminate();
      upstreams.clear();
    },
  };
}
