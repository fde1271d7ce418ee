/**
 * @module cli/keys
 * `crawlbox keys create|list|revoke`: key management on the local database. Works while the server runs
 * (SQLite WAL lets both open the file).
 */
import { KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { openDatabase } from "../storage/database.ts";
import { UsageError, type ParsedArgs } from "./args.ts";

/** Runs a keys subcommand; returns the process exit code. */
export function runKeys(config: Config, args: ParsedArgs, out: (s: string) => void): number {
  const [, sub, id] = args.positional;
  const db = openDatabase(config.dataDir);
  try {
    const store = new KeyStore(db);
    switch (sub) {
      case "create": {
        const quotaFlag = args.flags.quota;
        let quota: number | null = null;
        if (quotaFlag !== undefined) {
          quota = Number(quotaFlag);
          if (!Number.isInteger(quota) || quota < 0) throw new UsageError("--quota must be a whole number of credits (0 = unlimited)");
        }
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
      case "revoke": {
        if (!id) throw new UsageError("keys revoke needs a key id (see crawlbox keys list)");
        if (!store.revoke(id)) {
          process.stderr.write(`No active key with id ${id}.\n`);
          return 1;
        }
        out(`revoked ${id}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown keys command "${sub ?? ""}"; use create, list or revoke`);
    }
  } finally {
    db.close();
  }
}
