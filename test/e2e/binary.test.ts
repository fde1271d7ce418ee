/**
 * End-to-end: builds `dist/crawlbox`, copies it into an empty temporary folder (no node_modules, no sources)
 * and uses it as a user would: --version, keys, the scrape CLI, and the server (health, scrape, a parse worker,
 * a file upload, browser code in bash, JavaScript and Python, docs).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { findChromium } from "../../src/engines/browser/chromium.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { SCANNED_WORDS } from "../fixtures/documents/fixtures.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CHROMIUM = findChromium(process.env.CHROME_PATH ?? "") ?? "/usr/bin/chromium";
let dir: string;
let bin: string;
let site: FixtureSite;
let docs: DocumentSite;
let server: ReturnType<typeof Bun.spawn> | undefined;

function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

/** Runs the binary to completion. Asynchronous: the fixture site lives in this process and must keep answering. */
async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([bin, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, CRAWLBOX_DATA_DIR: join(dir, "data"), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  const built = join(ROOT, "dist", "crawlbox");
  expect(existsSync(built)).toBe(true);
  dir = mkdtempSync(join(tmpdir(), "crawlbox-e2e-"));
  bin = join(dir, "crawlbox");
  copyFileSync(built, bin);
  chmodSync(bin, 0o755);
  site = startFixtureSite();
  docs = await startDocumentSite();
}, 240_000);

