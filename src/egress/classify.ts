/**
 * @module egress/classify
 * Decides whether one IP address is a public, globally routed unicast address that a scrape may reach.
 *
 * Two layers, on purpose (reliability.md B1 §3):
 * 1. `ipaddr.js` `range() !== "unicast"` catches everything the library knows to be special;
 * 2. an explicit table of the ranges that matter most, so that a future change in the library's tables (or a typo
 *    like Firecrawl's 2025-08 `127.16` for 172.16/12, issue firecrawl/firecrawl#2070) cannot silently open a hole.
 *
 * IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are
 * judged by the embedded IPv4 address: on a dual-stack or NAT64 host, connecting to `::ffff:127.0.0.1` or
 * `64:ff9b::7f00:1` reaches 127.0.0.1. The local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215) is refused whole: it is
 * not globally routable, and its operators choose a prefix length within it (/48 to /96), so where the IPv4 address
 * sits (RFC 6052 §2.2: `64:ff9b:1:7f00:1:101:101:101` is 127.0.1.1 behind a /48 translator) cannot be told.
 */
import ipaddr from "ipaddr.js";

/** The verdict for one address. `reason` is a short human phrase used in error messages ("loopback 127.0.0.0/8"). */
export type AddressVerdict = { public: true } | { public: false; reason: string };

/** A classifier: the gate takes one as an option so tests can declare a fixture address "public". */
export type AddressClassifier = (address: string) => AddressVerdict;

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function table(entries: Array<[string, string]>): Array<{ cidr: Cidr; name: string }> {
  return entries.map(([cidr, name]) => ({ cidr: ipaddr.parseCIDR(cidr), name }));
}

/** IPv4 ranges refused regardless of what ipaddr.js says (RFC 6890 special-purpose registry, plus 0/8 and 240/4). */
const BLOCKED_V4 = table([
  ["0.0.0.0/8", "'this network'"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["255.255.255.255/32", "broadcast"],
]);

/** IPv6 ranges refused regardless of what ipaddr.js says. */
const BLOCKED_V6 = table([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  // IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291): nothing public uses them, and a host with
  // automatic tunnelling (sit0) or a translator would reach the embedded IPv4 address, loopback included.
  ["::/96", "IPv4-compatible (deprecated)"],
  // Local-use NAT64 (RFC 8215): not globally routable, and the embedded IPv4 address's place depends on the
  // translator's prefix length (RFC 6052), so it is refused whatever it seems to embed.
  ["64:ff9b:1::/48", "NAT64 local-use (RFC 8215)"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
]);

/** IPv6 prefixes whose addresses carry an IPv4 address that is what actually gets reached. */
const EMBEDDING_V6: Array<{ cidr: Cidr; name: string; extract: (a: ipaddr.IPv6) => ipaddr.IPv4 }> = [
  { cidr: ipaddr.parseCIDR("::ffff:0:0/96"), name: "IPv4-mapped", extract: (a) => a.toIPv4Address() },
  { cidr: ipaddr.parseCIDR("64:ff9b::/96"), name: "NAT64", extract: (a) => lastV4(a) },
  {
    cidr: ipaddr.parseCIDR("2002::/16"),
    name: "6to4",
    extract: (a) => new ipaddr.IPv4([a.parts[1]! >> 8, a.parts[1]! & 0xff, a.parts[2]! >> 8, a.parts[2]! & 0xff]),
  },
];

function lastV4(a: ipaddr.IPv6): ipaddr.IPv4 {
  const p = a.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

/**
 * Parses a textual IP address strictly: dotted-quad IPv4 or IPv6, with optional `[...]` brackets and `%zone`.
 * Returns undefined for anything else (host names, `0x7f.1`-style legacy forms: those must be normalised by the
 * WHATWG URL parser before they get here, see egress/target.ts).
 */
export function parseIp(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let a = address.trim();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  if (ipaddr.IPv4.isValidFourPartDecimal(a)) return ipaddr.IPv4.parse(a);
  if (a.includes(":") && ipaddr.IPv6.isValid(a)) return ipaddr.IPv6.parse(a);
  return undefined;
}

function classifyV4(a: ipaddr.IPv4): AddressVerdict {
  for (const { cidr, name } of BLOCKED_V4) {
    if (a.match(cidr)) return { public: false, reason: `${name} address ${a.toString()}` };
  }
  const range = a.range();
  if (range !== "unicast") return { public: false, reason: `${range} address ${a.toString()}` };
  return { public: true };
}

function classifyV6(a: ipaddr.IPv6): AddressVerdict {
  for (const { cidr, name, extract } of EMBEDDING_V6) {
    if (!a.match(cidr)) continue;
    const v4 = extract(a);
    const inner = classifyV4(v4);
    return inner.public ? inner : { public: false, reason: `${name} address ${a.toString()} embedding ${inner.reason}` };
  }
  for (const { cidr, name } of BLOCKED_V6) {
    if (a.match(cidr)) return { public: false, reason: `${name} address ${a.toString()}` };
  }
  const range = a.range();
  if (range !== "unicast") return { public: false, reason: `${range} address ${a.toString()}` };
  return { public: true };
}

/**
 * The default classifier: public unicast → `{ public: true }`; anything else, including text that is not an IP
 * address at all, → `{ public: false, reason }`. Fails closed.
 * @example classifyAddress("172.16.0.5") // { public: false, reason: "private address 172.16.0.5" }
 */
export function classifyAddress(address: string): AddressVerdict {
  const ip = parseIp(address);
  if (!ip) return { public: false, reason: `unparseable address ${JSON.stringify(address)}` };
  return ip.kind() === "ipv4" ? classifyV4(ip as ipaddr.IPv4) : classifyV6(ip as ipaddr.IPv6);
}
