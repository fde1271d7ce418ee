/**
 * The drain a stopping server ends at its grace's end (server/request-drain.ts): a run in flight rejects with
 * SERVER_STOPPING at once, even when its work ignores its signal (a scrape waiting in the scrape queue); its work's
 * signal aborts with the same reason; a run started later is refused; a finished run leaves nothing behind; an untyped
 * failure after the end (an aborted fetch in a route outside the drain) is the same 503, not a 500. And
 * `CRAWLBOX_SHUTDOWN_GRACE_MS`, the grace itself, is read and checked by the config module.
 */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { ServerStoppingError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { mapError } from "../../src/server/error-handler.ts";
import { RequestDrain } from "../../src/server/request-drain.ts";

const request = () => new Request("http://127.0.0.1/v2/scrape", { method: "POST" });

describe("RequestDrain", () => {
  test("ending it answers a run whose work ignores its signal, and aborts that signal", async () => {
    const drain = new RequestDrain();
    let seen: AbortSignal | undefined;
    const run = drain.run(request(), (signal) => {
      seen = signal;
      return new Promise<string>(() => {}); // never settles, never looks at its signal
    });
    expect(drain.running).toBe(1);
    expect(seen!.aborted).toBe(false);
    drain.end();
    const err = await run.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ServerStoppingError);
    expect(err).toMatchObject({ code: "SERVER_STOPPING", status: 503 });
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toBe(err);
    expect(drain.ended).toBe(true);
    expect(drain.running).toBe(0);
  });

  test("a run that finishes first keeps its answer or its failure and leaves nothing registered", async () => {
    const drain = new RequestDrain();
    expect(await drain.run(request(), async () => "done")).toBe("done");
    await expect(drain.run(request(), async () => Promise.reject(new Error("its own failure")))).rejects.toThrow("its own failure");
    await expect(drain.run(request(), () => { throw new Error("thrown at once"); })).rejects.toThrow("thrown at once");
    expect(drain.running).toBe(0);
    drain.end();
    drain.end(); // twice is harmless
  });

  test("after the end a run is refused without starting its work", async () => {
    const drain = new RequestDrain();
    drain.end();
    let started = false;
    await expect(drain.run(request(), async () => { started = true; })).rejects.toBeInstanceOf(ServerStoppingError);
    expect(started).toBe(false);
  });

  test("the work's signal also aborts when the client goes away", async () => {
    const drain = new RequestDrain();
    const client = new AbortController();
    let seen: AbortSignal | undefined;
    const run = drain.run(new Request("http://127.0.0.1/", { signal: client.signal }), (signal) => {
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    client.abort(new Error("client gone"));
    await expect(run).rejects.toThrow("client gone");
    expect(seen!.aborted).toBe(true);
    expect(drain.ended).toBe(false);
  });
});

describe("mapError after the grace's end", () => {
  test("an untyped failure is 503 SERVER_STOPPING; typed errors and a client gone keep their meaning", () => {
    const aborted = new DOMException("The operation was aborted.", "AbortError");
    expect(mapError("UNKNOWN", aborted, silentLogger, false, true)).toMatchObject({ code: "SERVER_STOPPING", status: 503 });
    expect(mapError("UNKNOWN", aborted, silentLogger, false, false)).toMatchObject({ code: "UNKNOWN_ERROR", status: 500 });
    expect(mapError("UNKNOWN", aborted, silentLogger, true, true)).toMatchObject({ code: "CLIENT_CLOSED_REQUEST" });
    expect(mapError("NOT_FOUND", new Error("no route"), silentLogger, false, true)).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});

describe("CRAWLBOX_SHUTDOWN_GRACE_MS", () => {
  test("10 s unless set; 0–600000 accepted; anything else refused at start", () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ CRAWLBOX_SHUTDOWN_GRACE_MS: "1500" }).shutdownGraceMs).toBe(1500);
    expect(loadConfig({ CRAWLBOX_SHUTDOWN_GRACE_MS: "0" }).shutdownGraceMs).toBe(0);
    for (const bad of ["-1", "600001", "10s", "1e4"]) {
      expect(() => loadConfig({ CRAWLBOX_SHUTDOWN_GRACE_MS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ CRAWLBOX_SHUTDOWN_GRACE_MS: "10s" })).toThrow(/CRAWLBOX_SHUTDOWN_GRACE_MS must be an integer from 0 to 600000/);
  });
});
