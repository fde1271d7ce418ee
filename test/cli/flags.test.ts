/**
 * The command line refuses options a command does not take (exit 2, with the usage), instead of ignoring them:
 * `serve --port 8080` must not quietly serve on 3002, nor `keys create --quota` create a key with a quota of 1.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
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

test("--help and --version are accepted with any command", () => {
  expect(() => assertKnownFlags("serve", parseArgs(["serve", "--help"]).flags, {})).not.toThrow();
  expect(() => assertKnownFlags("keys list", parseArgs(["keys", "list", "-v"]).flags, {})).not.toThrow();
  expect(() => assertKnownFlags("keys list", parseArgs(["keys", "list", "--x"]).flags, {})).toThrow(UsageError);
});
