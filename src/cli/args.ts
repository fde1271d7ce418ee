/**
 * @module cli/args
 * A tiny argument parser for the CLI: positional words plus `--flag value`, `--flag=value` and bare `--flag`
 * (true). Enough for four commands; no dependency.
 */

/** Parsed command line. */
export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
}

/** Parses `argv` (without the executable and script). Flags that take no value must be listed in `booleans`. */
export function parseArgs(argv: readonly string[], booleans: ReadonlySet<string> = new Set()): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) {
        flags[a.slice(2, eq)] = a.slice(eq + 1);
      } else {
        const name = a.slice(2);
        const next = argv[i + 1];
        if (!booleans.has(name) && next !== undefined && !next.startsWith("--")) {
          flags[name] = next;
          i++;
        } else flags[name] = true;
      }
    } else if (a === "-h") flags.help = true;
    else if (a === "-v") flags.version = true;
    else positional.push(a);
  }
  return { positional, flags };
}

/** Thrown for a wrong command line; main prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** The flags one command takes: those followed by a value, and those that stand alone. */
export interface FlagSpec {
  values?: readonly string[];
  booleans?: readonly string[];
}

/** Flags every command takes (they end the run before the command does anything). */
const GLOBAL_FLAGS = new Set(["help", "version"]);

/**
 * Throws {@link UsageError} for a flag `spec` does not name, a value flag given without its value, or a flag that
 * stands alone given one. A flag that was ignored would leave the user believing it worked (`serve --port 8080`
 * serving on 3002; `keys create --quota` creating a key with a quota of 1).
 */
export function assertKnownFlags(command: string, flags: ParsedArgs["flags"], spec: FlagSpec): void {
  for (const [name, value] of Object.entries(flags)) {
    if (GLOBAL_FLAGS.has(name)) continue;
    if (spec.values?.includes(name)) {
      if (value === true) throw new UsageError(`--${name} needs a value`);
    } else if (spec.booleans?.includes(name)) {
      if (value !== true) throw new UsageError(`--${name} takes no value`);
    } else {
      throw new UsageError(`${command} has no option --${name}${command === "serve" ? " (the server is configured by environment variables)" : ""}`);
    }
  }
}
