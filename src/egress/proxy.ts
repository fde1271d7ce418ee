/**
 * @module egress/proxy
 * The in-process forward proxy every outbound connection goes through (reliability.md B1). It listens on
 * 127.0.0.1 and speaks the two things HTTP clients send a proxy:
 * - `CONNECT host:port` (https, wss): check, connect to the checked address, answer 200, then relay bytes;
 * - absolute-form `GET http://host/path HTTP/1.1` (plain http): check, connect, rewrite the head to origin-form with
 *   `Host` from the URL (RFC 9112 §3.2.2), relay the body both ways.
 *
 * Plain http is kept alive on both legs, one exchange at a time. Bun's fetch keeps its proxy connection alive and
 * reuses it for requests to *different* hosts, so every request head is parsed and checked on its own: its target is
 * resolved and classified again, and the site connection is reused only when the target is the same `host:port` and
 * the address it is connected to is among the addresses that just passed. Bodies are delimited (egress/framing.ts):
 * the request body goes to the site the request was checked for, and a response ends where its framing says, so no
 * byte crosses from one exchange to the next. Anything the site sends beyond its response is dropped together with
 * its connection. A client that pipelines is served in order: what it sends after a complete request waits, paused,
 * until the response is over, and is then parsed and checked as a request of its own.
 *
 * Refusals are HTTP answers with marker headers (egress/signal.ts), so the fetch caller gets a typed error; the
 * client connection is closed after a refusal.
 *
 * With an upstream proxy (`options.upstream`, egress/chain.ts) the checks are the same; only the last step differs:
 * a tunnel becomes `CONNECT <checked IP>:port` to the upstream, a plain-http request goes to the upstream in
 * absolute form with its `Proxy-Authorization`, on a connection that may carry requests for any checked host.
 */
import type { Socket, TCPSocketListener } from "bun";
import { CrawlboxError, EgressDeniedError, SiteError, toCrawlboxError } from "../errors.ts";
import { type BodyFraming, BodyTracker, requestFraming, responseFraming } from "./framing.ts";
import {
  connectionHas,
  headEnd,
  MAX_HEAD_BYTES,
  parseHead,
  parseRequestLine,
  parseStatusLine,
  serializeHead,
  withoutHopByHop,
} from "./http-head.ts";
import { type DestinationPolicy, resolveDestination } from "./policy.ts";
import { connectUpstreamProxy, tunnelThroughUpstream, type UpstreamProxy, upstreamAuthError, upstreamProxyHeaders } from "./chain.ts";
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
  /**
   * Keep plain-http connections alive between requests. `false` serves one request per client connection with
   * `Connection: close` both ways (the behaviour before keep-alive; benchmarks compare the two). @default true
   */
  keepAlive?: boolean;
  /** Chain every connection to this upstream proxy, after the destination passed the policy (egress/chain.ts). */
  upstream?: UpstreamProxy;
}

/** Cap on bytes held for later (body bytes while connecting, a pipelined request while a response is running). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const ESTABLISHED = Buffer.from("HTTP/1.1 200 Connection Established\r\n\r\n");

type Plan =
  | { kind: "tunnel"; target: EgressTarget }
  | {
      kind: "forward";
      target: EgressTarget;
      method: string;
      /** Request head to send to the site. */
      head: Buffer;
      framing: BodyFraming;
      /** The client asked for (and may get) a persistent connection. */
      keepAlive: boolean;
    };

/**
 * Parses what the client wants. Throws a 400 CrawlboxError or an EgressDeniedError. A plain-http request is
 * rewritten to origin-form for the site, or kept in absolute form (plus the upstream's credentials) for `upstream`.
 */