afterAll(() => {
  server?.kill("SIGTERM");
  site?.stop();
  docs?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the compiled binary, from an empty folder", () => {
  test("--version and --help", async () => {
    expect(statSync(bin).size).toBeGreaterThan(10_000_000);
    const v = await run(["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^crawlbox \d+\.\d+\.\d+/);
    expect((await run(["--help"])).stdout).toContain("crawlbox scrape <url>");
  });

  test("keys create / list / revoke", async () => {
    const c = await run(["keys", "create", "--name", "e2e", "--quota", "50"]);
    expect(c.code).toBe(0);
    const key = c.stdout.trim();
    expect(key).toMatch(/^fc-[0-9A-Za-z]{32}$/);
    const list = await run(["keys", "list"]);
    expect(list.stdout).toContain("e2e");
    expect(list.stdout).not.toContain(key);
    const id = list.stdout.split("\n").find((l) => l.includes("e2e"))!.split("\t")[0]!;
    expect((await run(["keys", "revoke", id])).code).toBe(0);
  });

  test("crawlbox scrape prints markdown and links", async () => {
    const env = { CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true" };
    const md = await run(["scrape", `${site.url}/article`], env);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("# Growing Tomatoes Indoors");
    const links = await run(["scrape", `${site.url}/article`, "--format", "links"], env);
    expect(links.stdout.split("\n")).toContain(`${site.url}/guides/lamps`);
    const bad = await run(["scrape", `${site.url}/counter?never-cached`]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("EGRESS_DENIED");
  });

  test("documents: PDF text layer, OCR of a scan and of a PNG, DOCX (embedded WASM, data and OCR worker)", async () => {
    const env = { CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true", CRAWLBOX_OCR_WORKERS: "1" };
    const pdf = await run(["scrape", `${docs.url}/report.pdf`], env);
    expect(pdf.code).toBe(0);
    expect(pdf.stdout).toContain("# Annual Report 2026");
    expect(pdf.stdout).toContain("| Region | Revenue | Growth |");
    const scan = await run(["scrape", `${docs.url}/scan.pdf`], env);
    expect(scan.code).toBe(0);
    for (const w of SCANNED_WORDS) expect(scan.stdout).toContain(w);
    const png = await run(["scrape", `${docs.url}/bulletin.png`], env);
    expect(png.stdout).toContain("Weekly Bulletin");
    const docx = await run(["scrape", `${docs.url}/handbook.docx`], env);
    expect(docx.code).toBe(0);
    expect(docx.stdout).toContain("[onboarding guide](https://example.org/onboarding)");
    const enc = await run(["scrape", `${docs.url}/encrypted.pdf`], env);
    expect(enc.code).toBe(1);
    expect(enc.stderr).toContain("SCRAPE_PDF_ENCRYPTED");
  }, 60_000);

  test("serve: first key printed once, health, scrape, docs", async () => {
    const port = freePort();
    const dataDir = join(dir, "serve-data");
    server = Bun.spawn([bin, "serve"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const base = `http://127.0.0.1:${port}`;
    let healthy = false;
    for (let i = 0; i < 100 && !healthy; i++) {
      healthy = await fetch(`${base}/health`).then((r) => r.ok).catch(() => false);
      if (!healthy) await Bun.sleep(50);
    }
    expect(healthy).toBe(true);
    // The first key is printed on stdout.
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!/fc-[0-9A-Za-z]{32}/.test(out)) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const key = /fc-[0-9A-Za-z]{32}/.exec(out)![0];
    const res = await fetch(`${base}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/article`, formats: ["markdown"] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data.markdown).toContain("Growing Tomatoes Indoors");
    // A large page goes to a parse worker: the worker script is embedded and starts from the binary.
    const large = await fetch(`${base}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/large`, formats: ["markdown"] }),
    });
    expect(((await large.json()) as any).data.markdown).toContain("Padding paragraph 9999");
    expect(((await (await fetch(`${base}/health`)).json()) as any).parseWorkers).toMatchObject({ offloaded: 1, failed: 0 });
    // An uploaded file (POST /v2/parse, multipart) is parsed by the binary like a fetched page.
    const form = new FormData();
    form.append("options", JSON.stringify({ formats: ["markdown"] }));
    form.append("file", new Blob([await (await fetch(`${site.url}/article`)).text()], { type: "text/html" }), "article.html");
    const parsed = await fetch(`${base}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
    expect(parsed.status).toBe(200);
    expect(((await parsed.json()) as any).data.markdown).toContain("Growing Tomatoes Indoors");
    // Browser code: bash read by the binary's own parser, JavaScript in its browser sandbox (the prelude and the
    // isolated-world readers are strings the minifier must leave alone).
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const session = (await (await fetch(`${base}/v2/browser`, { method: "POST", headers: auth, body: "{}" })).json()) as any;
    expect(session.success).toBe(true);
    const execute = async (code: string, language: string) =>
      (await (await fetch(`${base}/v2/browser/${session.id}/execute`, { method: "POST", headers: auth, body: JSON.stringify({ code, language }) })).json()) as any;
    const bash = await execute(`agent-browser open ${site.url}/article\nagent-browser snapshot -i >/dev/null || agent-browser get title`, "bash");
    expect(bash.exitCode).toBe(2); // a redirection is refused before anything runs
    const shell = await execute(`agent-browser open ${site.url}/article && agent-browser get title`, "bash");
    expect(shell).toMatchObject({ exitCode: 0, stderr: "" });
    const title = shell.stdout.trim().split("\n").at(-1);
    const js = await execute("console.log(await page.locator('h1').first().innerText()); return await page.title();", "node");
    expect(js).toMatchObject({ exitCode: 0, stderr: "", result: title });
    expect(js.stdout).toContain("Growing Tomatoes Indoors");
    // Python: Pyodide's files come from the binary itself (the sandbox is offline).
    const py = await execute("print(await page.locator('h1').first.inner_text())\nprint(await page.title())", "python");
    expect(py).toMatchObject({ exitCode: 0, stderr: "" });
    expect(py.stdout).toBe(`${js.stdout.trim().split("\n").find((l: string) => l.includes("Growing Tomatoes Indoors"))}\n${title}\n`);
    expect(((await (await fetch(`${base}/v2/browser/${session.id}`, { method: "DELETE", headers: auth })).json()) as any).creditsBilled).toBe(4);
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/docs-assets/swagger-ui-bundle.js");
    const asset = await fetch(`${base}/docs-assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    const spec = await fetch(`${base}/openapi.json`);
    expect(((await spec.json()) as any).paths["/v2/scrape"]).toBeDefined();
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 60_000);

  test("as an unprivileged user, Chromium runs with its own sandbox (its renderers under seccomp), or says why not", async () => {
    const root = process.getuid?.() === 0;
    // Root runs the binary as nobody; any other user runs it as itself.
    const user = root ? "nobody" : (process.env.USER ?? "");
    const own = mkdtempSync(join(tmpdir(), "crawlbox-e2e-user-"));
    chmodSync(own, 0o755);
    const ownBin = join(own, "crawlbox");
    copyFileSync(bin, ownBin);
    chmodSync(ownBin, 0o755);
    const dataDir = join(own, "data");
    mkdirSync(dataDir);
    if (root) chownSync(dataDir, 65534, 65534);
    const port = freePort();
    const key = `fc-${"s".repeat(32)}`;
    // TMPDIR: its Chromium's profile folder goes into `own`, removed below whatever way the server ends (a nobody-owned
    // crawlbox-chromium-* folder was left in /tmp after full runs).
    const env = `PATH=${process.env.PATH ?? ""} HOME=${dataDir} TMPDIR=${dataDir} PORT=${port} HOST=127.0.0.1 CRAWLBOX_DATA_DIR=${dataDir} CRAWLBOX_API_KEYS=${key} CRAWLBOX_ALLOW_PRIVATE_NETWORK=true CRAWLBOX_BROWSER_PAGE_MEMORY_MB=256`;
    // A page over the memory limit: the guard must see and stop a sandboxed renderer of another user's server too.
    const hog = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><p>hog</p><script>window.k=[];for(let i=0;i<12;i++){const u=new Uint8Array(5e7);u.fill(1);k.push(u);}</script></body></html>", { headers: { "content-type": "text/html" } }) });
    const command = `exec env ${env} ${ownBin} serve`;
    const proc = Bun.spawn(root ? ["su", user, "-s", "/bin/sh", "-c", command] : ["/bin/sh", "-c", command], { cwd: own, stdout: "pipe", stderr: "pipe" });
    const logs = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]).then((l) => l.join(""));
    const serverPid = () => Bun.spawnSync(["pgrep", "-f", `${ownBin} serve`]).stdout.toString().trim().split("\n").filter(Boolean).map(Number);
    try {
      const base = `http://127.0.0.1:${port}`;
      let healthy = false;
      for (let i = 0; i < 200 && !healthy; i++) {
        healthy = await fetch(`${base}/health`).then((r) => r.ok).catch(() => false);
        if (!healthy) await Bun.sleep(50);
      }
      expect(healthy).toBe(true);
      // A page the browser renders (a screenshot needs it).
      const res = await fetch(`${base}/v2/scrape`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `${site.url}/article`, formats: ["markdown", "screenshot"] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.markdown).toContain("Growing Tomatoes Indoors");
      // This server's Chromium: the browser process (the one its debugging pipe was given to) under this server, and
      // its renderers among its descendants. A sandboxed renderer lives in network and PID namespaces of its own and
      // under more seccomp filters than the browser process (which, in a container, may have the container's own).
      const table = Bun.spawnSync(["ps", "-e", "-o", "pid=,ppid=,args="]).stdout.toString().split("\n").filter(Boolean).map((l) => {
        const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l)!;
        return { pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! };
      });
      const below = (root: number): typeof table => table.filter((p) => p.ppid === root).flatMap((p) => [p, ...below(p.pid)]);
      const ours = serverPid().flatMap((pid) => below(pid));
      const browserProc = ours.find((p) => p.args.includes("--remote-debugging-pipe") && !p.args.includes("--type="));
      expect(browserProc).toBeDefined();
      const browserArgs = browserProc!.args;
      const renderers = below(browserProc!.pid).filter((p) => p.args.includes("--type=renderer")).map((p) => p.pid);
      expect(renderers.length).toBeGreaterThan(0);
      const expectHogStopped = async () => {
        const hogged = await fetch(`${base}/v2/scrape`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ url: `http://127.0.0.1:${hog.port}/`, formats: ["markdown"], waitFor: 1000 }),
        });
        expect(hogged.status).toBe(500);
        expect(((await hogged.json()) as any).error).toMatch(/^The page used \d+ MB of memory, more than the 256 MB a browser page may use/);
      };
      const filters = (pid: number) => Number(/Seccomp_filters:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      const netNs = (pid: number) => readlinkSync(`/proc/${pid}/ns/net`);
      // Can this system give an unprivileged Chromium its sandbox at all? Asked of Chromium itself, as the same user.
      const probe = `exec ${CHROMIUM} --headless=new --disable-gpu --user-data-dir=${dataDir}/probe --dump-dom about:blank`;
      const usable = Bun.spawnSync(root ? ["su", user, "-s", "/bin/sh", "-c", probe] : ["/bin/sh", "-c", probe], { env: { HOME: dataDir, PATH: process.env.PATH ?? "" } }).exitCode === 0;
      if (usable) {
        expect(browserArgs).not.toContain("--no-sandbox");
        for (const pid of renderers) {
          expect(netNs(pid)).not.toBe(netNs(browserProc!.pid));
          expect(filters(pid)).toBeGreaterThan(filters(browserProc!.pid));
        }
        await expectHogStopped();
        // The log says which sandbox Chromium got, at its launch.
        for (const pid of serverPid()) process.kill(pid, "SIGTERM");
        expect(await logs).toContain(`"sandbox":"chromium's own"`);
      } else {
        // The fallback: it runs, without the sandbox, and says so.
        expect(browserArgs).toContain("--no-sandbox");
        await expectHogStopped();
        server?.kill("SIGTERM");
        for (const pid of serverPid()) process.kill(pid, "SIGTERM");
        expect(await logs).toContain("Chromium cannot use its own sandbox here");
      }
    } finally {
      for (const pid of serverPid()) process.kill(pid, "SIGTERM");
      await proc.exited;
      hog.stop(true);
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});
