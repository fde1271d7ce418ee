/**
 * Pinned connections (src/egress/pinned.ts): the URL the HTTP engine fetches for a checked address, and what the
 * site sees over it (Host header, TLS name and certificate check), with a real TLS fixture.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isConnectFailure, pinnedTargets } from "../../src/egress/index.ts";
import { type FixtureServer, startTlsServer } from "../fixtures/servers.ts";

describe("pinnedTargets", () => {
  test("keeps path, query and port; Host is the URL's authority; IPv4 before IPv6", () => {
    const t = pinnedTargets("http://example.com:8080/a/b?q=1#frag", ["2001:db8::1", "93.184.216.34"]);
    expect(t.map((x) => x.url)).toEqual(["http://93.184.216.34:8080/a/b?q=1#frag", "http://[2001:db8::1]:8080/a/b?q=1#frag"]);
    expect(t.every((x) => x.host === "example.com:8080")).toBe(true);
    expect(t[0]!.serverName).toBeUndefined(); // plain http has no TLS name
  });

  test("the default port is left out of Host; https to a name carries it as the TLS server name", () => {
    const [t] = pinnedTargets("https://Example.COM/x", ["93.184.216.34"]);
    expect(t).toEqual({ url: "https://93.184.216.34/x", host: "example.com", serverName: "example.com", address: "93.184.216.34" });
  });

  test("an IP literal gets no server name (SNI never carries an address)", () => {
    expect(pinnedTargets("https://[2001:db8::1]:8443/", ["2001:db8::1"])[0]).toEqual({
      url: "https://[2001:db8::1]:8443/",
      host: "[2001:db8::1]:8443",
      address: "2001:db8::1",
    });
    expect(pinnedTargets("https://10.0.0.1/", ["10.0.0.1"])[0]!.serverName).toBeUndefined();
  });

  test("only connection failures move on to the next address", () => {
    expect(isConnectFailure(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isConnectFailure(Object.assign(new Error("x"), { code: "ERR_TLS_CERT_ALTNAME_INVALID" }))).toBe(false);
    expect(isConnectFailure(new Error("no code"))).toBe(false);
  });
});

describe("a pinned https fetch, as the engine sends it", () => {
  let site: FixtureServer;
  let ca: string;
  beforeAll(async () => {
    site = await startTlsServer((req) => new Response(`host=${req.headers.get("host")}`));
    ca = await Bun.file(join(import.meta.dir, "..", "fixtures", "tls", "cert.pem")).text();
  });
  afterAll(() => site.stop());

  const fetchPinned = (url: string) => {
    const [t] = pinnedTargets(url, ["127.0.0.1"]);
    return fetch(t!.url, { headers: { host: t!.host }, tls: { ca, serverName: t!.serverName } });
  };

  test("the certificate is verified against the URL's name, and the site sees that name", async () => {
    const res = await fetchPinned(`https://localhost:${site.port}/`);
    expect(await res.text()).toBe(`host=localhost:${site.port}`);
  });

  test("a name the certificate does not cover fails even though the address is the same", async () => {
    const err = await fetchPinned(`https://wrong.test:${site.port}/`).catch((e) => e);
    expect((err as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
  });
});
