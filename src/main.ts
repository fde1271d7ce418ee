#!/usr/bin/env bun
/**
 * @module main
 * The crawlbox command line: `serve` (default), `scrape`, `keys`, `--help`, `--version`. The same entry point
 * is compiled into `dist/crawlbox`.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { assertKnownFlags, parseArgs, UsageError, type FlagSpec } from "./cli/args.ts";
import { DataDirError } from "./cli/data-dir.ts";
import { assertSandboxHonoured } from "./cli/sandbox-check.ts";
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
  "keys quota": { values: ["quota"], words: 3 },
  "keys revoke": { words: 3 },
};

/**
 * Permission bits removed from everything this process creates: the data directory and all in it (database, WAL,
 * stored files, browser profiles with their cookies) are the crawlbox user's alone, 0700 folders and 0600 files.
 * Set before anything is created; a folder the operator made keeps its mode (serve warns when others may read it).
 */
const PRIVATE_UMASK = 0o077;

async function main(argv: string[]): Promise<number> {
  process.umask(PRIVATE_UMASK);
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
      throw new UsageError(command === "keys" ? `unknown keys command "${args.positional[1] ?? ""}"; use create, list, quota or revoke` : `unknown command "${command}"`);
    }
    assertKnownFlags(name, args.flags, spec);
    const extra = args.positional.slice(spec.words)[0];
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" for ${name}`);
    if (name === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    const config = loadConfig();
    // Only the commands that may start Chromium; the server also asks Chromium, once, before it listens.
    if (command === "serve" || command === "scrape") await assertSandboxHonoured(config, { probe: command === "serve" });
    switch (command) {
      case "serve":
        return await runServe(config);
      case "scrape":
        return await runScrape(config, args, out);
      case "keys":
        return await runKeys(config, args, out);
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
    if (err instanceof DataDirError) {
      process.stderr.write(`crawlbox: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

// `serve` resolves only after a clean shutdown, so exiting here never cuts a request short.
process.exit(await main(process.argv.slice(2)));
