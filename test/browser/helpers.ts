/**
 * Shared helpers of the browser tests: a harness with the browser engine and a resolver for the fake ad hosts,
 * PNG/JPEG size readers, and the "no Chromium left" check.
 */
import { expect } from "bun:test";
import { defaultResolver } from "../../src/egress/index.ts";
import type { Config } from "../../src/config.ts";
import type { ServiceOptions } from "../../src/server/services.ts";
import { chromiumProcessesFor } from "../fixtures/js-pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** Host names the tests resolve to loopback (ad and tracker hosts from the bundled list, a "public" name). */
export const FAKE_HOSTS: Record<string, string[]> = {
  "ads.doubleclick.net": ["127.0.0.1"],
  "www.google-analytics.com": ["127.0.0.1"],
};

/** A harness whose gate resolves {@link FAKE_HOSTS} locally and everything else normally. */
export async function browserHarness(overrides: Partial<Config> = {}, options: ServiceOptions = {}): Promise<Harness> {
  const resolver = async (host: string) => FAKE_HOSTS[host] ?? defaultResolver(host);
  const h = await createHarness(overrides, { resolver, ...options });
  if (!h.services.engines.pool) throw new Error("these tests need Chromium (apt-get install chromium)");
  return h;
}

/** POST /v2/scrape, returning status and JSON body. */
export async function scrape(h: Harness, body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
}

/** {@link scrape}, and how long it took (ms). */
export async function timedScrape(h: Harness, body: Record<string, unknown>) {
  const t0 = performance.now();
  const r = await scrape(h, body);
  return { ...r, ms: performance.now() - t0 };
}

/** Width and height of a PNG or JPEG. */
export function imageSize(bytes: Uint8Array): { width: number; height: number; type: "png" | "jpeg" } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return { width: dv.getUint32(16), height: dv.getUint32(20), type: "png" };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i < bytes.length) {
      const marker = bytes[i + 1]!;
      const len = dv.getUint16(i + 2);
      if (marker >= 0xc0 && marker <= 0xc3) return { height: dv.getUint16(i + 5), width: dv.getUint16(i + 7), type: "jpeg" };
      i += 2 + len;
    }
  }
  throw new Error("not a PNG or JPEG");
}

/** Fetches a `/v2/files/…` URL through the in-process app. */
export async function fetchFile(h: Harness, url: string): Promise<Response> {
  const u = new URL(url);
  return h.request(u.pathname, { auth: null });
}

/** Closes the harness and asserts that no Chromium it started is still running. */
export async function closeAndAssertNoChromium(h: Harness): Promise<void> {
  const proxyUrl = h.services.gate.proxyUrl;
  const pids = h.services.engines.pool?.pids() ?? [];
  await h.close();
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
  expect(await chromiumProcessesFor(proxyUrl)).toEqual([]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A fixture server's page: `body` (and `head`) in a minimal HTML document, served as UTF-8 HTML. */
export function htmlPage(body: string, head = ""): Response {
  return new Response(`<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}
