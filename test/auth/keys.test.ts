import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { CreditLedger } from "../../src/auth/credits.ts";
import { generateKey, hashKey, KEY_PREFIX, KeyStore } from "../../src/auth/keys.ts";
import { InsufficientCreditsError } from "../../src/errors.ts";
import { migrate } from "../../src/storage/database.ts";

function db(): Database {
  const d = new Database(":memory:", { strict: true });
  migrate(d);
  return d;
}

describe("API keys", () => {
  test("keys carry the prefix and at least 128 random bits", () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey()));
    expect(keys.size).toBe(200);
    for (const k of keys) {
      expect(k.startsWith(KEY_PREFIX)).toBe(true);
      const random = k.slice(KEY_PREFIX.length);
      expect(random).toMatch(/^[0-9A-Za-z]{32}$/);
      // 32 base62 characters = 32 * log2(62) ≈ 190 bits.
      expect(random.length * Math.log2(62)).toBeGreaterThan(128);
    }
  });

  test("only the SHA-256 hash is stored, never the key", () => {
    const d = db();
    const store = new KeyStore(d);
    const { key, record } = store.create("ci");
    const dump = JSON.stringify(d.query("SELECT * FROM api_keys").all());
    expect(dump).not.toContain(key);
    expect(dump).toContain(hashKey(key));
    expect(store.verify(key)).toEqual({ keyId: record.id, creditQuota: null });
    expect(store.verify(key + "x")).toBeUndefined();
  });

  test("revoked keys stop working and list shows them", () => {
    const store = new KeyStore(db());
    const a = store.create("a");
    const b = store.create("b", 10);
    expect(store.revoke(a.record.id)).toBe(true);
    expect(store.revoke(a.record.id)).toBe(false);
    expect(store.verify(a.key)).toBeUndefined();
    expect(store.verify(b.key)?.creditQuota).toBe(10);
    const listed = store.list();
    expect(listed.map((r) => r.id).sort()).toEqual([a.record.id, b.record.id].sort());
    expect(listed.find((r) => r.id === a.record.id)?.revokedAt).not.toBeNull();
    expect(store.count()).toBe(1);
  });

  test("isActive: a stored key until revoked, an environment key while configured; unknown ids are not", () => {
    const d = db();
    const store = new KeyStore(d, ["env-key-123456"]);
    const stored = store.create("s");
    const envId = store.verify("env-key-123456")!.keyId;
    expect(store.isActive(stored.record.id)).toBe(true);
    expect(store.isActive(envId)).toBe(true);
    store.revoke(stored.record.id);
    expect(store.isActive(stored.record.id)).toBe(false);
    // The same database without the environment key (a restart after it was removed from CRAWLBOX_API_KEYS).
    expect(new KeyStore(d, ["other-key-123456"]).isActive(envId)).toBe(false);
    expect(store.isActive("key_unknown")).toBe(false);
    expect(store.isActive("anonymous")).toBe(false);
  });

  test("environment keys are accepted and identified without exposing them", () => {
    const store = new KeyStore(db(), ["env-key-123456"]);
    const who = store.verify("env-key-123456");
    expect(who?.keyId).toStartWith("env_");
    expect(who?.keyId).not.toContain("env-key");
    expect(store.verify("env-key-1234567")).toBeUndefined();
    expect(store.count()).toBe(1);
  });
});

