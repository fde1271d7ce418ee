/**
 * @module egress
 * The egress gate: the one path for all outbound traffic (scrapes, robots.txt, sitemaps, Chromium, webhooks).
 *
 * Why a proxy: Bun's fetch ignores undici `dispatcher` and `lookup` (oven-sh/bun#38840), so "resolve, check, then
 * fetch(hostname)" lets a second DNS answer (rebinding) reach an internal address. The gate is a forward proxy on
 * 127.0.0.1 that resolves, checks every address and connects to the checked IP itself. Any HTTP client can use it:
 * - Bun: `fetch(url, { proxy: gate.proxyUrl, redirect: "manual" })`, then map failures with
 *   {@link errorFromProxyResponse} / {@link errorFromFetchFailure};
 * - Chromium: `--proxy-server=<proxyUrl> --proxy-bypass-list=<-loopback>` (removes the implicit localhost bypass).
 *
 * `check(url)` runs the same policy before connecting so callers can fail fast with a clear error and without
 * opening a socket; the proxy enforces again at connect time, which is what actually defeats rebinding.
 *
 * Pinned connections (egress/pinned.ts): a client that can address a request to an IP itself (the HTTP engine) asks
 * `resolve(url)` for the checked addresses and connects to one of them with the URL's `Host` and TLS name: the same
 * policy without the loopback hop, and still no second lookup.
 *
 * Upstream proxies (egress/chain.ts): the gate listens once more per configured upstream proxy, on its own
 * loopback port. A client picks the upstream by the gate URL it uses, `proxyUrlFor(upstream)`; every listener runs
 * the same destination check first and only then chains (so Chromium contexts and fetch calls need no credentials
 * and no per-request token, and a client can never name an upstream the operator did not configure).
 *
 * @example
 * const gate = await createEgressGate({ allowPrivateNetwork: config.allowPrivateNetwork });
 * await gate.check("https://example.com/");           // throws EgressDeniedError for private targets
 * const res = await fetch("https://example.com/", { proxy: gate.proxyUrl });
 *
 * @example
 * const gate = await createEgressGate({ allowPrivateNetwork: false, upstreamProxies: ["http://u:p@proxy.lan:3128"] });
 * await fetch("https://example.com/", { proxy: gate.proxyUrlFor("http://u:p@proxy.lan:3128") }); // checked, then chained
 */
import { type AddressClassifier, classifyAddress } from "./classify.ts";
import { parseUpstreamProxy, redactProxyUrl, type UpstreamProxy } from "./chain.ts";
import { type DestinationPolicy, defaultResolver, type Resolver, resolveDestination } from "./policy.ts";
import { type EgressLogger, type RunningProxy, startProxy } from "./proxy.ts";
import { parseUrlTarget } from "./target.ts";

/** Options of {@link createEgressGate}. */
export interface EgressGateOptions {
  /** Let private, loopback and link-local addresses through (still via the gate; ports and schemes still checked). */
  allowPrivateNetwork: boolean;
  /** Host name → all A and AAAA addresses. @default Bun.dns.lookup (family 0) */
  resolver?: Resolver;
  /**
   * Address policy. Tests use this to declare one fixture address public (e.g. 127.0.0.2) so that redirects from
   * an "allowed" local server to a loopback secret can be exercised honestly. @default classifyAddress
   */
  classify?: AddressClassifier;
  logger?: EgressLogger;
  /** Cap on one DNS lookup. @default 10000 */
  dnsTimeoutMs?: number;
  /** Cap on one TCP connect attempt. @default 10000 */
  connectTimeoutMs?: number;
  /** Idle time after which a proxied connection is closed. @default 120000 */
  idleTimeoutMs?: number;
  /**
   * Keep plain-http proxy connections alive between requests (each request is still checked on its own).
   * `false` serves one request per connection, as before keep-alive; scripts/bench/egress.ts compares the two.
   * @default true
   */
  keepAlive?: boolean;
  /**
   * Upstream proxy URLs (`http://[user:pass@]host[:port]`) the gate may chain to; each gets its own listener, see
   * {@link EgressGate.proxyUrlFor}. Their own addresses are trusted configuration (not checked by the policy).
   * @default []
   */
  upstreamProxies?: readonly string[];
}

