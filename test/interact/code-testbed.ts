/**
 * What the browser-code tests (JavaScript in node-code.test.ts, Python in python-code.test.ts) stand on: a local site
 * serving their pages (any other path an "Other" page), a server that counts hits and must never be reached from a
 * sandbox, a harness with four browser pages (a session's page and a sandbox's, twice) and the official SDK; and
 * a session helper that runs code through the SDK's `browserExecute`.
 */
import Firecrawl from "@mendable/firecrawl-js";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import type { Config } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** A browser session of the testbed's key, and code run in it. */
export interface CodeSession {
  id: string;
  run(code: string, language: "node" | "python" | "bash", timeout?: number): Promise<any>;
  end(): Promise<unknown>;
}

/** The running testbed. */
export interface CodeTestbed {
  h: Harness;
  app: Firecrawl;
  /** The site's origin (`http://127.0.0.1:PORT`). */
  base: string;
  /** Must stay at 0 hits: nothing in a sandbox may reach it. */
  secret: FixtureServer;
  session(): Promise<CodeSession>;
  /** Stops everything, asserting that no Chromium is left. */
  close(): Promise<void>;
}

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });

/** Starts the testbed, the site serving `pages` (path → HTML); `overrides` change the server's config. */
export async function startCodeTestbed(pages: Record<string, string>, overrides: Partial<Config> = {}): Promise<CodeTestbed> {
  const secret = startCountingServer(() => new Response("SECRET-DATA", { headers: { "access-control-allow-origin": "*" } }));
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => html(pages[new URL(req.url).pathname] ?? "<html><head><title>Other</title></head><body><p>Other page</p></body></html>"),
  });
  const h = await createHarness({ browserConcurrency: 4, ...overrides });
  const app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
  return {
    h,
    app,
    base: `http://127.0.0.1:${site.port}`,
    secret,
    async session() {
      const { id } = (await app.browser()) as any;
      return {
        id,
        run: async (code, language, timeout) => (await app.browserExecute(id, { code, language, ...(timeout ? { timeout } : {}) })) as any,
        end: () => app.deleteBrowser(id),
      };
    },
    async close() {
      await closeAndAssertNoChromium(h);
      site.stop(true);
      await secret.stop();
    },
  };
}
