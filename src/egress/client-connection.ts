/**
 * @module egress/client-connection
 * The proxy's request state machine for one client connection: read a head, check it, then either open a CONNECT
 * tunnel or relay one plain-http exchange, and go back for the next head. The plumbing underneath (inbox, pauses,
 * the site link, endings) is egress/connection-base.ts.
 *
 * Plain http is kept alive on both legs, one exchange at a time. Bun's fetch keeps its proxy connection alive and
 * reuses it for requests to *different* hosts, so every request head is parsed and checked on its own: its target is
 * resolved and classified again, and the site connection is reused only when the target is the same `host:port` and
 * the address it is connected to is among the addresses that just passed. Bodies are delimited (egress/framing.ts):
 * the request body goes to the site the request was checked for, and a response ends where its framing says, so no
 * byte crosses from one exchange to the next. Anything the site sends beyond its response is dropped together with
 * its connection. A client that pipelines is served in order: what it sends after a complete request waits, paused,
 * until the response is over, and is then parsed and checked as a request of its own.
 */
import { CrawlboxError } from "../errors.ts";
import { type BodyFraming, BodyTracker, responseFraming } from "./framing.ts";
import { connectionHas, headEnd, MAX_HEAD_BYTES, parseHead, parseStatusLine, serializeHead, withoutHopByHop } from "./http-head.ts";
import { resolveDestination } from "./policy.ts";
import { upstreamAuthError } from "./chain.ts";
import { ConnectionBase, type Link } from "./connection-base.ts";
import { type Plan, planRequest } from "./request-plan.ts";
import { EGRESS_HEADER_PREFIX } from "./signal.ts";
import type { EgressTarget } from "./target.ts";

/** Cap on bytes held for later (body bytes while connecting, a pipelined request while a response is running). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const ESTABLISHED = Buffer.from("HTTP/1.1 200 Connection Established\r\n\r\n");

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

/** A client connection: parses requests, owns at most one site connection (ConnectionBase), relays both ways. */
export class ClientConnection extends ConnectionBase {
  private exchange?: Exchange;

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

  // ── site side ────────────────────────────────────────────────────────────────────────────────────────────────

  protected fromSite(link: Link, chunk: Buffer): void {
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

  protected siteClosed(link: Link): void {
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
}