/** A running egress gate. */
export interface EgressGate {
  /** `http://127.0.0.1:PORT`: pass to fetch's `proxy` option or Chromium's `--proxy-server`. */
  readonly proxyUrl: string;
  /**
   * The gate URL whose connections are chained to `upstream` (one of the configured `upstreamProxies`, given as
   * configured), or {@link proxyUrl} when `upstream` is undefined or empty. Throws a TypeError for an upstream the
   * gate was not configured with (a programming error: the choice comes from configuration, never from a client).
   */
  proxyUrlFor(upstream?: string): string;
  /**
   * Checks an absolute URL against the policy (scheme, port, every resolved address). Resolves when allowed;
   * throws `EgressDeniedError` when refused, or a `SCRAPE_DNS_RESOLUTION_ERROR` `SiteError` when DNS fails.
   */
  check(url: string): Promise<void>;
  /**
   * {@link check}, returning the checked addresses: a client that connects by itself must connect to one of these
   * and never look the name up again (see pinned.ts). Same errors as `check`.
   */
  resolve(url: string): Promise<string[]>;
  /** Stops listening and drops every proxied connection. */
  close(): Promise<void>;
}

/** Starts an egress gate. Validates options up front (style A7 §4). */
export async function createEgressGate(options: EgressGateOptions): Promise<EgressGate> {
  if (typeof options.allowPrivateNetwork !== "boolean") {
    throw new TypeError("createEgressGate: allowPrivateNetwork must be a boolean");
  }
  for (const k of ["dnsTimeoutMs", "connectTimeoutMs", "idleTimeoutMs"] as const) {
    const v = options[k];
    if (v !== undefined && (!Number.isFinite(v) || v <= 0)) throw new TypeError(`createEgressGate: ${k} must be > 0`);
  }
  const policy: DestinationPolicy = {
    allowPrivateNetwork: options.allowPrivateNetwork,
    resolver: options.resolver ?? defaultResolver,
    classify: options.classify ?? classifyAddress,
    dnsTimeoutMs: options.dnsTimeoutMs,
  };
  const upstreams = new Map<string, UpstreamProxy>();
  for (const url of options.upstreamProxies ?? []) {
    if (typeof url !== "string" || url === "") throw new TypeError("createEgressGate: upstreamProxies must be non-empty URLs");
    try {
      upstreams.set(url, parseUpstreamProxy(url));
    } catch (err) {
      throw new TypeError(`createEgressGate: upstream proxy ${(err as Error).message}`);
    }
  }
  const start = (upstream?: UpstreamProxy) =>
    startProxy({
      policy,
      logger: options.logger,
      connectTimeoutMs: options.connectTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      keepAlive: options.keepAlive,
      upstream,
    });
  const proxy = start();
  const chained = new Map<string, RunningProxy>();
  for (const [url, upstream] of upstreams) {
    chained.set(url, start(upstream));
    options.logger?.info("egress gate chains to an upstream proxy", { upstream: upstream.label, gate: chained.get(url)!.url });
  }
  if (options.allowPrivateNetwork) {
    options.logger?.warn("egress gate allows private networks: loopback, LAN and cloud metadata addresses are reachable", {
      port: proxy.port,
    });
  }
  return {
    proxyUrl: proxy.url,
    proxyUrlFor(upstream?: string) {
      if (upstream === undefined || upstream === "") return proxy.url;
      const p = chained.get(upstream);
      if (!p) throw new TypeError(`egress gate: upstream proxy ${redactProxyUrl(upstream)} is not configured`);
      return p.url;
    },
    async check(url: string) {
      await resolveDestination(parseUrlTarget(url), policy);
    },
    resolve: (url: string) => resolveDestination(parseUrlTarget(url), policy),
    close: async () => {
      await Promise.all([proxy, ...chained.values()].map((p) => p.stop()));
    },
  };
}

export { type AddressClassifier, type AddressVerdict, classifyAddress, parseIp } from "./classify.ts";
export { type Resolver, defaultResolver, PRIVATE_NETWORK_HINT } from "./policy.ts";
export { parseUpstreamProxy, redactProxyUrl, type UpstreamProxy } from "./chain.ts";
export type { EgressLogger } from "./proxy.ts";
export { EGRESS_ERROR_HEADER, EGRESS_MESSAGE_HEADER, errorFromFetchFailure, errorFromProxyResponse } from "./signal.ts";
export { ALLOWED_SCHEMES, BAD_PORTS } from "./target.ts";
export { isConnectFailure, type PinnedTarget, pinnedTargets } from "./pinned.ts";