function planRequest(headBytes: Buffer, keepAliveEnabled: boolean, upstream?: UpstreamProxy): Plan {
  const head = parseHead(headBytes);
  const line = head && parseRequestLine(head.startLine);
  if (!head || !line) throw new CrawlboxError("BAD_REQUEST", 400, "Egress proxy: malformed request head.");
  if (line.method === "CONNECT") return { kind: "tunnel", target: parseConnectAuthority(line.target) };
  if (!/^http:\/\//i.test(line.target)) {
    throw new CrawlboxError(
      "BAD_REQUEST",
      400,
      "Egress proxy: only CONNECT and absolute-form http:// requests are accepted (use CONNECT for https).",
    );
  }
  const target = parseUrlTarget(line.target, new Set(["http:"]));
  const framing = requestFraming(head.headers);
  const keepAlive = keepAliveEnabled && line.version === "HTTP/1.1" && !connectionHas(head.headers, "close");
  const url = new URL(line.target);
  const headers = withoutHopByHop(head.headers, (n) => n === "host");
  const requestTarget = upstream ? `http://${url.host}${url.pathname}${url.search}` : `${url.pathname}${url.search}`;
  const upstreamHead = serializeHead(`${line.method} ${requestTarget} ${line.version}`, [
    ["Host", url.host],
    ...headers,
    ...(upstream ? upstreamProxyHeaders(upstream) : []),
    ["Connection", keepAlive ? "keep-alive" : "close"],
  ]);
  return { kind: "forward", target, method: line.method, head: upstreamHead, framing, keepAlive };
}

/** A connection to a site, owned by one client connection. */
interface Link {
  /** `host:port` of the target it was opened for. */
  key: string;
  socket?: Socket<UpstreamData>;
  /** Carries CONNECT tunnel bytes rather than HTTP exchanges. */
  tunnel: boolean;
  /** Tunnel bytes from the site that arrived before the 200 was written. */
  early: Buffer[];
  /** At least one exchange completed on it (so a close before any answer may be a stale keep-alive). */
  used: boolean;
  /** The site side has closed. */
  gone: boolean;
}

/** One request and its response on a plain-http client connection. */
interface Exchange {
  plan: Extract<Plan, { kind: "forward" }>;
  addresses: string[];
  request: BodyTracker;
  /** The site has sent at least one byte of the answer. */
  answered: boolean;
  /** Response head bytes gathered so far (until the final head is complete). */
  responseHead: Buffer;
  response?: BodyTracker;
  responseFraming?: BodyFraming;
  keepClient: boolean;
  reuseLink: boolean;
  retried: boolean;
  finished: boolean;
}

interface ProxyContext {
  options: ProxyOptions;
  keepAlive: boolean;
  idleTimeoutSeconds: number;
  upstreams: Set<Socket<UpstreamData>>;
}

interface ClientData {
  conn: ClientConnection;
}

type Phase = "head" | "busy" | "body" | "awaiting" | "tunnel" | "closed";

/** The state of one client connection: parses requests, owns at most one site connection, relays both ways. */
class ClientConnection {
  private phase: Phase = "head";
  private inbox: Buffer[] = [];
  private inboxBytes = 0;
  private link?: Link;
  private exchange?: Exchange;
  private readonly toClient: SocketWriter;
  private readonly pauses = new Set<string>();

  constructor(
    private readonly client: Socket<ClientData>,
    private readonly ctx: ProxyContext,
  ) {
    this.toClient = new SocketWriter(client as Socket<unknown>, (paused) => {
      const up = this.link?.socket;
      if (up) paused ? up.pause() : up.resume();
    });
  }

  /** A method, so that TypeScript does not narrow `phase` across awaits. */
  private get closed(): boolean {
    return this.phase === "closed";
  }

  // ── client side ──────────────────────────────────────────────────────────────────────────────────────────────

  onData(chunk: Buffer): void {
    if (this.phase === "closed") return;
    const up = this.link?.socket;
    if (this.phase === "tunnel" && up) return up.data.toUpstream.write(chunk);
    this.inbox.push(Buffer.from(chunk)); // a copy: Bun may reuse the buffer it handed over
    this.inboxBytes += chunk.byteLength;
    if (this.inboxBytes > MAX_BUFFERED_BYTES + MAX_HEAD_BYTES) return this.kill();
    this.pump();
  }

  onDrain(): void {
    this.toClient.drain();
  }

  onClose(): void {
    this.phase = "closed";
    this.toClient.destroyed();
    // Nobody is left to read the answer: drop the site connection now rather than let a slow or endless
    // response keep it (and its buffers) alive until the idle timeout.
    this.dropLink(true);
  }

