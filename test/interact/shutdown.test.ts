/**
 * A server stopped (SIGTERM) while a browser session runs code: the sessions are closed as the shutdown begins, so
 * the running code stops and its client gets the documented answer (exit code 124, "Stopped: the session was
 * closed.") and the server exits promptly. Before, the HTTP drain waited for the code, the 10 s grace cut the
 * connection (an empty reply), and only then were the sessions closed. A real server process with real Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { restartableServer, type RestartableServer } from "../jobs/restart-helpers.ts";

let server: RestartableServer;

beforeAll(async () => {
  server = restartableServer();
  await server.start();
}, 60_000);
afterAll(async () => {
  await server.cleanup();
});

describe("shutdown with a session's code running", () => {
  test("the code is stopped with exit code 124 and the server exits within a few seconds", async () => {
    const opened = await server.call("POST", "/v2/browser", {});
    expect(opened.success).toBe(true);
    const running = fetch(`${server.api}/v2/browser/${opened.id}/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: "await page.waitForTimeout(60000)", language: "node", timeout: 120 }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    await Bun.sleep(1000);
    const started = performance.now();
    const exitCode = await server.stop();
    const tookMs = performance.now() - started;
    const answer = await running;
    expect(exitCode).toBe(0);
    expect(tookMs).toBeLessThan(8_000);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ exitCode: 124, killed: true });
    expect(answer.body.stderr).toContain("Stopped: the session was closed.");
  }, 60_000);
});
