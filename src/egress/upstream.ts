/**
 * @module egress/upstream
 * Opens the proxy's upstream TCP connection to an address that was already checked. It never looks a name up:
 * `Bun.connect` gets the IP literal, which is the whole point of the gate (no second DNS answer can be used).
 * Addresses are tried in order (the resolver's order) until one accepts, each with its own connect timeout,
 * because `Bun.connect` has none of its own.
 */
import type { Socket } from "bun";
import { SiteError } from "../errors.ts";
import { SocketWriter } from "./socket-writer.ts";
import type { EgressTarget } from "./target.ts";

/** Per-upstream-socket state. */
export interface UpstreamData {
  /** Writes towards the site, pausing the client while the site is slow to read. */
  toUpstream: SocketWriter;
  /** The checked address this socket is connected to (the upstream proxy's host for a chained connection). */
  address: string;
}

/** Callbacks wiring the upstream socket to the client side. */
export interface UpstreamHandlers {
  connectTimeoutMs: number;
  idleTimeoutSeconds: number;
  /** Bytes from the site. */
  onData(chunk: Buffer): void;
  /** The site side is gone (closed, reset or timed out). Called once. */
  onClose(): void;
  /** Pause/resume the client while the site cannot take more bytes. */
  setPaused(paused: boolean): void;
}

/**
 * One TCP connection to `address:port` (an IP literal, or the configured upstream proxy's host), with its own
 * connect timeout. Rejects with the connect error (its `code`, e.g. `ECONNREFUSED`) or a timeout.
 */
export function connectOne(address: string, port: number, h: UpstreamHandlers): Promise<Socket<UpstreamData>> {
  let timedOut = false;
  let opened = false;
  const attempt = Bun.connect<UpstreamData>({
    hostname: address,
    port,
    socket: {
      open(socket) {
        if (timedOut) return socket.terminate();
        opened = true;
        socket.data = { toUpstream: new SocketWriter(socket as Socket<unknown>, h.setPaused), address };
        socket.timeout(h.idleTimeoutSeconds);
      },
      data(_socket, chunk) {
        h.onData(chunk);
      },
      drain(socket) {
        socket.data?.toUpstream.drain();
      },
      close(socket) {
        socket.data?.toUpstream.destroyed();
        if (opened && !timedOut) h.onClose();
      },
      timeout(socket) {
        socket.end();
      },
      error() {},
      connectError() {},
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`connect timed out after ${h.connectTimeoutMs} ms`));
    }, h.connectTimeoutMs);
  });
  return Promise.race([attempt, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Connects to the first of `addresses` that accepts on `target.port`. Throws a `SCRAPE_SITE_ERROR`
 * {@link SiteError} naming the host when none does.
 */
export async function connectUpstream(
  target: EgressTarget,
  addresses: string[],
  handlers: UpstreamHandlers,
): Promise<Socket<UpstreamData>> {
  let last: unknown;
  for (const address of addresses) {
    try {
      return await connectOne(address, target.port, handlers);
    } catch (err) {
      last = err;
    }
  }
  const code = (last as { code?: string } | undefined)?.code;
  const why = code ?? (last instanceof Error ? last.message : "unknown error");
  return Promise.reject(
    new SiteError("SCRAPE_SITE_ERROR", `Could not connect to ${target.host}:${target.port} (${why}).`, {
      details: { host: target.host, port: target.port, code },
    }),
  );
}