  /** Works through buffered client bytes as far as the current phase allows. */
  private pump(): void {
    for (;;) {
      if (this.phase === "head") {
        if (this.inboxBytes === 0) return;
        const all = this.takeInbox();
        const end = headEnd(all);
        if (end < 0) {
          this.putBack(all);
          if (all.byteLength > MAX_HEAD_BYTES) this.refuse(new CrawlboxError("HEAD_TOO_LARGE", 431, "Request head too large."));
          return;
        }
        if (all.byteLength > end) this.putBack(all.subarray(end));
        this.phase = "busy";
        this.pause("busy");
        this.begin(all.subarray(0, end)).catch((err) => this.refuse(err));
        return;
      }
      if (this.phase === "body") {
        if (this.inboxBytes === 0) return;
        const ex = this.exchange!;
        const up = this.link?.socket;
        if (!up) return;
        while (this.inbox.length > 0 && !ex.request.done) {
          const buf = this.inbox[0]!;
          let n: number;
          try {
            n = ex.request.consume(buf);
          } catch {
            return this.kill(); // part of the body already went out: the only safe answer is to drop both legs
          }
          up.data.toUpstream.write(buf.subarray(0, n));
          this.inboxBytes -= n;
          if (n === buf.byteLength) this.inbox.shift();
          else this.inbox[0] = buf.subarray(n);
        }
        if (ex.request.done) this.requestSent();
        continue;
      }
      return; // busy, awaiting, tunnel-connecting: bytes wait in the inbox
    }
  }

  private takeInbox(): Buffer {
    const all = this.inbox.length === 1 ? this.inbox[0]! : Buffer.concat(this.inbox);
    this.inbox = [];
    this.inboxBytes = 0;
    return all;
  }

  private putBack(buf: Buffer): void {
    this.inbox.unshift(buf);
    this.inboxBytes += buf.byteLength;
  }

  private requestSent(): void {
    this.phase = "awaiting";
    this.pause("awaiting"); // a pipelined request waits until this response is over
  }

  private async begin(headBytes: Buffer): Promise<void> {
    const chained = this.ctx.options.upstream;
    const plan = planRequest(headBytes, this.ctx.keepAlive, chained);
    const addresses = await resolveDestination(plan.target, this.ctx.options.policy);
    if (this.closed) return;
    if (plan.kind === "tunnel") return this.startTunnel(plan.target, addresses);
    const key = this.linkKey(plan.target);
    const link = this.link;
    // A connection to an upstream proxy may carry requests for any host that passed; a direct one only for the
    // same host, and only while its address is among those that just passed.
    const reuse =
      !!link?.socket && !link.tunnel && link.key === key && (chained !== undefined || addresses.includes(link.socket.data.address));
    if (!reuse) {
      this.dropLink(false);
      await this.connect(plan.target, addresses, key, false);
      if (this.closed) return;
    }
    this.exchange = {
      plan,
      addresses,
      request: new BodyTracker(plan.framing),
      answered: false,
      responseHead: Buffer.alloc(0),
      keepClient: false,
      reuseLink: false,
      retried: false,
      finished: false,
    };
    this.link!.socket!.data.toUpstream.write(plan.head);
    this.phase = "body";
    this.unpause("busy");
    if (this.exchange.request.done) this.requestSent();
    this.pump();
  }

  private async startTunnel(target: EgressTarget, addresses: string[]): Promise<void> {
    this.dropLink(false);
    const link = await this.connect(target, addresses, this.linkKey(target), true);
    if (this.closed) return;
    this.toClient.write(ESTABLISHED);
    for (const b of link.early) this.toClient.write(b);
    link.early = [];
    this.phase = "tunnel";
    const rest = this.takeInbox();
    link.socket!.data.toUpstream.write(rest);
    this.unpause("busy");
  }

  /** What a kept-alive plain-http link is reused for: one `host:port`, or anything through the upstream proxy. */
  private linkKey(target: EgressTarget): string {
    return this.ctx.options.upstream ? "upstream-proxy" : `${target.host}:${target.port}`;
  }

