/**
 * @module interact/sandbox/run
 * Runs browser `code` in `language: "node"` or `"python"` (docs/interact.md) in an offline sandbox page
 * (engines/browser/offline-sandbox.ts), taken from the pool for the script's time, whose only way out is the channel
 * through crawlbox's isolated world of that page (interact/sandbox/channel.ts). JavaScript runs as the body of an
 * async function with a Playwright-style `page` and `console` (interact/sandbox/prelude.ts); Python runs in CPython
 * started in that page (Pyodide, interact/sandbox/python-prelude.ts) with the same `page` under Python's names. What
 * either does to the session's page, it asks for call by call (interact/sandbox/page-api.ts), and crawlbox checks
 * each call. `console.log`/`info`/`debug` and Python's stdout go to stdout, `warn`/`error` and Python's stderr to
 * stderr; what JavaScript returns, or its last expression's value (last-value.ts), is `result` (Python's result is
 * its stdout, as upstream's); what the code throws ends it with exit code 1. The time limit stops it where it is (the
 * sandbox is thrown away, whatever it is doing); a call still running on the session's page is then abandoned, and
 * ends the session only if the page's own thread does not answer (interact/page-abandon.ts).
 */
import type { BrowserPool, Lease } from "../../engines/browser/pool.ts";
import { acquireOfflineSandbox } from "../../engines/browser/offline-sandbox.ts";
import { raceAbort } from "../../scheduler/abortable.ts";
import { ScriptOutput, type ScriptOutcome } from "../output.ts";
import { BROWSER_GONE, PageOpError } from "../page-ops.ts";
import { carryOut, type PageApiContext } from "./page-api.ts";
import { SANDBOX_WRAPPER } from "./prelude.ts";
import { PYTHON_PRELUDE } from "./python-prelude.ts";
import { PYTHON_LOCK, pythonFiles } from "./python-assets.ts";
import { PYTHON_WRAPPER } from "./python-boot.ts";
import { pythonSnapshot } from "./python-snapshot.ts";
import type { Logger } from "../../log.ts";
import { openChannel, startInPage, waitOutcome, type Channel } from "./channel.ts";

/** Longest the sandbox's page may take to come from the pool. */
const SANDBOX_OPEN_MS = 30_000;
/** Calls the sandbox may have running at once (a script that fires thousands without waiting gets errors). */
export const MAX_CALLS_IN_FLIGHT = 16;
/** Characters a script may send crawlbox in all (log lines, call arguments); past it the script is stopped. */
export const MAX_SENT_CHARS = 20_000_000;
/** Calls (log lines included) one script may make. */
export const MAX_CALLS = 200_000;
/** Characters of one call (a log line, a call's arguments) at most. */
const MAX_CALL_CHARS = 2_100_000;
/** Characters of the returned value or the error read back (more is cut, and says so). */
const MAX_VALUE_CHARS = 1_000_000;
/** Calls carried out in crawlbox alone: one still running when the time runs out leaves nothing on the page to check. */
const OFF_PAGE = new Set(["url", "waitForTimeout"]);

/** What the sandbox's code acts on, and where its sandbox page comes from. */
export interface SandboxContext extends Omit<PageApiContext, "signal" | "shots"> {
  pool: BrowserPool;
  /** Where a Python start-up snapshot that could not be made is told. */
  log?: Logger;
}

interface Call {
  m?: unknown;
  a?: unknown;
}

/** Characters a call's arguments take (strings counted by length; other values as JSON, bounded in depth by V8). */
function sizeOf(a: unknown[]): number {
  let n = 0;
  for (const v of a) n += typeof v === "string" ? v.length : (JSON.stringify(v) ?? "").length;
  return n;
}

/**
 * Python's heap ceiling under a page memory limit (0: none): three quarters of it, leaving room for the interpreter's
 * JavaScript side, so that Python raises MemoryError before its page is killed. A 64 KiB WebAssembly page multiple.
 */
export function pythonHeapMaxBytes(pageLimitBytes: number): number {
  if (pageLimitBytes <= 0) return 0;
  return Math.max(1, Math.floor((pageLimitBytes * 0.75) / 65_536)) * 65_536;
}

/** The languages the sandbox runs. */
export type SandboxLanguage = "node" | "python";

