import { describe, expect, test } from "bun:test";
import { classifyAddress } from "../../src/egress/classify.ts";
import { parseConnectAuthority, parseUrlTarget } from "../../src/egress/target.ts";
import { EgressDeniedError } from "../../src/errors.ts";

const BLOCKED: Array<[string, string]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.5", "private"], // firecrawl/firecrawl#2070
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "link-local"], // cloud metadata
  ["100.64.0.1", "carrier-grade NAT"],
  ["0.0.0.0", "'this network'"],
  ["0.1.2.3", "'this network'"],
  ["192.0.0.8", "IETF"],
  ["192.0.2.1", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fd00::1", "unique local"],
  ["fc00::1", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "IPv4-mapped"],
  ["::ffff:7f00:1", "IPv4-mapped"],
  ["::ffff:10.1.2.3", "IPv4-mapped"],
  ["::ffff:169.254.169.254", "IPv4-mapped"],
  ["::7f00:1", "IPv4-compatible"],
  ["::127.0.0.1", "127.0.0.1"], // ipaddr.js reads the dotted form as IPv4-mapped: refused either way
  ["::808:808", "IPv4-compatible"],
  ["64:ff9b::7f00:1", "NAT64"],
  ["64:ff9b::a9fe:a9fe", "NAT64"],
  ["64:ff9b:1::a00:1", "NAT64"],
  // Local-use NAT64 (RFC 8215) is refused whole: behind a /48 translator this is 127.0.1.1 (RFC 6052 §2.2), and the
  // last 32 bits (1.1.1.1 here, 8.8.8.8 below) say nothing.
  ["64:ff9b:1:7f00:1:101:101:101", "NAT64 local-use"],
  ["64:ff9b:1:a00:1:101:101:101", "NAT64 local-use"],
  ["64:ff9b:1::808:808", "NAT64 local-use"],
  ["64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "NAT64 local-use"],
  ["2002:7f00:1::", "6to4"],
  ["2002:a00:1::1", "6to4"],
  ["2001:db8::1", "reserved"],
  ["[::1]", "loopback"],
  ["not-an-ip", "unparseable"],
  ["", "unparseable"],
  ["0x7f000001", "unparseable"], // legacy forms must be normalised by the URL parser first
];

const ALLOWED = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255", "100.128.0.1", "2606:4700::1111", "2a00:1450:4001:81a::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];

describe("classifyAddress", () => {
  test.each(BLOCKED)("%s is refused (%s)", (address, reasonPart) => {
    const v = classifyAddress(address);
    expect(v.public).toBe(false);
    if (!v.public) expect(v.reason).toContain(reasonPart);
  });

  test.each(ALLOWED)("%s is public", (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });

  test("the embedded IPv4 is named in the reason", () => {
    const v = classifyAddress("::ffff:127.0.0.1");
    expect(!v.public && v.reason).toContain("127.0.0.1");
  });
});

describe("target parsing normalises with WHATWG URL rules", () => {
  test.each([
    ["http://0x7f000001/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
    ["http://[0:0:0:0:0:0:0:1]/", "::1"],
    ["http://[::127.0.0.1]/", "::7f00:1"],
  ])("%s → %s", (url, ip) => {
    const t = parseUrlTarget(url);
    expect(t.ip).toBe(ip);
    expect(classifyAddress(t.ip!).public).toBe(false);
  });

  test("host names are lower-cased punycode with default ports", () => {
    expect(parseUrlTarget("https://BÜCHER.example/")).toEqual({ host: "xn--bcher-kva.example", port: 443 });
    expect(parseUrlTarget("http://example.com:8080/x")).toEqual({ host: "example.com", port: 8080 });
  });

  test.each(["file:///etc/passwd", "ftp://example.com/", "gopher://x/", "data:text/html,hi", "javascript:alert(1)", "not a url"])(
    "%s is refused",
    (url) => {
      expect(() => parseUrlTarget(url)).toThrow(EgressDeniedError);
    },
  );

  test("bad ports and credentials are refused", () => {
    expect(() => parseUrlTarget("http://example.com:25/")).toThrow(/port 25/);
    expect(() => parseUrlTarget("http://example.com:6379/")).not.toThrow();
    expect(() => parseUrlTarget("http://user:pw@example.com/")).toThrow(/credentials/);
  });

  test("CONNECT authorities", () => {
    expect(parseConnectAuthority("example.com:443")).toEqual({ host: "example.com", port: 443 });
    expect(parseConnectAuthority("0x7f000001:443")).toEqual({ host: "127.0.0.1", port: 443, ip: "127.0.0.1" });
    expect(parseConnectAuthority("[::1]:80")).toEqual({ host: "::1", port: 80, ip: "::1" });
    for (const bad of ["example.com", "example.com:22", "a@b:443", "example.com:443/x", "example.com:99999"]) {
      expect(() => parseConnectAuthority(bad)).toThrow(EgressDeniedError);
    }
  });
});
