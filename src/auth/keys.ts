/**
 * @module auth/keys
 * API keys. A key is `fc-` plus 32 base62 characters (≈190 random bits); the `fc-` prefix keeps tools that
 * expect Firecrawl-looking keys happy and lets secret scanners recognise it. Only the SHA-256 of a key is
 * stored; lookups go by hash, and keys from `CRAWLBOX_API_KEYS` are compared by hashing both sides and using a
 * constant-time compare, so timing reveals nothing about a key (reliability.md B6).
 */
import type { Database } from "bun:sqlite";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every key starts with this. */
export const KEY_PREFIX = "fc-";
const KEY_RANDOM_CHARS = 32;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The key id every request runs as when authentication is off (`CRAWLBOX_AUTH=off`, server/auth.ts). */
export const ANONYMOUS_KEY_ID = "anonymous";

/** Who is calling: the key's public id (never the key) and its credit quota (null = default). */
export interface KeyIdentity {
  keyId: string;
  creditQuota: number | null;
}

/** A stored key as listed by `crawlbox keys list`. */
export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
  creditQuota: number | null;
}

/** Hex SHA-256 of a key. */
export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new random key. Rejection sampling keeps every base62 character equally likely. */
export function generateKey(): string {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + KEY_RANDOM_CHARS) {
    for (const byte of randomBytes(KEY_RANDOM_CHARS)) {
      if (byte < 248 && out.length < KEY_PREFIX.length + KEY_RANDOM_CHARS) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** The stored keys plus the ones configured in the environment. */
export class KeyStore {
  private readonly envHashes: Buffer[];
  /** The ids of the configured environment keys (`env_<hash prefix>`, as {@link verify} names them). */
  private readonly envIds: ReadonlySet<string>;

  constructor(
    private readonly db: Database,
    envKeys: readonly string[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.envHashes = envKeys.map((k) => Buffer.from(hashKey(k), "hex"));
    this.envIds = new Set(envKeys.map((k) => envKeyId(hashKey(k))));
  }

  /** Creates and stores a key; the returned `key` is shown once and never stored. */
  create(name = "", creditQuota: number | null = null): { key: string; record: KeyRecord } {
    const key = generateKey();
    const record: KeyRecord = {
      id: `key_${randomBytes(6).toString("hex")}`,
      name,
      prefix: key.slice(0, KEY_PREFIX.length + 4),
      createdAt: this.now(),
      revokedAt: null,
      creditQuota,
    };
    this.db
      .query("INSERT INTO api_keys (id, hash, name, prefix, created_at, credit_quota) VALUES (?, ?, ?, ?, ?, ?)")
      .run(record.id, hashKey(key), name, record.prefix, record.createdAt, creditQuota);
    return { key, record };
  }

  /** All stored keys, newest first, revoked ones included. */
  list(): KeyRecord[] {
    const rows = this.db
      .query<
        { id: string; name: string; prefix: string; created_at: number; revoked_at: number | null; credit_quota: number | null },
        []
      >("SELECT id, name, prefix, created_at, revoked_at, credit_quota FROM api_keys ORDER BY created_at DESC, id")
      .all();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
      creditQuota: r.credit_quota,
    }));
  }

  /**
   * Sets the credit quota of the active key with this id (0: unlimited, whatever the default); false when no active
   * key has it. Usage is kept: the quota is a lifetime total, so raising it is how a key is granted more credits.
   * A running server reads the new quota on the key's next request (keys are looked up per request).
   */
  setQuota(id: string, creditQuota: number): boolean {
    return this.db.query("UPDATE api_keys SET credit_quota = ? WHERE id = ? AND revoked_at IS NULL").run(creditQuota, id).changes > 0;
  }

  /** Revokes the key with this id; false when no active key has it. */
  revoke(id: string): boolean {
    return this.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(this.now(), id).changes > 0;
  }

  /** Number of active stored keys plus configured ones. */
  count(): number {
    const row = this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL").get();
    return (row?.n ?? 0) + this.envHashes.length;
  }

  /**
   * The identity of a key id recorded earlier (a job's owner), with its current quota. Revoked keys keep their
   * identity here (a job's results and errors stay readable); whether one may still act is {@link isActive}, which
   * the jobs ask before each page (jobs/owner-active.ts): a revoked key's jobs end `failed` with `KEY_REVOKED`.
   */
  identityOf(keyId: string): KeyIdentity {
    const row = this.db.query<{ credit_quota: number | null }, [string]>("SELECT credit_quota FROM api_keys WHERE id = ?").get(keyId);
    return { keyId, creditQuota: row?.credit_quota ?? null };
  }

  /**
   * Whether `keyId` may still act: a stored key not revoked, or a key configured in `CRAWLBOX_API_KEYS` now. A key
   * removed from the environment is gone as a revoked one is (nobody can present it any more), so work it left
   * scheduled (a monitor) must stop, not run on unowned; `anonymous` is not a key and is not answered here.
   */
  isActive(keyId: string): boolean {
    if (this.envIds.has(keyId)) return true;
    const row = this.db.query<{ r: number | null }, [string]>("SELECT revoked_at AS r FROM api_keys WHERE id = ?").get(keyId);
    return !!row && row.r === null;
  }

  /** The identity behind `key`, or undefined when the key is unknown or revoked. */
  verify(key: string): KeyIdentity | undefined {
    const hash = hashKey(key);
    const digest = Buffer.from(hash, "hex");
    let envMatch = false;
    for (const h of this.envHashes) envMatch = timingSafeEqual(h, digest) || envMatch;
    if (envMatch) return { keyId: envKeyId(hash), creditQuota: null };
    const row = this.db
      .query<{ id: string; credit_quota: number | null }, [string]>(
        "SELECT id, credit_quota FROM api_keys WHERE hash = ? AND revoked_at IS NULL",
      )
      .get(hash);
    return row ? { keyId: row.id, creditQuota: row.credit_quota } : undefined;
  }
}

/** The public id of an environment key, from its hex SHA-256 (a prefix: the id never reveals the key). */
function envKeyId(hash: string): string {
  return `env_${hash.slice(0, 12)}`;
}
