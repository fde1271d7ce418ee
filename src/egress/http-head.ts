/**
 * @module egress/http-head
 * Minimal HTTP/1.x head parsing and rewriting for the egress proxy. Only the head is touched; bodies are relayed
 * as raw bytes (egress/framing.ts says where they end). Hop-by-hop headers (RFC 9110 §7.6.1) are removed; the
 * proxy sets its own `Connection` header on both legs (egress/proxy.ts).
 */

/** Largest request or response head the proxy accepts. Bigger heads are refused (431 / 502). */
export const MAX_HEAD_BYTES = 64 * 1024;

const CRLFCRLF = Buffer.from("\r\n\r\n");

/** Index just past the blank line ending the head, or -1 when the head is not complete yet. */
export function headEnd(buf: Buffer): number {
  const i = buf.indexOf(CRLFCRLF);
  return i < 0 ? -1 : i + 4;
}

/** A parsed message head: the start line and the header fields in order, names as sent. */
export interface MessageHead {
  startLine: string;
  headers: Array<[name: string, value: string]>;
}

/** Parses a head (bytes up to and including the blank line). Returns undefined when it is not valid HTTP/1.x. */
export function parseHead(head: Buffer): MessageHead | undefined {
  // latin1: header bytes are opaque octets; this round-trips them exactly.
  const lines = head.toString("latin1").split("\r\n");
  const startLine = lines[0] ?? "";
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    // No obsolete line folding, no whitespace before the colon (RFC 9112 §5.1): both are smuggling vectors.
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon)) || line.startsWith(" ") || line.startsWith("\t")) return undefined;
    headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
  }
  return { startLine, headers };
}

/** Parses `METHOD target HTTP/1.x`. */
export function parseRequestLine(line: string): { method: string; target: string; version: string } | undefined {
  const m = /^([A-Za-z]+) (\S+) (HTTP\/1\.[01])$/.exec(line);
  return m ? { method: m[1]!.toUpperCase(), target: m[2]!, version: m[3]! } : undefined;
}

/** Status code of `HTTP/1.x NNN reason`, or undefined. */
export function parseStatusLine(line: string): number | undefined {
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(line);
  return m ? Number(m[1]) : undefined;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "upgrade"]);

/**
 * Framing headers a `Connection` field cannot remove: the proxy delimits bodies by them, so the head it forwards
 * must carry the same framing it used (otherwise the two legs would disagree about where a message ends).
 */
const FRAMING = new Set(["content-length", "transfer-encoding"]);

/**
 * Drops hop-by-hop headers, including any named in `Connection` (except framing headers), plus the names for
 * which `drop` returns true.
 */
export function withoutHopByHop(
  headers: Array<[string, string]>,
  drop: (lowerName: string) => boolean = () => false,
): Array<[string, string]> {
  const named = new Set<string>();
  for (const [n, v] of headers) {
    if (n.toLowerCase() === "connection") for (const t of v.split(",")) named.add(t.trim().toLowerCase());
  }
  for (const f of FRAMING) named.delete(f);
  return headers.filter(([n]) => {
    const l = n.toLowerCase();
    return !HOP_BY_HOP.has(l) && !named.has(l) && !drop(l);
  });
}

/** Whether any `Connection` field of `headers` lists `token` (case-insensitive), e.g. `close`. */
export function connectionHas(headers: Array<[string, string]>, token: string): boolean {
  for (const [n, v] of headers) {
    if (n.toLowerCase() !== "connection" && n.toLowerCase() !== "proxy-connection") continue;
    for (const t of v.split(",")) if (t.trim().toLowerCase() === token) return true;
  }
  return false;
}

/** Serialises a head back to bytes (latin1, the inverse of {@link parseHead}). */
export function serializeHead(startLine: string, headers: Array<[string, string]>): Buffer {
  let s = `${startLine}\r\n`;
  for (const [n, v] of headers) s += `${n}: ${v}\r\n`;
  return Buffer.from(`${s}\r\n`, "latin1");
}
