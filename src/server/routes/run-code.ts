/**
 * @module server/routes/run-code
 * Runs a bash script (agent-browser commands, src/interact/shell) in a browser session for a route
 * (`/v2/scrape/{id}/interact` with `code`, `/v2/browser/{id}/execute`) and answers in the SDK's
 * `BrowserExecuteResponse`: `stdout`, `stderr`, `exitCode`, `killed`, `truncated`, and `output`/`result` (stdout,
 * as bash code has no value of its own). One credit per script that ran; `agent-browser close` ends the session.
 */
import type { KeyIdentity } from "../../auth/keys.ts";
import { UnsupportedOptionError } from "../../errors.ts";
import type { Lease } from "../../engines/browser/pool.ts";
import { ScriptOutput, type ScriptOutcome } from "../../interact/output.ts";
import { runInSandbox } from "../../interact/sandbox/run.ts";
import { runScript } from "../../interact/shell/run.ts";
import type { ShellContext } from "../../interact/shell/agent-browser.ts";
import { fileSinkFor, publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Credits of one prompt or script (a prompt's model tokens are counted as token usage). */
export const INTERACT_CREDITS = 1;

/** Why a prompt or script was stopped: its own time ran out, or its session was closed under it (DELETE, its ttl). */
export function stoppedMessage(timeRanOut: boolean, timeoutMs: number): string {
  return timeRanOut ? `Stopped after ${Math.round(timeoutMs / 1000)} s.` : "Stopped: the session was closed.";
}

/** Runs the script's work in the session (opening it, for a scrape's, within `signal`: the script's time). */
export type RunInSession = (work: (lease: Lease, stop: AbortSignal) => Promise<ScriptOutcome>, signal: AbortSignal) => Promise<ScriptOutcome>;

/**
 * Runs `code` through `inSession` within `timeoutMs` (or until the client leaves); `close()` ends the session when
 * the script asked to. Time that ran out before the script started (opening the session) is an answer too:
 * `killed`, nothing charged.
 */
export async function runCode(o: { services: Services; who: KeyIdentity; request: Request; code: string; language: "bash" | "node" | "python"; timeoutMs: number; inSession: RunInSession; close: () => Promise<unknown> }) {
  const { services, who, request } = o;
  if (o.language !== "bash" && services.config.browserConcurrency < 2) {
    // The sandbox is a browser page of its own beside the session's: with one page in all it would wait for ever.
    const which = o.language === "python" ? "Python" : "JavaScript";
    throw new UnsupportedOptionError("INTERACT_CODE_NOT_SUPPORTED", `${which} code runs in a browser page of its own beside the session's, and this server has one browser page in all (CRAWLBOX_BROWSER_CONCURRENCY=1): raise it to 2 or more, or send the code as "bash".`);
  }
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(o.timeoutMs)]);
  const saveFile = fileSinkFor(services, who.keyId, publicBaseUrl(services.config.publicUrl, request));
  let ctx: ShellContext | undefined;
  let ran = false;
  const session = () =>
    o
      .inSession((lease, stop) => {
        ran = true;
        // Its own time, its client leaving, or the session closed under it (DELETE, its ttl): each stops it.
        const until = AbortSignal.any([signal, stop]);
        const check = (url: string) => services.gate.check(url);
        // A session exists, so the pool does: the sandbox of JavaScript code takes a page of its own from it.
        if (o.language !== "bash") return runInSandbox({ page: lease.page, session: lease.session, check, saveFile, pool: services.engines.pool!, log: services.log }, o.language, o.code, until);
        ctx = { page: lease.page, session: lease.session, check, saveFile, shots: { count: 0, bytes: 0 }, signal: until };
        return runScript(ctx, o.code, until);
      }, signal)
      .catch((err: unknown) => {
        if (request.signal.aborted || !signal.aborted || ran) throw err;
        return new ScriptOutput().end(124, { killed: true });
      });
  const outcome = await services.ledger.holding(who, INTERACT_CREDITS, session, () => (ran ? INTERACT_CREDITS : 0));
  if (ctx?.closeRequested) await o.close();
  // A script stopped from outside (124) is told why here; one killed over the page memory limit (137) said so itself.
  const stderr = outcome.killed && outcome.exitCode === 124 ? `${outcome.stderr}${stoppedMessage(signal.aborted, o.timeoutMs)}\n` : outcome.stderr;
  return {
    success: true,
    output: outcome.stdout,
    result: outcome.result ?? outcome.stdout,
    stdout: outcome.stdout,
    stderr,
    exitCode: outcome.exitCode,
    killed: outcome.killed,
    ...(outcome.truncated ? { truncated: true } : {}),
  };
}
