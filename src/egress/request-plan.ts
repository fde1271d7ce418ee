/**
 * @module egress/request-plan
 * Reads one request head a client sent the proxy and decides what to do with it: a CONNECT tunnel, or a plain-http
 * request to forward. Kept apart from the connection state machine (egress/client-connection.ts) because it is a
 * pure function of the head: everything a client can put in a head is refused or rewritten here, before any
 * address is resolved or any socket opened.
 */
import { CrawlboxError } from "../errors.ts";
import { type BodyFraming, requestFraming } from "./framing.ts";
import { connectionHas, parseHead, parseRequestLine, serializeHead, withoutHopByHop } from "./http-head.ts";
import { type UpstreamProxy, upstreamProxyHeaders } from "./chain.ts";
import { type EgressTarget, parseConnectAuthority, parseUrlTarget } from "./target.ts";

/** What a client asked for: a byte tunnel, or one plain-http exchange. */
export type Plan =
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
export function planRequest(headBytes: Buffer, keepAliveEnabled: boolean, upstream?: UpstreamProxy): Plan {
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
