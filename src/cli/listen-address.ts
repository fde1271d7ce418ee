/**
 * @module cli/listen-address
 * The address the server listens on, as the operator reads it: `host:port` with an IPv6 host in brackets (so that
 * `http://[::1]:3002` can be pasted into a browser or curl), and why a bind failed in words that point at the
 * setting to change (`HOST` or `PORT`) instead of the system's `EINVAL`.
 */
import { lookup } from "node:dns/promises";

/** `host:port`, with an IPv6 literal host bracketed as a URL needs it (`[::1]:3002`). */
export function hostPort(host: string, port: number): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What to set HOST to instead. */
const HOST_ADVICE = "set HOST to an address of this machine (0.0.0.0 for all of them, 127.0.0.1 for this machine only)";

/** How long the name look-up made to explain a failure may take; the answer is only for the message. */
const LOOKUP_TIMEOUT_MS = 3000;

/** The addresses `host` resolves to, [] when it does not resolve (or not in time). */
async function resolveHost(host: string): Promise<string[]> {
  const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS).unref?.());
  const found = lookup(host, { all: true }).then(
    (addrs) => addrs.map((a) => a.address),
    () => [],
  );
  return Promise.race([found, timeout]);
}

/**
 * Why listening on `host:port` failed, for `crawlbox: cannot listen on …: <this>`. Bun reports a host name that
 * does not resolve as `EINVAL` and an address that is not this machine's as `EADDRNOTAVAIL`; both are the HOST
 * setting, and the look-up tells which.
 */
export async function listenFailure(err: unknown, host: string): Promise<string> {
  const code = (err as { code?: string }).code;
  if (code === "EADDRINUSE") return "the port is in use (another crawlbox or another program); set PORT";
  if (code === "EINVAL" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
    const addrs = await resolveHost(host);
    if (addrs.length === 0) return `the host name "${host}" does not resolve to an address; ${HOST_ADVICE}`;
    const shown = addrs.join(", ") === host ? "" : ` (${addrs.join(", ")})`;
    return `"${host}"${shown} is not an address of this machine; ${HOST_ADVICE}`;
  }
  if (code === "EACCES") return "permission denied (ports below 1024 need privileges); set PORT to 1024 or above";
  return String(err);
}
