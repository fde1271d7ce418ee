/**
 * Helpers for tests that restart a real `bun src/main.ts serve` on one data directory: start it on a free port with
 * auth off and private targets allowed (local fixtures), wait for `/health`, stop it with SIGTERM by PID.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/** A port nobody listens on right now. */
export function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

/** One crawlbox data directory served by successive processes. */
export interface RestartableServer {
  api: string;
  dataDir: string;
  /** Starts a process and waits until it answers `/health`. */
  start(): Promise<void>;
  /** Sends SIGTERM to the running process and returns its exit code. */
  stop(): Promise<number>;
  /** Sends SIGTERM to the running process without waiting for it (a first stop signal; {@link stop} sends another). */
  signal(): void;
  /** SIGKILLs the running process (a crash: nothing is given back or cancelled); the data directory stays. */
  kill(): Promise<void>;
  /** SIGKILLs a process still running (test cleanup) and deletes the data directory. */
  cleanup(): Promise<void>;
  /** A JSON call to the API. */
  call(method: string, path: string, body?: unknown): Promise<any>;
}

export function restartableServer(env: Record<string, string> = {}): RestartableServer {
  const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-restart-"));
  const port = freePort();
  const api = `http://127.0.0.1:${port}`;
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  const s: RestartableServer = {
    api,
    dataDir,
    async start() {
      proc = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          PORT: String(port),
          HOST: "127.0.0.1",
          CRAWLBOX_DATA_DIR: dataDir,
          CRAWLBOX_AUTH: "off",
          CRAWLBOX_API_KEYS: "",
          CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true",
          CRAWLBOX_LOG_LEVEL: "error",
          ...env,
        },
        stdout: "ignore",
        stderr: "ignore",
      });
      for (let i = 0; i < 400; i++) {
        if (await fetch(`${api}/health`).then((r) => r.ok).catch(() => false)) return;
        if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
        await Bun.sleep(50);
      }
      throw new Error("server did not start");
    },
    async stop() {
      const p = proc!;
      proc = undefined;
      process.kill(p.pid, "SIGTERM");
      return await p.exited;
    },
    signal() {
      process.kill(proc!.pid, "SIGTERM");
    },
    async kill() {
      const p = proc!;
      proc = undefined;
      process.kill(p.pid, "SIGKILL");
      await p.exited;
    },
    async cleanup() {
      if (proc) {
        process.kill(proc.pid, "SIGKILL");
        await proc.exited;
        proc = undefined;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
    async call(method, path, body) {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await res.json();
    },
  };
  return s;
}
