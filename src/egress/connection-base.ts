/**
 * @module egress/connection-base
 * What every client connection of the proxy has, whatever the client asked for: the client socket with its inbox
 * and pause reasons, at most one site connection (the "link", direct or through the upstream proxy), and the three
 * ways a connection ends (closed after its answer, killed, refused with a marker answer). The request state machine
 * on top of it (heads, tunnels, plain-http exchanges) is egress/client-connection.ts; the split only separates the
 * plumbing from the protocol, both halves serve the same object.
 */
import type { Socket } from "bun";
import { CrawlboxError, EgressDeniedError, SiteError, toCrawlboxError } from "../errors.ts";
import { connectUpstreamProxy, tunnelThroughUpstream } from "./chain.ts";
import type { ClientData, ProxyContext } from "./proxy.ts";
import { proxyErrorResponse } from "./signal.ts";
import { SocketWriter } from "./socket-writer.ts";
import type { EgressTarget } from "./target.ts";
import { connectUpstream, type UpstreamData } from "./upstream.ts";

/** A connection to a site, owned by one client connection. */
export interface Link {
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

/** Where a client connection is: reading a head, checking it, sending a body, awaiting the answer, tunnelling. */
export type Phase = "head" | "busy" | "body" | "awaiting" | "tunnel" | "closed";

/**
 * The state of one client connection that does not depend on the request: buffering, pausing, the site link and the
 * endings. ClientConnection (egress/client-connection.ts) supplies what to do with bytes from the site.
 */
export abstract class ConnectionBase {
  protected phase: Phase = "head";
  protected inbox: Buffer[] = [];
  protected inboxBytes = 0;
  protected link?: Link;
  protected readonly toClient: SocketWriter;
  private readonly pauses = new Set<string>();

  constructor(
    private readonly client: Socket<ClientData>,
    protected readonly ctx: ProxyContext,
  ) {
    this.toClient = new SocketWriter(client as Socket<unknown>, (paused) => {
      const up = this.link?.socket;
      if (up) paused ? up.pause() : up.resume();
    });
  }

  /** A method, so that TypeScript does not narrow `phase` across awaits. */
  protected get closed(): boolean {
    return this.phase === "closed";
  }

  // ── client side ──────────────────────────────────────────────────────────────────────────────────────────────

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

  protected takeInbox(): Buffer {
    const all = this.inbox.length === 1 ? this.inbox[0]! : Buffer.concat(this.inbox);
    this.inbox = [];
    this.inboxBytes = 0;
    return all;
  }

  protected putBack(buf: Buffer): void {
    this.inbox.unshift(buf);
    this.inboxBytes += buf.byteLength;
  }

  // ── site link ────────────────────────────────────────────────────────────────────────────────────────────────

  /** Bytes from the site on `link` (which may no longer be the current one). */
  protected abstract fromSite(link: Link, chunk: Buffer): void;

  /** The site side of `link` has closed (called once per link). */
  protected abstract siteClosed(link: Link): void;

  /** What a kept-alive plain-http link is reused for: one `host:port`, or anything through the upstream proxy. */
  protected linkKey(target: EgressTarget): string {
    return this.ctx.options.upstream ? "upstream-proxy" : `${target.host}:${target.port}`;
  }

  /**
   * Opens a site connection to one of the checked `addresses` (directly, or through the upstream proxy) and makes
   * it the current link.
   */
  protected async connect(target: EgressTarget, addresses: string[], key: string, tunnel: boolean): Promise<Link> {
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
  protected dropLink(hard: boolean): void {
    const link = this.link;
    if (!link) return;
    this.link = undefined;
    this.unpause("site-full");
    const s = link.socket;
    if (!s) return;
    s.data.toUpstream.destroyed();
    hard ? s.terminate() : s.end();
  }

  // ── endings ──────────────────────────────────────────────────────────────────────────────────────────────────

  protected closeClient(): void {
    this.phase = "closed";
    this.dropLink(false);
    this.toClient.end(); // after whatever is still queued for the client
  }

  protected kill(): void {
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

  protected pause(reason: string): void {
    this.pauses.add(reason);
    this.client.pause();
  }

  protected unpause(reason: string): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0 && this.phase !== "closed") this.client.resume();
  }
}
