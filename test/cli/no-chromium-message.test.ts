/**
 * A server without Chromium refuses browser-only requests with a message that says what is missing and how to get
 * it (scrape/capabilities.ts), like the other browser refusals: not "not available in this crawlbox build", which
 * reads as if another build were needed. A real server whose CHROME_PATH names no file.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-nochromium-"));
let proc: ReturnType<typeof Bun.spawn>;
let url = "";

beforeAll(async () => {
  proc = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", CRAWLBOX_AUTH: "off", CRAWLBOX_API_KEYS: "", CHROME_PATH: join(dataDir, "no-chromium-here"), CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_LOG_LEVEL: "info" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let log = "";
  while (!log.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server did not start:\n${log}`);
    log += decoder.decode(value);
  }
  url = /listening on (http:\/\/\S+) /.exec(log)![1]!;
});

afterAll(async () => {
  proc.kill("SIGKILL");
  await proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

async function scrape(body: Record<string, unknown>) {
  const res = await fetch(`${url}/v2/scrape`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: "http://127.0.0.1:9/", ...body }) });
  return { status: res.status, body: (await res.json()) as { code: string; error: string } };
}

test("actions without Chromium: 400 saying Chromium was not found, and how to install it or point CHROME_PATH at it", async () => {
  const r = await scrape({ actions: [{ type: "wait", milliseconds: 10 }] });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe("SCRAPE_ACTIONS_NOT_SUPPORTED");
  expect(r.body.error).toContain("Chromium was not found");
  expect(r.body.error).toContain("chromium package");
  expect(r.body.error).toContain("CHROME_PATH");
  expect(r.body.error).not.toContain("this crawlbox build");
}, 30_000);

test("browser-only options without Chromium: the same reason and fix", async () => {
  const r = await scrape({ mobile: true });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe("SCRAPE_BROWSER_REQUIRED");
  expect(r.body.error).toContain("Chromium was not found");
  expect(r.body.error).toContain("CHROME_PATH");
  expect(r.body.error).toContain("mobile");
}, 30_000);
