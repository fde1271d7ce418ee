/**
 * The command line refuses options a command does not take (exit 2, with the usage), instead of ignoring them:
 * `serve --port 8080` must not quietly serve on 3002, nor `keys create --quota` create a key with a quota of 1.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertKnownFlags, parseArgs, UsageError } from "../../src/cli/args.ts";

const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-flags-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), ...args], {
    env: { ...process.env, CRAWLBOX_DATA_DIR: dataDir, PORT: "0", CRAWLBOX_LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr, stdout };
}

describe("unknown or malformed options exit 2 with the usage", () => {
  test.each([
    [["serve", "--port", "8080"], "serve has no option --port (the server is configured by environment variables)"],
    [["--port=8080"], "serve has no option --port"],
    [["keys", "create", "--quota"], "--quota needs a value"],
    [["keys", "create", "--name", "--quota", "5"], "--name needs a value"],
    [["keys", "list", "--bogus"], "keys list has no option --bogus"],
    [["scrape", "http://127.0.0.1:9/", "--formats", "html"], "scrape has no option --formats"],
    [["scrape", "http://127.0.0.1:9/", "--full-page=yes"], "--full-page takes no value"],
    // Words a command does not take, and bad values, are refused too (they were ignored, or reported as an API error).
    [["scrape", "http://127.0.0.1:9/", "extra"], 'unexpected argument "extra" for scrape'],
    [["keys", "list", "extra"], 'unexpected argument "extra" for keys list'],
    [["serve", "foo"], 'unexpected argument "foo" for serve'],
    [["scrape", "http://127.0.0.1:9/", "--timeout", "abc"], "--timeout must be a whole number of milliseconds"],
    [["keys", "bogus"], 'unknown keys command "bogus"'],
    // Values Number() would read: "" and " " as 0 (an unlimited key), the rest as numbers nobody typed.
    ...["", " ", "1e3", "0x10", "99999999999999999999", "9007199254740992", "-1", "1.5"].map((q) => [["keys", "create", "--quota", q], `--quota must be a whole number of credits from 0 (unlimited) to 9007199254740991, got "${q}"`]),
    // The API's bounds (1000 to 300000 ms): a usage error, not the API's 400 with its schema, nor a deadline cut.
    ...["0", "500", "999", "300001", "99999999999"].map((t) => [["scrape", "http://127.0.0.1:9/", "--timeout", t], `--timeout must be a whole number of milliseconds from 1000 to 300000, got "${t}"`]),
  ])("%p", async (args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message as string);
    expect(r.stderr).toContain("Usage:");
  });

  test("a key is created only with a well-formed command line", async () => {
    const bad = await run(["keys", "create", "--quota"]);
    expect(bad.code).toBe(2);
    expect((await run(["keys", "list"])).stdout.trim()).toBe("no keys");
    const good = await run(["keys", "create", "--name", "ok", "--quota", "5"]);
    expect(good.code).toBe(0);
    expect((await run(["keys", "list"])).stdout).toContain("\tok\t");
  });
});

test("a bad --quota or --timeout is found before the data folder is made or opened; --quota 0 (unlimited) is accepted", async () => {
  const fresh = join(dataDir, "quota-never-made");
  for (const args of [["keys", "create", "--quota", ""], ["scrape", "http://127.0.0.1:9/", "--timeout", "0"]]) {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), ...args], {
      env: { ...process.env, CRAWLBOX_DATA_DIR: fresh },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(2);
    expect(existsSync(fresh)).toBe(false);
  }
  const zero = await run(["keys", "create", "--name", "unlimited", "--quota", "0"]);
  expect(zero.code).toBe(0);
  expect((await run(["keys", "list"])).stdout).toMatch(/\tunlimited\t.*\t0\n/);
  expect((await run(["keys", "create", "--quota", String(Number.MAX_SAFE_INTEGER)])).code).toBe(0);
});

test("--help and --version are accepted with any command", () => {
  expect(() => assertKnownFlags("serve", parseArgs(["serve", "--help"]).flags, {})).not.toThrow();
  expect(() => assertKnownFlags("keys list", parseArgs(["keys", "list", "-v"]).flags, {})).not.toThrow();
  expect(() => assertKnownFlags("keys list", parseArgs(["keys", "list", "--x"]).flags, {})).toThrow(UsageError);
});

test("a wrong command is a usage error before anything else: no configuration read, no data folder made", async () => {
  const fresh = join(dataDir, "never-made");
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "keys", "bogus"], {
    env: { ...process.env, CRAWLBOX_DATA_DIR: fresh, PORT: "abc" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await proc.exited).toBe(2);
  expect(existsSync(fresh)).toBe(false);
});

test("a data folder that cannot be made: a plain message, exit 1, no stack trace", async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "serve"], {
    env: { ...process.env, CRAWLBOX_DATA_DIR: "/proc/crawlbox-cannot-exist", PORT: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(1);
  expect(stderr).toContain("cannot use /proc/crawlbox-cannot-exist as the data directory");
  expect(stderr).not.toContain("    at ");
});

test("keys quota through the command line: it sets the quota that keys list shows; its id and --quota are required", async () => {
  const created = await run(["keys", "create", "--name", "quota-cli", "--quota", "5"]);
  expect(created.code).toBe(0);
  const id = /Created (key_[0-9a-f]+)/.exec(created.stderr)![1]!;
  expect(await run(["keys", "quota", id, "--quota", "12"])).toMatchObject({ code: 0, stdout: `${id}: quota 12 credits\n` });
  expect((await run(["keys", "list"])).stdout.split("\n").find((l) => l.startsWith(id))).toEndWith("\t12");
  expect((await run(["keys", "quota", id])).code).toBe(2);
  expect((await run(["keys", "quota", "--quota", "3"])).code).toBe(2);
  expect((await run(["keys", "quota", id, "--quota", "3", "--name", "x"])).code).toBe(2);
  expect((await run(["keys", "nope"])).stderr).toContain("use create, list, quota or revoke");
});