describe("credits", () => {
  test("usage is counted per key and quotas are enforced with 402", () => {
    const d = db();
    const ledger = new CreditLedger(d, 0, () => Date.UTC(2026, 10, 22));
    const limited = { keyId: "k1", creditQuota: 3 };
    const unlimited = { keyId: "k2", creditQuota: null };
    ledger.charge(limited, 2);
    ledger.assertCanSpend(limited, 1);
    ledger.charge(limited, 1);
    expect(() => ledger.assertCanSpend(limited, 1)).toThrow(InsufficientCreditsError);
    ledger.charge(unlimited, 1000);
    ledger.assertCanSpend(unlimited, 1);
    expect(ledger.usage(limited)).toEqual({ creditsUsed: 3, tokensUsed: 0, quota: 3, remainingCredits: 0 });
    expect(ledger.usage(unlimited).remainingCredits).toBeNull();
    expect(ledger.history(limited)).toEqual([{ month: "2026-11", credits: 3, tokens: 0 }]);
  });

  test("charges are written behind: counted by every read at once, in the table on the next turn or on flush", async () => {
    const d = db();
    const ledger = new CreditLedger(d, 0, () => Date.UTC(2026, 10, 22));
    const rows = () => d.query("SELECT key_id, day, credits, tokens FROM credit_usage ORDER BY key_id").all();
    const who = { keyId: "k1", creditQuota: 5 };
    ledger.charge(who, 2, 10);
    ledger.charge(who, 1);
    ledger.charge({ keyId: "k2", creditQuota: null }, 4);
    // Not written while the request that charged is still answering...
    expect(rows()).toEqual([]);
    // ...but counted: usage, the quota and the history see the queued charges.
    expect(ledger.usage(who)).toEqual({ creditsUsed: 3, tokensUsed: 10, quota: 5, remainingCredits: 2 });
    expect(() => ledger.assertCanSpend(who, 3)).toThrow(InsufficientCreditsError);
    expect(ledger.history(who)).toEqual([{ month: "2026-11", credits: 3, tokens: 10 }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows()).toEqual([
      { key_id: "k1", day: "2026-11-22", credits: 3, tokens: 10 },
      { key_id: "k2", day: "2026-11-22", credits: 4, tokens: 0 },
    ]);
    // Counted once: from the table now, not again from the queue.
    expect(ledger.usage(who).creditsUsed).toBe(3);
    ledger.charge(who, 1);
    ledger.flush();
    expect(rows()[0]).toEqual({ key_id: "k1", day: "2026-11-22", credits: 4, tokens: 10 });
    expect(ledger.history(who)).toEqual([{ month: "2026-11", credits: 4, tokens: 10 }]);
  });

  test("a charge inside a transaction is part of it: written at its commit, gone with its rollback", () => {
    const d = db();
    const ledger = new CreditLedger(d, 0, () => Date.UTC(2026, 10, 22));
    const who = { keyId: "k", creditQuota: null };
    const credits = () => (d.query("SELECT SUM(credits) AS n FROM credit_usage").get() as { n: number | null }).n;
    d.exec("BEGIN IMMEDIATE");
    ledger.charge(who, 2);
    d.exec("COMMIT");
    expect(credits()).toBe(2);
    d.exec("BEGIN IMMEDIATE");
    ledger.charge(who, 5);
    d.exec("ROLLBACK");
    expect(credits()).toBe(2);
    expect(ledger.usage(who).creditsUsed).toBe(2);
  });

  test("queued charges of a month not in the table yet join the history in order", () => {
    let t = Date.UTC(2026, 9, 30);
    const d = db();
    const ledger = new CreditLedger(d, 0, () => t);
    const who = { keyId: "k", creditQuota: null };
    ledger.charge(who, 2);
    ledger.flush();
    t = Date.UTC(2026, 10, 1);
    ledger.charge(who, 5, 3);
    expect(ledger.history(who)).toEqual([
      { month: "2026-10", credits: 2, tokens: 0 },
      { month: "2026-11", credits: 5, tokens: 3 },
    ]);
  });

  test("held credits count against the quota until released; raising a hold checks again", () => {
    const ledger = new CreditLedger(db(), 0);
    const who = { keyId: "k", creditQuota: 3 };
    const first = ledger.hold(who, 2);
    // Two of three held: a concurrent request that wants two more is refused, one more fits.
    expect(() => ledger.hold(who, 2)).toThrow(InsufficientCreditsError);
    expect(() => ledger.assertCanSpend(who, 2)).toThrow(InsufficientCreditsError);
    const second = ledger.hold(who, 1);
    // A hold is not usage.
    expect(ledger.usage(who)).toMatchObject({ creditsUsed: 0, remainingCredits: 3 });
    // Raising counts the others' holds, not its own.
    expect(() => first.raise(3)).toThrow(InsufficientCreditsError);
    second.release();
    second.release();
    first.raise(3);
    expect(() => ledger.assertCanSpend(who, 1)).toThrow(InsufficientCreditsError);
    // The work charges what it spent, then gives the hold back.
    ledger.charge(who, 2);
    first.release();
    ledger.assertCanSpend(who, 1);
    expect(() => ledger.hold(who, 2)).toThrow(InsufficientCreditsError);
    // A released hold still checks when raised (a conversion going on past its request), and holds nothing.
    expect(() => first.raise(2)).toThrow(InsufficientCreditsError);
    first.raise(1);
    ledger.hold(who, 1).release();
  });

  test("keys without a quota hold nothing", () => {
    const ledger = new CreditLedger(db(), 0);
    const who = { keyId: "k", creditQuota: null };
    const hold = ledger.hold(who, 1e9);
    hold.raise(2e9);
    ledger.assertCanSpend(who, 1e9);
    hold.release();
  });

  test("a default quota applies to keys without their own", () => {
    const ledger = new CreditLedger(db(), 1);
    const who = { keyId: "k", creditQuota: null };
    ledger.charge(who, 1);
    expect(() => ledger.assertCanSpend(who)).toThrow(InsufficientCreditsError);
  });
});
