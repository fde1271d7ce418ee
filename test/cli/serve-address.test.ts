/**
 * The address `crawlbox serve` reports and refuses (cli/listen-address.ts): an IPv6 host in brackets, so the URL in
 * the start line works when pasted; a HOST that does not resolve, or is not this machine's, said in words that name
 * HOST, not as the system's EINVAL. Real processes.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostPort } from "../../src/cli/listen-address.ts";

const ROOT = join(import.meta.dir, "..", "..");
const base = mkdtempSync(join(tmpdir(), "crawlbox-address-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

function serve(host: string, auth: "on" | "off") {
  return Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, HOST: host, PORT: "0", CRAWLBOX_AUTH: auth, CRAWLBOX_API_KEYS: "", CRAWLBOX_BROWSER: "false", CRAWLBOX_DATA_DIR: join(base, `d${++n}`), CRAWLBOX_LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** A server that must not start: its exit code and stderr (killed after 20 s). */
async function refused(host: string): Promise<{ code: number; stderr: string; stdout: string }> {
  const proc = serve(host, "on");
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stderr, stdout };
}

test("hostPort brackets IPv6 literals only", () => {
  expect(hostPort("::1", 3002)).toBe("[::1]:3002");
  expect(hostPort("fe80::1%eth0", 80)).toBe("[fe80::1%eth0]:80");
  expect(hostPort("[::1]", 3002)).toBe("[::1]:3002");
  expect(hostPort("127.0.0.1", 3002)).toBe("127.0.0.1:3002");
  expect(hostPort("localhost", 3002)).toBe("localhost:3002");
});

test("HOST=::1: the start line's URL has the address in brackets, and it answers", async () => {
  const proc = serve("::1", "off");
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  let log = "";
  try {
    while (!log.includes("listening on")) {
      const { value, done } = await reader.read();
      if (done) break;
      log += decoder.decode(value);
    }
    if (/cannot listen on \[::1\]/.test(log)) {
      console.warn("skipped: this machine has no IPv6 loopback");
      return;
    }
    const url = /listening on (http:\/\/\S+) /.exec(log)?.[1];
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  } finally {
    clearTimeout(timer);
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, 30_000);

test("a HOST that does not resolve: exit 1, saying so and naming HOST; no key made", async () => {
  const r = await refused("nonexistent.invalid");
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('crawlbox: cannot listen on nonexistent.invalid:0: the host name "nonexistent.invalid" does not resolve to an address; set HOST to an address of this machine');
  expect(r.stderr).not.toContain("EINVAL");
  expect(r.stdout).not.toContain("No API key existed");
}, 30_000);

test("a HOST that is not this machine's address: exit 1, saying so", async () => {
  const r = await refused("192.0.2.1"); // TEST-NET-1 (RFC 5737): never a local address
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('crawlbox: cannot listen on 192.0.2.1:0: "192.0.2.1" is not an address of this machine; set HOST to');
}, 30_000);
