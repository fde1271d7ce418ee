/**
 * @module engines/browser/offline-sandbox
 * A browser page for running code crawlbox does not trust: browser `code` in `language: "node"`
 * and `"python"` (interact/sandbox/run.ts) and the extractors an LLM writes for `deterministicJson`
 * (llm/deterministic/sandbox.ts). It is a blank page of a browser context of its own, taken from the pool, offline,
 * whose whole context (popups and loopback included) is given a local proxy that closes every connection. So code
 * run there runs where any web page's script runs, in a Chromium renderer (under Chromium's own OS sandbox unless
 * crawlbox runs as root, engines/browser/chromium.ts), not in crawlbox's process:
 * it has no file system, no processes, no Node built-ins and no network. Its only way out is the channel its caller
 * opens through crawlbox's isolated world of the page (interact/sandbox/channel.ts).
 */
import type { BrowserPool } from "./pool.ts";
import type { Lease } from "./lease.ts";
import { raceAbort } from "../../scheduler/abortable.ts";

let blackHole: { port: number } | undefined;

/**
 * A proxy that accepts connections and closes them at once: the sandbox's browser context is given it (loopback
 * included), so nothing it or a popup it opens asks for can reach anywhere, whatever the page tries.
 */
function blackHoleProxy(): string {
  if (!blackHole) {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (sock) => void sock.end(), data: () => undefined } });
    listener.unref();
    blackHole = { port: listener.port };
  }
  return `http://127.0.0.1:${blackHole.port}`;
}

/** A sandbox that may fetch from one local proxy of crawlbox's own that forwards nothing (its static files). */
export interface SandboxFiles {
  /** The proxy's URL: it answers a few known files and refuses everything else. */
  proxyUrl: string;
}

/**
 * Takes an offline sandbox page from `pool` (waiting at most until `deadline`, a `performance.now()` time). The
 * caller releases it, with `suspect: true` when code was stopped mid-run (the pool then checks the browser). With
 * `files`, the context's proxy is that one instead of the black hole, and the page is not put offline, so that it
 * can fetch those files (Python's interpreter, interact/sandbox/python-assets.ts): still nothing else.
 */
export async function acquireOfflineSandbox(pool: BrowserPool, deadline: number, signal?: AbortSignal, files?: SandboxFiles): Promise<Lease> {
  const lease = await pool.acquire({ deadline, ...(signal ? { signal } : {}), proxyServer: files?.proxyUrl ?? blackHoleProxy() });
  try {
    // Offline too, though every request of the context already ends at the black hole. A browser that does not
    // answer holds the caller no longer than its signal allows.
    if (!files) {
      const offline = (async () => {
        await lease.session.send("Network.enable");
        await lease.session.send("Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      })();
      await (signal ? raceAbort(offline, signal) : offline);
    }
    return lease;
  } catch (e) {
    lease.release({ suspect: true });
    throw e;
  }
}
