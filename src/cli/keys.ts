/**
 * @module cli/keys
 * `crawlbox keys create|list|quota|revoke`: key management on the local database. Works while the server runs
 * (SQLite WAL lets both open the file).
 */
import { KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { openDatabase } from "../storage/database.ts";
import { UsageError, type ParsedArgs } from "./args.ts";
import { usingDataDir } from "./data-dir.ts";

/**
 * `--quota`: decimal digits only, at most 2^53 - 1 (an exact integer in the database). `Number()` would read "" and
 * " " as 0, which is an unlimited key, and take "1e3", "0x10" and 20-digit numbers it cannot hold. 0 is allowed:
 * it makes the key unlimited even when CRAWLBOX_DEFAULT_CREDIT_QUOTA is set (docs/credits.md). Undefined: no flag.
 */
export function parseQuota(flag: string | true | undefined): number | null {
  if (flag === undefined) return null;
  const quota = typeof flag === "string" && /^\d+$/.test(flag) ? Number(flag) : NaN;
  if (!Number.isSafeInteger(quota)) {
    throw new UsageError(`--quota must be a whole number of credits from 0 (unlimited) to ${Number.MAX_SAFE_INTEGER}, got "${flag}"`);
  }
  return quota;
}

/** Runs a keys subcommand; returns the process exit code. */
export async function runKeys(config: Config, args: ParsedArgs, out: (s: string) => void): Promise<number> {
  const [, sub, id] = args.positional;
  // Usage errors first: a bad command line opens (or creates) no database.
  const quota = sub === "create" || sub === "quota" ? parseQuota(args.flags.quota) : null;
  if ((sub === "revoke" || sub === "quota") && !id) throw new UsageError(`keys ${sub} needs a key id (see crawlbox keys list)`);
  if (sub === "quota" && quota === null) throw new UsageError("keys quota needs --quota <credits> (0 = unlimited)");
  const db = await usingDataDir(config.dataDir, () => openDatabase(config.dataDir));
  try {
    const store = new KeyStore(db);
    switch (sub) {
      case "create": {
        const name = typeof args.flags.name === "string" ? args.flags.name : "";
        const { key, record } = store.create(name, quota);
        out(key);
        process.stderr.write(
          `Created ${record.id}${name ? ` (${name})` : ""}. The key above is shown only once; ` +
            `crawlbox keeps only its SHA-256 hash in ${config.dataDir}.\n`,
        );
        return 0;
      }
      case "list": {
        const rows = store.list();
        if (rows.length === 0) {
          out("no keys");
          return 0;
        }
        out(["id", "prefix", "name", "created", "revoked", "quota"].join("\t"));
        for (const r of rows) {
          out(
            [
              r.id,
              `${r.prefix}…`,
              r.name || "-",
              new Date(r.createdAt).toISOString(),
              r.revokedAt ? new Date(r.revokedAt).toISOString() : "-",
              r.creditQuota ?? "default",
            ].join("\t"),
          );
        }
        return 0;
      }
      case "quota": {
        if (!store.setQuota(id, quota!)) {
          process.stderr.write(`No active key with id ${id}.\n`);
          return 1;
        }
        out(`${id}: quota ${quota === 0 ? "unlimited" : `${quota} credits`}`);
        return 0;
      }
      case "revoke": {
        if (!store.revoke(id)) {
          process.stderr.write(`No active key with id ${id}.\n`);
          return 1;
        }
        out(`revoked ${id}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown keys command "${sub ?? ""}"; use create, list, quota or revoke`);
    }
  } finally {
    db.close();
  }
}
