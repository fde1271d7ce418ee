/**
 * @module interact/sandbox/run-node
 * Runs browser `code` in `language: "node"` (docs/interact.md): the caller's JavaScript, as the body of an async
 * function, with a Playwright-style `page` and `console` (interact/sandbox/prelude.ts). It runs in a sandbox: a
 * blank page of a browser context of its own, taken from the pool for the script's time, offline, whose only way out
 * is one binding to crawlbox. So the code runs where any web page's script runs, inside Chromium's renderer sandbox,
 * not in crawlbox's process: it has no file system, no processes, no Node built-ins and no network. What it does to
 * the session's page, it asks for call by call (interact/sandbox/page-api.ts), and crawlbox checks each call.
 * `console.log`/`info`/`debug` go to stdout, `warn`/`error` to stderr; what the code returns is `result`; what it
 * throws ends it with exit code 1. The time limit stops it where it is (the sandbox is thrown away, whatever it is
 * doing); a call still running on the session's page then ends the session.
 */
import type { BrowserPool, Lease } from "../../engines/browser/pool.ts";
import { raceAbort } from "../../scheduler/abortable.ts";
import { Output, type ScriptOutcome } from "../output.ts";
import { BROWSER_GONE, PageOpError } from "../page-ops.ts";
import { carryOut, type PageApiContext } from "./page-api.ts";
import { BINDING, sandboxProgram } from "./prelude.ts";

/** Longest the sandbox's page may take to come from the pool. */
const SANDBOX_OPEN_MS = 30_000;

/** What the sandbox's code acts on, and where its sandbox page comes from. */
export interface NodeContext extends PageApiContext {
  pool: BrowserPool;
}

interface Call {
  m?: unknown;
  a?: unknown;
}

/** Runs `code` on `ctx.page` until it ends or `signal` aborts; see the module comment. */
export async function runNode(ctx: NodeContext, code: string, signal: AbortSignal): Promise<ScriptOutcome> {
  const out = new Output();
  const err = new Output();
  let inFlight = 0;
  let over = false;
  let gone: unknown;
  const done = (exitCode: number, extra: Partial<ScriptOutcome> = {}): ScriptOutcome => ({ stdout: out.text, stderr: err.text, exitCode, killed: false, truncated: out.truncated || err.truncated, stuck: false, ...extra });
  let sandbox: Lease;
  try {
    sandbox = await ctx.pool.acquire({ deadline: performance.now() + SANDBOX_OPEN_MS, signal });
  } catch (e) {
    // The time ran out waiting for a page: nothing ran. A browser that cannot give one is the pool's typed error.
    if (signal.aborted) return done(124, { killed: true });
    throw e;
  }
  try {
    // Offline as well as behind the egress gate like every browser page: the sandbox has nothing to fetch.
    await sandbox.session.send("Network.enable");
    await sandbox.session.send("Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await sandbox.page.exposeFunction(BINDING, async (call: Call) => {
      const m = typeof call?.m === "string" ? call.m : "";
      const a = Array.isArray(call?.a) ? call.a : [];
      if (m === "log") {
        const text = typeof a[1] === "string" ? a[1] : "";
        (a[0] === "err" ? err : out).line(text);
        return null;
      }
      if (over) throw new Error("the script has ended");
      inFlight++;
      try {
        return { v: await carryOut(ctx, m, a), url: ctx.page.url() };
      } catch (e) {
        const message = (e as Error).message ?? String(e);
        if (!(e instanceof PageOpError) && BROWSER_GONE.test(message)) gone = e;
        // The caller's code gets an Error it can catch, in crawlbox's words or the browser's first line, and with no
        // stack: the server's own (its paths and modules) would go with it into the sandbox.
        const thrown = new Error(e instanceof PageOpError ? message : message.split("\n")[0]!.slice(0, 500));
        thrown.stack = `Error: ${thrown.message}`;
        throw thrown;
      } finally {
        inFlight--;
      }
    });
    const ran = (await raceAbort(sandbox.page.evaluate(sandboxProgram(code, ctx.page.url())), signal).catch((e: unknown) => {
      if (signal.aborted) throw e;
      // The code could not be parsed (or the sandbox failed): the browser's message, its first lines.
      return { ok: false, error: String((e as Error).message ?? e).split("\n").slice(0, 5).join("\n") };
    })) as { ok?: boolean; value?: unknown; error?: unknown };
    over = true;
    if (gone) throw gone;
    if (ran.ok) return done(0, { result: typeof ran.value === "string" ? ran.value : "" });
    err.line(typeof ran.error === "string" ? ran.error : "the code failed");
    return done(1);
  } catch (e) {
    over = true;
    if (gone || !signal.aborted) throw gone ?? e;
    return done(124, { killed: true, stuck: inFlight > 0 });
  } finally {
    over = true;
    // A sandbox stopped mid-run may still be spinning: the pool closes it and checks the browser.
    sandbox.release({ suspect: signal.aborted });
  }
}
