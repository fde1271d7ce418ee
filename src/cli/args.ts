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
