/**
 * A server killed (SIGKILL) during a monitor check whose crawl target is running: on restart the check is failed,
 * as before, and the crawl it started is cancelled. It ran on before, charging pages to a check recorded as failed
 * with nothing spent (40 credits at the restart, 100 a little later). Real server processes on one data folder.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { restartableServer, type RestartableServer } from "../jobs/restart-helpers.ts";

let server: RestartableServer;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  // 60 pages in a chain, each slow: the crawl is still running when the server is killed.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const n = Number(new URL(req.url).pathname.slice(3) || 0);
      await Bun.sleep(300);
      const next = n < 59 ? `<a href="/p/${n + 1}">next</a>` : "";
      return new Response(`<html><body><main><h1>Page ${n}</h1><p>Text of page ${n}, which the monitor watches.</p>${next}</main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  server = restartableServer();
  await server.start();
});
afterAll(async () => {
  await server.cleanup();
  site.stop(true);
});

describe("a monitor check's crawl after a crash", () => {
  test("is cancelled when the server starts again, with the check failed", async () => {
    const { data: m } = await server.call("POST", "/v2/monitor", { name: "chain", schedule: { text: "daily" }, targets: [{ id: "site", type: "crawl", url: `http://127.0.0.1:${site.port}/p/0`, crawlOptions: { limit: 60 } }] });
    const { data: check } = await server.call("POST", `/v2/monitor/${m.id}/run`, {});
    // Until the crawl runs (it is listed among the key's active crawls).
    let active: any[] = [];
    for (let i = 0; i < 100 && active.length === 0; i++) {
      active = (await server.call("GET", "/v2/crawl/active")).crawls ?? [];
      if (active.length === 0) await Bun.sleep(50);
    }
    expect(active.length).toBe(1);
    const crawlId = active[0].id;
    await Bun.sleep(600);
    await server.kill();
    await server.start();
    const after = await server.call("GET", `/v2/crawl/${crawlId}`);
    expect(after.status).toBe("cancelled");
    const { data: c } = await server.call("GET", `/v2/monitor/${m.id}/checks/${check.id}`);
    expect(c.status).toBe("failed");
    // Nothing more is fetched for it.
    const credits = (await server.call("GET", "/v2/team/credit-usage")).data;
    await Bun.sleep(1500);
    expect((await server.call("GET", "/v2/team/credit-usage")).data).toEqual(credits);
  }, 60_000);
});
