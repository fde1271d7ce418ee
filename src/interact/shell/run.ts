/**
 * @module interact/shell/run
 * Runs browser `code` in `language: "bash"` on a session's page (docs/interact.md): the script is read with bash's
 * quoting (interact/shell/tokenize.ts) and its commands are carried out one by one by crawlbox itself, never by a
 * shell: `agent-browser <command>` (interact/shell/agent-browser.ts), and the builtins such scripts use around it
 * (`echo`, `sleep`, `true`, `false`, `:`, `set -e`, `exit`). `&&`, `||` and `;` chain them as in bash, and the
 * exit status is the last command's. Anything else is "command not found" (127), as a shell without it would say.
 */
import { raceAbort, sleep } from "../../scheduler/abortable.ts";
import { ScriptOutput, type ScriptOutcome } from "../output.ts";
import { BROWSER_GONE, PageOpError } from "../page-ops.ts";
import { agentBrowser, CommandError, type ShellContext } from "./agent-browser.ts";
import { ShellSyntaxError, tokenize, type Statement } from "./tokenize.ts";

/** Commands one script may run (a loop cannot be written, but a long script can). */
export const MAX_COMMANDS = 1_000;
/** Longest one `sleep` or `agent-browser wait MS` (a script's own time limit is at most this too). */
const MAX_SLEEP_MS = 300_000;

/** `echo -e`'s escapes: \n, \t, \r, \\, \a, \b, \v, \f, \e. */
function unescape(s: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", a: "\x07", b: "\b", v: "\v", f: "\f", e: "\x1b" };
  return s.replace(/\\([ntr\\abvfe])/g, (_, c: string) => map[c]!);
}



/** `set` flags: `-e` (stop at the first failure) is kept; `-u`, `-x`, `-o pipefail` are accepted (nothing expands or pipes). */
function setFlags(args: string[], state: { errexit: boolean }): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-o" || a === "+o") {
      if (!["pipefail", "errexit", "nounset", "xtrace"].includes(args[i + 1] ?? "")) throw new CommandError(`set: ${args[i + 1] ?? ""}: invalid option name`, 2);
      if (args[++i] === "errexit") state.errexit = a === "-o";
    } else if (/^[-+][euxo]+$/.test(a)) {
      if (a.includes("e")) state.errexit = a.startsWith("-");
      if (a.endsWith("o")) {
        if (!["pipefail", "errexit", "nounset", "xtrace"].includes(args[i + 1] ?? "")) throw new CommandError(`set: ${args[i + 1] ?? ""}: invalid option name`, 2);
        i++;
      }
    } else throw new CommandError(`set: ${a}: invalid option`, 2);
  }
}

/** Carries out `code` on `ctx`'s page until it ends or `signal` aborts; see the module comment. */
export async function runScript(ctx: ShellContext, code: string, signal: AbortSignal): Promise<ScriptOutcome> {
  const io = new ScriptOutput();
  const { out, err } = io;
  const done = (exitCode: number, extra: Partial<ScriptOutcome> = {}) => io.end(exitCode, extra);
  let statements: Statement[];
  try {
    statements = tokenize(code);
  } catch (e) {
    if (!(e instanceof ShellSyntaxError)) throw e;
    err.line(`bash: ${e.message}`);
    return done(2);
  }
  if (statements.length > MAX_COMMANDS) {
    err.line(`bash: ${statements.length} commands: at most ${MAX_COMMANDS} run in one execution`);
    return done(2);
  }
  const state = { errexit: false };
  let status = 0;
  let joiner: Statement["next"] = ";";
  let inPage = false;
  try {
    for (const st of statements) {
      const skip = (joiner === "&&" && status !== 0) || (joiner === "||" && status === 0);
      // As bash's -e: a failure that an && or || after it handles does not stop the script.
      const chained = st.next !== ";";
      joiner = st.next;
      if (skip) continue;
      if (signal.aborted) return done(124, { killed: true });
      const [name, ...args] = st.argv as [string, ...string[]];
      try {
        switch (name) {
          case "agent-browser": {
            const json = args.includes("--json");
            const plain = args.filter((a) => a !== "--json");
            if (plain[0] === "wait" && plain.length === 2 && /^\d+$/.test(plain[1]!)) {
              // A timed wait has nothing to do with the page: stopped there, the session is kept.
              await sleep(Math.min(Number(plain[1]), MAX_SLEEP_MS), signal);
              if (json) out.line(JSON.stringify({ success: true, data: null }));
              status = 0;
              break;
            }
            inPage = true;
            const printed = await raceAbort(agentBrowser(ctx, plain), signal);
            inPage = false;
            if (json) out.line(JSON.stringify({ success: true, data: printed.data ?? printed.text ?? null }));
            else if (printed.text) out.line(printed.text);
            status = 0;
            break;
          }
          case "echo": {
            let i = 0;
            let newline = true;
            let escapes = false;
            for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
              if (args[i]!.includes("n")) newline = false;
              if (args[i]!.includes("e")) escapes = true;
              if (args[i]!.includes("E")) escapes = false;
            }
            const text = args.slice(i).join(" ");
            out.write((escapes ? unescape(text) : text) + (newline ? "\n" : ""));
            status = 0;
            break;
          }
          case "true": case ":": status = 0; break;
          case "false": status = 1; break;
          case "sleep": {
            const s = Number((args[0] ?? "").replace(/s$/, ""));
            if (!args[0] || !Number.isFinite(s) || s < 0) throw new CommandError("sleep: invalid time interval", 1);
            await sleep(Math.min(s * 1000, MAX_SLEEP_MS), signal);
            status = 0;
            break;
          }
          case "set": setFlags(args, state); status = 0; break;
          case "exit": {
            if (args[0] !== undefined && !/^-?\d+$/.test(args[0])) {
              err.line(`bash: exit: ${args[0]}: numeric argument required`);
              return done(2);
            }
            const n = args[0] === undefined ? status : Number(args[0]);
            return done(((n % 256) + 256) % 256);
          }
          default:
            err.line(`bash: line ${st.line}: ${name}: command not found (crawlbox runs agent-browser commands and echo, sleep, true, false, set, exit)`);
            status = 127;
        }
      } catch (e) {
        if (signal.aborted) throw e;
        inPage = false;
        const message = (e as Error).message ?? String(e);
        if (!(e instanceof PageOpError) && BROWSER_GONE.test(message)) throw e;
        const json = name === "agent-browser" && args.includes("--json");
        const text = e instanceof PageOpError ? message : message.split("\n")[0]!.slice(0, 500);
        if (json) out.line(JSON.stringify({ success: false, error: text }));
        err.line(name === "agent-browser" ? `✗ ${text}` : `bash: ${text}`);
        status = e instanceof CommandError ? e.exitCode : 1;
      }
      if (status !== 0 && state.errexit && !chained) return done(status);
    }
    return done(status);
  } catch (e) {
    if (!signal.aborted) throw e;
    return done(124, { killed: true, stuck: inPage });
  }
}