  /**
   * Opens a site connection to one of the checked `addresses` (directly, or through the upstream proxy) and makes
   * it the current link.
   */
  private async connect(target: EgressTarget, addresses: string[], key: string, tunnel: boolean): Promise<Link> {
    const link: Link = { key, tunnel, early: [], used: false, gone: false };
    this.link = link;
    const handlers = {
      connectTimeoutMs: this.ctx.options.connectTimeoutMs ?? 10_000,
      idleTimeoutSeconds: this.ctx.idleTimeoutSeconds,
      onData: (chunk: Buffer) => this.fromSite(link, chunk),
      onClose: () => this.siteClosed(link),
      setPaused: (paused: boolean) => (paused ? this.pause("site-full") : this.unpause("site-full")),
    };
    const up = this.ctx.options.upstream;
    const socket = !up
      ? await connectUpstream(target, addresses, handlers)
      : tunnel
        ? await tunnelThroughUpstream(up, target, addresses, handlers)
        : await connectUpstreamProxy(up, handlers);
    link.socket = socket;
    if (link.gone) {
      const who = up ? `Upstream proxy ${up.label} (for ${target.host}:${target.port})` : `${target.host}:${target.port}`;
      throw new SiteError("SCRAPE_SITE_ERROR", `${who} closed the connection as soon as it was opened.`);
    }
    if (this.link !== link || this.closed) {
      socket.end();
      throw new CrawlboxError("CLIENT_GONE", 499, "Egress proxy: the client went away while connecting.");
    }
    this.ctx.upstreams.add(socket);
    return link;
  }

  /** Forgets the current site connection; its later bytes and its close are ignored. */
  private dropLink(hard: boolean): void {
    const link = this.link;
    if (!link) return;
    this.link = undefined;
    this.unpause("site-full");
    const s = link.socket;
    if (!s) return;
    s.data.toUpstream.destroyed();
    hard ? s.terminate() : s.end();
  }

  // ── site side ────────────────────────────────────────────────────────────────────────────────────────────────

  private fromSite(link: Link, chunk: Buffer): void {
    if (link !== this.link || this.phase === "closed") return; // an abandoned connection: its bytes go nowhere
    if (link.tunnel) {
      if (this.phase === "tunnel") this.toClient.write(chunk);
      else link.early.push(Buffer.from(chunk));
      return;
    }
    const ex = this.exchange;
    if (!ex || ex.finished) return this.dropLink(true); // bytes nobody asked for
    ex.answered = true;
    let rest: Buffer = chunk;
    if (!ex.response) {
      const all = ex.responseHead.byteLength === 0 ? chunk : Buffer.concat([ex.responseHead, chunk]);
      const after = this.responseHeads(ex, all);
      if (after === undefined) return;
      rest = after;
    }
    if (ex.responseFraming!.kind === "close") return this.toClient.write(rest);
    let n: number;
    try {
      n = ex.response!.consume(rest);
    } catch {
      return this.kill();
    }
    if (n > 0) this.toClient.write(n === rest.byteLength ? rest : rest.subarray(0, n));
    if (!ex.response!.done) return;
    if (n < rest.byteLength) ex.reuseLink = false; // the site sent more than its response: never reuse it
    this.finishExchange(ex);
  }