/** Runs `code` in `language` on `ctx.page` until it ends or `signal` aborts; see the module comment. */
export async function runInSandbox(base: SandboxContext, language: SandboxLanguage, code: string, signal: AbortSignal): Promise<ScriptOutcome> {
  const io = new ScriptOutput();
  const { out, err } = io;
  const done = (exitCode: number, extra: Partial<ScriptOutcome> = {}) => io.end(exitCode, extra);
  let inPage = 0;
  let inFlight = 0;
  let sent = 0;
  let gone: unknown;
  /** Ends with the script: calls still running stop their waits, late calls are refused. */
  const ended = new AbortController();
  /** Aborts when the script sent too much: it is stopped like a timed-out one, with its own message. */
  const flood = new AbortController();
  const until = AbortSignal.any([signal, flood.signal]);
  const ctx: PageApiContext = { ...base, signal: AbortSignal.any([ended.signal, until]), shots: { count: 0, bytes: 0 } };
  let sandbox: Lease;
  let channel: Channel | undefined;
  let fromSnapshot = false;
  /** The file proxy's grant of a Python run's page, revoked when the run ends. */
  let grant: { revoke(): void } | undefined;
  try {
    // Python starts from a snapshot made once, in a page of its own, before this script's page is taken; its page
    // may fetch the interpreter's files from crawlbox's file proxy (and nothing else).
    if (language === "python") fromSnapshot = await raceAbort(pythonSnapshot(base.pool, base.log), until);
    sandbox = await acquireOfflineSandbox(base.pool, performance.now() + SANDBOX_OPEN_MS, until, language === "python" ? pythonFiles() : undefined);
  } catch (e) {
    // The time ran out waiting for a page: nothing ran. A browser that cannot give one is the pool's typed error.
    if (signal.aborted) return done(124, { killed: true });
    throw e;
  }
  /** The run's waits also end when the sandbox's page crashes (over its memory limit, page-crash.ts). */
  const live = AbortSignal.any([until, sandbox.crashed]);
  try {
    channel = await raceAbort(
      openChannel(
        sandbox.session,
        { maxRequestChars: MAX_CALL_CHARS, maxCalls: MAX_CALLS, maxTotalChars: MAX_SENT_CHARS, maxPending: MAX_CALLS_IN_FLIGHT },
        async (request) => {
          const call = (request ?? {}) as Call;
          if (ended.signal.aborted) throw new Error("the script has ended");
          const m = typeof call.m === "string" ? call.m : "";
          const a = Array.isArray(call.a) ? call.a : [];
          sent += sizeOf(a);
          if (sent > MAX_SENT_CHARS) {
            flood.abort();
            throw new Error("the script has sent too much");
          }
          if (m === "log") {
            // A console call is a line; Python's output comes as written (a[2]).
            const to = a[0] === "err" ? err : out;
            const text = typeof a[1] === "string" ? a[1] : "";
            if (a[2] === 1) to.write(text);
            else to.line(text);
            return null;
          }
          if (inFlight >= MAX_CALLS_IN_FLIGHT) throw new Error(`at most ${MAX_CALLS_IN_FLIGHT} page calls may run at once: await them`);
          const onPage = !OFF_PAGE.has(m);
          inFlight++;
          if (onPage) inPage++;
          try {
            return { v: await carryOut(ctx, m, a), url: ctx.page.url() };
          } catch (e) {
            const message = (e as Error).message ?? String(e);
            if (!(e instanceof PageOpError) && BROWSER_GONE.test(message)) gone = e;
            // The caller's code gets an Error it can catch, in crawlbox's words or the browser's first line, and with
            // no stack: the server's own (its paths and modules) would go with it into the sandbox.
            throw new Error(e instanceof PageOpError ? message : message.split("\n")[0]!.slice(0, 500));
          } finally {
            inFlight--;
            if (onPage) inPage--;
          }
        },
        () => flood.abort(),
      ),
      live,
    );
    const start =
      language === "python"
        ? startInPage(sandbox.session, PYTHON_WRAPPER, [code, ctx.page.url(), (grant = pythonFiles().grant()).base, PYTHON_LOCK, PYTHON_PRELUDE, fromSnapshot, pythonHeapMaxBytes(base.pool.memory.limitBytes)])
        : startInPage(sandbox.session, SANDBOX_WRAPPER, [code, ctx.page.url()]);
    await raceAbort(start, live);
    const outcome = await waitOutcome(sandbox.session, MAX_VALUE_CHARS, live);
    const cutValue = (outcome.resultChars ?? 0) > MAX_VALUE_CHARS;
    const ran = outcome.result !== undefined ? { ok: true, value: cutValue ? `${outcome.result} …(cut)` : outcome.result } : { ok: false, error: outcome.error ?? "the code did not finish" };
    if (gone) throw gone;
    // Python has no value of its own: its stdout stands in, as bash's does (server/routes/run-code.ts).
    if (ran.ok) return done(0, language === "python" ? {} : { result: typeof ran.value === "string" ? ran.value : "", ...(cutValue ? { resultTruncated: true } : {}) });
    err.line(typeof ran.error === "string" ? ran.error : "the code failed");
    return done(1);
  } catch (e) {
    if (gone) throw gone;
    if (flood.signal.aborted && !signal.aborted) {
      err.line(`Stopped: the script sent crawlbox more than ${MAX_SENT_CHARS} characters, or ${MAX_CALLS} calls and log lines (output and call arguments).`);
      return done(1, { stuck: inPage > 0 });
    }
    if (signal.aborted) return done(124, { killed: true, stuck: inPage > 0 });
    if (sandbox.crashed.aborted) {
      // Killed from outside, as the OOM killer would kill a process: 128 + SIGKILL.
      err.line(`Stopped: ${(sandbox.crashed.reason as Error).message}`);
      return done(137, { killed: true });
    }
    // The sandbox failing (its page closed, the browser driver giving up on it) ends the script, not the session:
    // only the session's own page failing (gone, above) does.
    err.line(`The sandbox failed: ${String((e as Error).message ?? e).split("\n")[0]!.slice(0, 300)}`);
    return done(1, { stuck: inPage > 0 });
  } finally {
    grant?.revoke();
    ended.abort();
    channel?.close();
    // A sandbox stopped mid-run may still be spinning: the pool closes it and checks the browser.
    sandbox.release({ suspect: until.aborted });
  }
}
