/**
 * Test harness: a real crawlbox (real SQLite file in a temporary folder, real egress gate, real HTTP engine)
 * driven in-process through `app.handle`, or listening on a loopback port for SDK and WebSocket tests.
 */
import { rmSync } from "node:fs";
import { testConfig, type Config } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createApp } from "../../src/server/app.ts";
import { createServices, type ServiceOptions, type Services } from "../../src/server/services.ts";

export interface Harness {
  services: Services;
  app: ReturnType<typeof createApp>;
  /** A key accepted by the server (created in its database). */
  key: string;
  /** Calls the app in-process. */
  request(path: string, init?: RequestInit & { json?: unknown; auth?: string | null }): Promise<Response>;
  /** Starts listening on 127.0.0.1:<random>; returns the base URL. */
  listen(): string;
  close(): Promise<void>;
}

/** Builds a crawlbox with a fresh data dir. Private network is allowed unless overridden. */
export async function createHarness(overrides: Partial<Config> = {}, options: ServiceOptions = {}): Promise<Harness> {
  const config = testConfig(overrides);
  const services = await createServices(config, { log: silentLogger, ...options });
  const app = createApp(services);
  const { key } = services.keys.create("test");
  let listening = false;
  return {
    services,
    app,
    key,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.auth !== null) headers.set("authorization", `Bearer ${init.auth ?? key}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return app.handle(new Request(`http://localhost${path}`, { ...init, headers, body }));
    },
    listen() {
      app.listen({ port: 0, hostname: "127.0.0.1" });
      listening = true;
      return `http://127.0.0.1:${app.server!.port}`;
    },
    async close() {
      if (listening) await app.stop(true);
      await services.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