  /**
   * Handles response heads at the start of `buf` (interim 1xx ones, then the final one). Returns the bytes after the
   * final head, or undefined when more bytes are needed or the connection was dropped.
   */
  private responseHeads(ex: Exchange, buf: Buffer): Buffer | undefined {
    for (;;) {
      const end = headEnd(buf);
      if (end < 0) {
        if (buf.byteLength > MAX_HEAD_BYTES) return void this.kill();
        ex.responseHead = Buffer.from(buf);
        return undefined;
      }
      const head = parseHead(buf.subarray(0, end));
      const status = head && parseStatusLine(head.startLine);
      if (!head || status === undefined) return void this.kill();
      buf = buf.subarray(end);
      const dropMarkers = (n: string) => n.startsWith(EGRESS_HEADER_PREFIX);
      if (status < 200 && status !== 101) {
        // 100 Continue, 103 Early Hints: relayed as they are; the final head follows.
        this.toClient.write(serializeHead(head.startLine, withoutHopByHop(head.headers, dropMarkers)));
        continue;
      }
      if (status === 101) {
        // Upgrade is stripped from requests, so this is a site speaking out of turn: relay, then close.
        this.toClient.write(serializeHead(head.startLine, [...withoutHopByHop(head.headers, dropMarkers), ["Connection", "close"]]));
        ex.responseFraming = { kind: "close" };
        ex.response = new BodyTracker(ex.responseFraming);
        ex.keepClient = false;
        return buf;
      }
      // The upstream proxy refused our credentials: that is a configuration error, not the site's answer.
      if (status === 407 && this.ctx.options.upstream) return void this.refuse(upstreamAuthError(this.ctx.options.upstream));
      let framing: ReturnType<typeof responseFraming>;
      try {
        framing = responseFraming(ex.plan.method, status, head.headers);
      } catch {
        return void this.kill();
      }
      const chunked = framing.framing.kind === "chunked";
      const clean = framing.framing.kind !== "close" && !framing.mustClose;
      ex.keepClient = ex.plan.keepAlive && clean && this.phase === "awaiting";
      ex.reuseLink = ex.plan.keepAlive && clean && head.startLine.startsWith("HTTP/1.1") && !connectionHas(head.headers, "close");
      // RFC 9112 §6.3: Transfer-Encoding overrides Content-Length, and a message must not carry both.
      const headers = withoutHopByHop(head.headers, (n) => dropMarkers(n) || (chunked && n === "content-length"));
      this.toClient.write(serializeHead(head.startLine, [...headers, ["Connection", ex.keepClient ? "keep-alive" : "close"]]));
      ex.responseFraming = framing.framing;
      ex.response = new BodyTracker(framing.framing);
      ex.responseHead = Buffer.alloc(0);
      return buf;
    }
  }

  private finishExchange(ex: Exchange): void {
    ex.finished = true;
    this.exchange = undefined;
    if (ex.reuseLink && this.link) this.link.used = true;
    else this.dropLink(false);
    if (!ex.keepClient) return this.closeClient();
    this.phase = "head";
    this.unpause("awaiting");
    this.pump();
  }

  private siteClosed(link: Link): void {
    link.gone = true;
    if (link.socket) this.ctx.upstreams.delete(link.socket);
    if (link !== this.link || this.phase === "closed") return;
    this.link = undefined;
    this.unpause("site-full");
    if (link.tunnel) return this.closeClient();
    const ex = this.exchange;
    if (!ex || ex.finished) return; // an idle kept-alive connection went away: the next request reconnects
    if (!ex.answered && link.used && !ex.retried && ex.plan.framing.kind === "none") {
      // A kept-alive connection the site closed just as the request went out: retry once on a fresh one.
      ex.retried = true;
      this.phase = "busy";
      this.pause("busy");
      this.retry(ex).catch((err) => this.refuse(err));
      return;
    }
    if (ex.responseFraming?.kind === "close") ex.finished = true;
    // Close-delimited: that was the end. Otherwise the answer is cut short, and closing is how the client learns it.
    this.closeClient();
  }

  private async retry(ex: Exchange): Promise<void> {
    const target = ex.plan.target;
    const link = await this.connect(target, ex.addresses, this.linkKey(target), false);
    if (this.closed) return;
    link.socket!.data.toUpstream.write(ex.plan.head);
    this.phase = "body";
    this.unpause("busy");
    this.requestSent();
  }

  // ── endings ──────────────────────────────────────────────────────────────────────────────────────────────────

  private closeClient(): void {
    this.phase = "closed";
    this.dropLink(false);
    this.toClient.end(); // after whatever is still queued for the client
  }

  private kill(): void {
    this.phase = "closed";
    this.dropLink(true);
    this.toClient.destroyed();
    this.client.terminate();
  }

  refuse(err: unknown): void {
    const e = toCrawlboxError(err);
    if (e instanceof EgressDeniedError) this.ctx.options.logger?.warn("egress denied", { error: e.message });
    if (this.phase === "closed") return;
    this.phase = "closed";
    this.dropLink(true);
    this.toClient.write(Buffer.from(proxyErrorResponse(e), "latin1"));
    this.toClient.end();
  }

  private pause(reason: string): void {
    this.pauses.add(reason);
    this.client.pause();
  }

  private unpause(reason: string): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0 && this.phase !== "closed") this.client.resume();
  }
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
