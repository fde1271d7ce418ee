/**
 * @module egress/proxy
 * The in-process forward proxy every outbound connection goes through (reliability.md B1). It listens on
 * 127.0.0.1 and speaks the two things HTTP clients send a proxy:
 * - `CONNECT host:port` (https, wss): check, connect to the checked address, answer 200, then relay bytes;
 * - absolute-form `GET http://host/path HTTP/1.1` (plain http): check, connect, rewrite the head to origin-form with
 *   `Host` from the URL (RFC 9112 §3.2.2), relay the body both ways.
 *
 * Plain http is kept alive on both legs, one exchange at a time, and every request head is checked on its own
 * (egress/client-connection.ts).
 *
 * Refusals are HTTP answers with marker headers (egress/signal.ts), so the fetch caller gets a typed error; the
 * client connection is closed after a refusal.
 *
 * With an upstream proxy (`options.upstream`, egress/chain.ts) the checks are the same; only the last step differs:
 * a tunnel becomes `CONNECT <checked IP>:port` to the upstream, a plain-http request goes to the upstream in
 * absolute form with its `Proxy-Authorization`, on a connection that may carry requests for any checked host.
 *
 * This file is the listener and its lifecycle; one client connection is egress/client-connection.ts (on top of
 * egress/connection-base.ts), and what a request head asks for is egress/request-plan.ts.
 */
import type { Socket, TCPSocketListener } from "bun";
import type { UpstreamProxy } from "./chain.ts";
import { ClientConnection } from "./client-connection.ts";
import type { DestinationPolicy } from "./policy.ts";
import type { UpstreamData } from "./upstream.ts";

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
  /**
   * Keep plain-http connections alive between requests. `false` serves one request per client connection with
   * `Connection: close` both ways (the behaviour before keep-alive; benchmarks compare the two). @default true
   */
  keepAlive?: boolean;
  /** Chain every connection to this upstream proxy, after the destination passed the policy (egress/chain.ts). */
  upstream?: UpstreamProxy;
}

/** What every client connection of one listener shares. */
export interface ProxyContext {
  options: ProxyOptions;
  keepAlive: boolean;
  idleTimeoutSeconds: number;
  upstreams: Set<Socket<UpstreamData>>;
}

/** Per-client-socket state. */
export interface ClientData {
  conn: ClientConnection;
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
  const ctx: ProxyContext = {
    options,
    keepAlive: options.keepAlive ?? true,
    idleTimeoutSeconds: Math.max(1, Math.ceil((options.idleTimeoutMs ?? 120_000) / 1000)),
    upstreams: new Set(),
  };

  const listener: TCPSocketListener<ClientData> = Bun.listen<ClientData>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { conn: new ClientConnection(client, ctx) };
        client.timeout(ctx.idleTimeoutSeconds);
      },
      data(client, chunk) {
        client.data.conn.onData(chunk);
      },
      drain(client) {
        client.data.conn.onDrain();
      },
      close(client) {
        client.data.conn.onClose();
      },
      error(client) {
        client.data.conn.onClose();
      },
      timeout(client) {
        client.end();
      },
    },
  });

  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    async stop() {
      listener.stop(true);
      for (const s of ctx.upstreams) s.terminate();
      ctx.upstreams.clear();
    },
  };
}
