/**
 * The shared set-up of the job API tests (jobs-crawl, jobs-batch, jobs-webhooks): a small generated site on
 * loopback, a webhook receiver that records every delivery, and a harness with fast retries and signed webhooks.
 * Each test file gets its own server and site, so the files run independently.
 */
import { afterAll, beforeAll } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** The webhook secret the harness signs with. */
export const SECRET = "whsec_" + Buffer.from("a-test-secret-of-32-bytes-length!").toString("base64");

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface JobsApi {
  h: Harness;
  apiUrl: string;
  /** The site's origin. */
  base: string;
  /** How many times /flaky and /busy were asked for. */
  flaky: Map<string, number>;
  /** Every webhook delivery: its raw body, the parsed body and the headers. */
  hookBodies: any[];
  hooksUrl: string;
  /** The official SDK pointed at the server with the harness's key. */
  sdk(): Firecrawl;
  /** GET over the real socket, so absolute links carry the server's own origin. */
  raw(path: string): Promise<any>;
}

/** A ring of 40 pages: /p/i links to /p/(i+1..i+3); /slow/i takes 300 ms; /flaky answers 500 twice; /busy 429 once; /err500/i always 500. */
function startSite(flaky: Map<string, number>) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const p = url.pathname;
      const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
        new Response(`<html><head><title>${p}</title></head><body><main>${body}</main></body></html>`, { status, headers: { "content-type": "text/html", ...headers } });
      let m = /^\/p\/(\d+)$/.exec(p);
      if (m) {
        const i = Number(m[1]);
        const links = [1, 2, 3].map((k) => `<a href="/p/${(i + k) % 40}">page ${(i + k) % 40}</a>`).join(" ");
        return html(`<h1>Page ${i}</h1><p>This is page number ${i} of the ring, with a paragraph of text.</p>${links}`);
      }
      m = /^\/slow\/(\d+)$/.exec(p);
      if (m) {
        await Bun.sleep(300);
        const i = Number(m[1]);
        return html(`<h1>Slow ${i}</h1><p>slow page</p><a href="/slow/${i + 1}">next</a>`);
      }
      if (p === "/flaky" || p === "/busy") {
        const n = (flaky.get(p) ?? 0) + 1;
        flaky.set(p, n);
        if (p === "/flaky" && n <= 2) return html("<p>temporarily broken</p>", 500);
        if (p === "/busy" && n <= 1) return html("<p>slow down</p>", 429, { "retry-after": "1" });
        return html(`<h1>${p} ok after ${n}</h1><p>Finally a real page.</p>`);
      }
      if (/^\/err500\/\d+$/.test(p)) return html("<p>always broken</p>", 500);
      if (p === "/gone") return html("<p>not here</p>", 404);
      if (p === "/gone-nav") return html(`<p>not here, but the site's navigation is</p><a href="/p/777">home</a>`, 404);
      // Not a page: fails at once (422, not retried), so it finishes before the pages of its batch.
      // A page below the root whose two links are binaries: one result and two failed pages.
      if (p === "/lone/start") return html(`<h1>Lone start</h1><p>Only binaries below.</p><a href="/lone/start/bin1">one</a> <a href="/lone/start/bin2">two</a>`);
      if (p === "/bin" || /^\/lone\/start\/bin\d$/.test(p)) return new Response(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), { headers: { "content-type": "application/octet-stream" } });
      return new Response("not found", { status: 404 });
    },
  });
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useJobsApi(): JobsApi {
  let site: ReturnType<typeof Bun.serve>;
  let hooks: ReturnType<typeof Bun.serve>;
  const api = { flaky: new Map<string, number>(), hookBodies: [] as any[] } as JobsApi;
  api.sdk = () => new Firecrawl({ apiKey: api.h.key, apiUrl: api.apiUrl });
  api.raw = async (path) => (await fetch(`${api.apiUrl}${path}`, { headers: { authorization: `Bearer ${api.h.key}` } })).json();
  beforeAll(async () => {
    site = startSite(api.flaky);
    api.base = `http://127.0.0.1:${site.port}`;
    hooks = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const raw = await req.text();
        api.hookBodies.push({ raw, body: JSON.parse(raw), headers: Object.fromEntries(req.headers) });
        return new Response("ok");
      },
    });
    api.hooksUrl = `http://127.0.0.1:${hooks.port}`;
    api.h = await createHarness({ retryBaseDelayMs: 50, allowPrivateWebhooks: true, webhookSecret: SECRET, jobConcurrency: 4 });
    api.apiUrl = api.h.listen();
  });
  afterAll(async () => {
    await api.h.close();
    site.stop(true);
    hooks.stop(true);
  });
  return api;
}

/** Polls `cond` every 50 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await Bun.sleep(50);
  }
  throw new Error("condition not met in time");
}
