/**
 * @module server/routes/run-code
 * Runs code in a browser session for a route (`/v2/scrape/{id}/interact` with `code`, `/v2/browser/{id}/execute`):
 * bash (agent-browser commands, src/interact/shell), or JavaScript and Python in a sandbox (src/interact/sandbox). It
 * answers in the SDK's `BrowserExecuteResponse`: `stdout`, `stderr`, `exitCode`, `killed`, `truncated`, `output`
 * (stdout), `result` (JavaScript's value, `resultTruncated` when it was cut; bash's and Python's stdout, as they have
 * no value of their own) and, as upstream, `error` when the code failed or was stopped. One credit per script that
 * ran; `agent-browser close` ends the session, and then says whether its profile was saved (`profileSaved`, as the
 * session's DELETE says it) when it had one to save.
 */
import type { KeyIdentity } from "../../auth/keys.ts";
import { UnsupportedOptionError } from "../../errors.ts";
import type { Lease } from "../../engines/browser/pool.ts";
import { ScriptOutput, type ScriptOutcome } from "../../interact/output.ts";
import type { ClosedSession } from "../../interact/session-record.ts";
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

/**
 * What a stopped prompt or script is told when its session was dropped for it (interact/page-abandon.ts): its page
 * was still running JavaScript that did not return, so the page is not used again; `profileSaved` says whether the
 * session's profile was saved first (undefined: it had none to save).
 */
export function droppedMessage(profileSaved: boolean | undefined): string {
  const profile = profileSaved === undefined ? "" : profileSaved ? " Its profile was saved first." : " Its profile could not be saved.";
  return `The session was closed: its page was still running JavaScript that did not return (a busy loop?) and did not answer, so it is not used again.${profile}`;
}

/** Upstream's `error` of a failed or stopped run: its stderr, or "Execution failed" when that is empty. */
export function failureOf(exitCode: number, killed: boolean, stderr: string): { error: string } | Record<string, never> {
  return exitCode !== 0 || killed ? { error: stderr || "Execution failed" } : {};
}

/** Runs the script's work in the session (opening it, for a scrape's, within `signal`: the script's time). */
export type RunInSession = (work: (lease: Lease, stop: AbortSignal) => Promise<ScriptOutcome>, signal: AbortSignal) => Promise<ScriptOutcome>;

/**
 * Runs `code` through `inSession` within `timeoutMs` (or until the client leaves); `close()` ends the session when
 * the script asked to (`agent-browser close`), and what it tells of the profile is answered as DELETE answers it
 * (`profileSaved`, absent for a session without a profile to save, or one that had already ended). Time that ran out
 * before the script started (opening the session) is an answer too: `killed`, nothing charged.
 */
export async function runCode(o: { services: Services; who: KeyIdentity; request: Request; code: string; language: "bash" | "node" | "python"; timeoutMs: number; inSession: RunInSession; close: () => Promise<ClosedSession | undefined> }) {
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
  const closed = ctx?.closeRequested ? await o.close() : undefined;
  // A script stopped from outside (124) is told why here; one killed over the page memory limit (137) said so itself.
  let stderr = outcome.killed && outcome.exitCode === 124 ? `${outcome.stderr}${stoppedMessage(signal.aborted, o.timeoutMs)}\n` : outcome.stderr;
  if (outcome.stuck) stderr += `${droppedMessage(outcome.profileSaved)}\n`;
  return {
    success: true,
    output: outcome.stdout,
    // JavaScript's value only (a script that ended without one, by a throw or its time, has none): what it printed is
    // not its value. Bash and Python have no value of their own: their stdout stands in, as upstream's.
    result: o.language === "node" ? (outcome.result ?? "") : outcome.stdout,
    stdout: outcome.stdout,
    stderr,
    exitCode: outcome.exitCode,
    killed: outcome.killed,
    ...(outcome.truncated ? { truncated: true } : {}),
    ...(outcome.resultTruncated ? { resultTruncated: true } : {}),
    ...(closed?.profileSaved !== undefined ? { profileSaved: closed.profileSaved } : {}),
    ...failureOf(outcome.exitCode, outcome.killed, stderr),
  };
}
