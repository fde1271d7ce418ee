/**
 * @module egress/policy
 * Resolve a host and decide whether it may be reached. The answer is the list of addresses that were checked;
 * the proxy connects to one of *those*, never to the name again, which is what defeats DNS rebinding
 * (reliability.md B1: Bun's fetch ignores `lookup`/`dispatcher`, so this must happen in our own proxy).
 */
import { EgressDeniedError, SiteError } from "../errors.ts";
import { type AddressClassifier, classifyAddress } from "./classify.ts";
import type { EgressTarget } from "./target.ts";

/**
 * Resolves a host name to every A and AAAA address. Injected so tests can simulate public names, private names
 * and rebinding without touching real DNS (style.md A7 §12). Throw on NXDOMAIN; an empty array counts as failure.
 */
export type Resolver = (host: string) => Promise<string[]>;

/**
 * The default resolver: `Bun.dns.lookup` with family 0 (both A and AAAA). Bun's default backend on Linux is
 * c-ares, which does not block the small getaddrinfo thread pool (cpus/2 threads) under crawl concurrency, and
 * still answers `/etc/hosts` names such as `localhost`.
 */
export const defaultResolver: Resolver = async (host) => {
  const records = await Bun.dns.lookup(host, { family: 0 });
  return records.map((r) => r.address);
};

/** What {@link resolveDestination} needs to know. */
export interface DestinationPolicy {
  /** When true, every resolvable address passes (on-prem use, tests). Ports and schemes are still checked. */
  allowPrivateNetwork: boolean;
  resolver: Resolver;
  classify: AddressClassifier;
  /** Longest a lookup may take before it counts as a DNS failure. @default 10000 */
  dnsTimeoutMs?: number;
}

/** Default cap on one DNS lookup. */
export const DEFAULT_DNS_TIMEOUT_MS = 10_000;

/** DNS failed or gave no address. The code matches Firecrawl's so clients can branch on it. */
export function dnsError(host: string, cause?: unknown): SiteError {
  const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : "";
  return new SiteError(
    "SCRAPE_DNS_RESOLUTION_ERROR",
    `DNS resolution failed for hostname: ${host}${detail}. Check that the domain exists and is spelled correctly.`,
    { retryable: false, details: { host } },
  );
}

async function lookup(host: string, policy: DestinationPolicy): Promise<string[]> {
  const timeoutMs = policy.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const addresses = await Promise.race([
      policy.resolver(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`lookup timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    if (!Array.isArray(addresses) || addresses.length === 0) throw new Error("no addresses");
    return addresses;
  } catch (err) {
    throw dnsError(host, err);
  } finally {
    clearTimeout(timer);
  }
}

function article(phrase: string): string {
  return /^[aeio]|^u(?!ni)|^I/.test(phrase) ? "an" : "a";
}

/** The sentence a refusal of a private address ends with; webhooks name their own, narrower setting instead. */
export const PRIVATE_NETWORK_HINT = "Set CRAWLBOX_ALLOW_PRIVATE_NETWORK=true to allow private networks.";

/**
 * Returns the addresses the target may be reached at, all of them checked. Throws {@link EgressDeniedError} when
 * ANY address is non-public (a name with one public and one private record is refused: the client, not us, would
 * otherwise pick which one to use), and a `SCRAPE_DNS_RESOLUTION_ERROR` {@link SiteError} when lookup fails.
 */
export async function resolveDestination(target: EgressTarget, policy: DestinationPolicy): Promise<string[]> {
  const addresses = target.ip ? [target.ip] : await lookup(target.host, policy);
  if (policy.allowPrivateNetwork) return addresses;
  for (const address of addresses) {
    const verdict = policy.classify(address);
    if (!verdict.public) {
      // For a name, only the kind of address it resolves to: the address itself would tell a client what this
      // network's internal names point at, which is none of its business (it gave the name, not the address).
      const reason = target.ip ? verdict.reason : verdict.reason.replace(/ address .*$/, " address");
      const what = target.ip ? "the target is" : `${target.host} resolves to`;
      throw new EgressDeniedError(
        `Egress denied: ${what} ${article(reason)} ${reason}. ${PRIVATE_NETWORK_HINT}`,
        target.ip ? { host: target.host, address, reason } : { host: target.host, reason },
      );
    }
  }
  return addresses;
}

/** The classifier used when none is injected. Re-exported so callers need only this module. */
export { classifyAddress };
