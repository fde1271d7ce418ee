#!/usr/bin/env bun
/**
 * @module main
 * The crawlbox command line: `serve` (default), `scrape`, `keys`, `--help`, `--version`. The same entry point
 * is compiled into `dist/crawlbox`.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { assertKnownFlags, parseArgs, UsageError, type FlagSpec } from "./cli/args.ts";
import { USAGE } from "./cli/help.ts";
import { runKeys } from "./cli/keys.ts";
import { runScrape } from "./cli/scrape.ts";
import { runServe } from "./cli/serve.ts";
import { VERSION } from "./version.ts";

const BOOLEAN_FLAGS = new Set(["help", "version", "full-page"]);

/**
 * The options of each command (and of each `keys` subcommand), and how many words it takes (the command's own
 * included: `scrape <url>` is 2); anything else is a usage error, found before the configuration is read or the
 * database opened.
 */
const COMMANDS: Record<string, FlagSpec & { words: number }> = {
  serve: { words: 1 },
  help: { words: 1 },
  scrape: { values: ["format", "timeout"], booleans: ["full-page"], words: 2 },
  "keys create": { values: ["name", "quota"], words: 2 },
  "keys list": { words: 2 },
  "keys revoke": { words: 3 },
};

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, BOOLEAN_FLAGS);
  if (args.flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.flags.version) {
    process.stdout.write(`crawlbox ${VERSION}\n`);
    return 0;
  }
  const command = args.positional[0] ?? "serve";
  const out = (s: string) => process.stdout.write(s.endsWith("\n") ? s : s + "\n");
  try {
    const name = command === "keys" ? `keys ${args.positional[1] ?? ""}`.trim() : command;
    const spec = COMMANDS[name];
    if (!spec) {
      throw new UsageError(command === "keys" ? `unknown keys command "${args.positional[1] ?? ""}"; use create, list or revoke` : `unknown command "${command}"`);
    }
    assertKnownFlags(name, args.flags, spec);
    const extra = args.positional.slice(spec.words)[0];
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" for ${name}`);
    if (name === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    const config = loadConfig();
    switch (command) {
      case "serve":
        return await runServe(config);
      case "scrape":
        return await runScrape(config, args, out);
      case "keys":
        return runKeys(config, args, out);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`crawlbox: ${err.message}\n`);
      return 78; // EX_CONFIG
    }
    if (err instanceof UsageError) {
      process.stderr.write(`crawlbox: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

// `serve` resolves only after a clean shutdown, so exiting here never cuts a request short.
process.exit(await main(process.argv.slice(2)));
