/**
 * @module interact/sandbox/python-assets
 * Pyodide (CPython compiled to WebAssembly, npm `pyodide`, MPL-2.0): the files browser `code` in
 * `language: "python"` needs to start Python in its sandbox page (interact/sandbox/run.ts), embedded in the compiled
 * binary (`with { type: "file" }`, stack-notes.md), and the start-up snapshot (python-snapshot.ts) once made.
 *
 * A Python sandbox page gets them from {@link pythonFiles}: a local HTTP proxy given to that page's browser context
 * (instead of the proxy that closes every connection, engines/browser/offline-sandbox.ts) which answers only `GET`s of
 * these files at `http://python.crawlbox.invalid/<grant>/` and nothing else: it forwards nothing, so the page is as
 * cut off as before, but for public static files, each served at most twice per grant, one grant per page and run. Handing the same ~17 MB through the browser's debugging channel took ~0.6 s
 * (CDP carries ~30 MB/s) and ~0.2 s more to unpack in the page; from the proxy the browser takes them in tens of
 * milliseconds, unpacking the gzipped ones itself (`Content-Encoding`) and compiling the WebAssembly as it arrives.
 * Only the standard library comes with it: packages (numpy, …) would need the internet, which crawlbox never needs.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import loaderPath from "../../../node_modules/pyodide/pyodide.mjs" with { type: "file" };
import modulePath from "../../../node_modules/pyodide/pyodide.asm.mjs" with { type: "file" };
import wasmPath from "../../../node_modules/pyodide/pyodide.asm.wasm" with { type: "file" };
import stdlibPath from "../../../node_modules/pyodide/python_stdlib.zip" with { type: "file" };
import lock from "../../../node_modules/pyodide/pyodide-lock.json";
import { randomToken } from "../../auth/token.ts";

/** Where a Python sandbox page finds the files (an origin that resolves nowhere: only the proxy answers it). */
export const PYTHON_FILES_ORIGIN = "http://python.crawlbox.invalid";
/** The snapshot's name among the files. */
export const SNAPSHOT_FILE = "snapshot.bin";

/**
 * The lock file Pyodide starts from, without its packages: none of them is here (their wheels are on Pyodide's
 * servers), so `loadPackage` and `micropip` say a package is unknown instead of trying the network.
 */
export const PYTHON_LOCK = { info: lock.info, packages: {} };

interface ServedFile {
  body: Blob;
  type: string;
  gzipped: boolean;
}

/** The proxy that serves the files, and the snapshot once it is made. */
export interface PythonFiles {
  /** The proxy's URL, for a browser context's `proxyServer`. */
  proxyUrl: string;
  /** Serves `gzipped` (a gzipped snapshot) as {@link SNAPSHOT_FILE} from now on. */
  setSnapshot(gzipped: Uint8Array<ArrayBuffer>): void;
  /**
   * A one-time grant for one sandbox page: the base URL (ending in `/`) under which each file is served at most
   * {@link FETCHES_PER_FILE} times, until `revoke()`. Without a grant nothing is served, so a page cannot keep the
   * server busy fetching the files over and over.
   */
  grant(): { base: string; revoke(): void };
}

/** Times one grant may fetch each file (Pyodide fetches each once; a second try is its own fallback). */
export const FETCHES_PER_FILE = 2;

let served: PythonFiles | undefined;

/** The page global that, when set, caps Python's WebAssembly heap (python-boot.ts sets it per run). */
export const HEAP_MAX_GLOBAL = "__crawlboxPythonHeapMax";
/** Emscripten's heap ceiling in Pyodide's module (4 GiB less a page: WebAssembly's own limit). */
const HEAP_MAX_SOURCE = "getHeapMax=()=>4294901760";

/**
 * Pyodide's module with its heap ceiling read from {@link HEAP_MAX_GLOBAL}: past it, Python's allocations fail and it
 * raises MemoryError, well before the page's renderer reaches the page memory limit and is killed
 * (engines/browser/renderer-memory.ts). Emscripten grows the heap through this one function, and Pyodide exposes no
 * option for it. Throws when the module no longer has it (a Pyodide upgrade must look again).
 */
export function withHeapCeiling(source: string): string {
  const at = source.indexOf(HEAP_MAX_SOURCE);
  if (at < 0 || source.indexOf(HEAP_MAX_SOURCE, at + 1) >= 0) throw new Error("pyodide.asm.mjs: Emscripten's getHeapMax was not found once; the Python heap cannot be capped");
  return source.replace(HEAP_MAX_SOURCE, `getHeapMax=()=>Math.min(4294901760,globalThis.${HEAP_MAX_GLOBAL}||4294901760)`);
}

/**
 * The file proxy, started on first use (the files read and gzipped then, ~0.3 s) and kept for the process's life; it
 * does not keep the process alive. A server that never runs Python never starts it.
 */
export function pythonFiles(): PythonFiles {
  if (served) return served;
  const gz = (bytes: Uint8Array, type: string): ServedFile => ({ body: new Blob([gzipSync(bytes, { level: 6 })]), type, gzipped: true });
  const files = new Map<string, ServedFile>([
    ["pyodide.mjs", gz(readFileSync(loaderPath), "text/javascript")],
    ["pyodide.asm.mjs", gz(new TextEncoder().encode(withHeapCeiling(readFileSync(modulePath, "utf8"))), "text/javascript")],
    ["pyodide.asm.wasm", gz(readFileSync(wasmPath), "application/wasm")],
    // Compressed already.
    ["python_stdlib.zip", { body: new Blob([readFileSync(stdlibPath)]), type: "application/zip", gzipped: false }],
  ]);
  const origin = new URL(PYTHON_FILES_ORIGIN);
  /** Live grants: token → fetches so far per file. */
  const grants = new Map<string, Map<string, number>>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      // A proxy request carries the absolute URL; anything but a GET of one of the files is refused, never forwarded.
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return new Response(null, { status: 400 });
      }
      const [token, name, ...more] = url.pathname.slice(1).split("/");
      const fetched = grants.get(token ?? "");
      const file = req.method === "GET" && url.host === origin.host && fetched && name && more.length === 0 ? files.get(name) : undefined;
      if (!file || (fetched!.get(name!) ?? 0) >= FETCHES_PER_FILE) return new Response(null, { status: 404 });
      fetched!.set(name!, (fetched!.get(name!) ?? 0) + 1);
      return new Response(file.body, {
        headers: {
          "content-type": file.type,
          ...(file.gzipped ? { "content-encoding": "gzip" } : {}),
          // Module scripts and the WebAssembly are fetched across origins (the page is about:blank).
          "access-control-allow-origin": "*",
          "cache-control": "no-store",
        },
      });
    },
  });
  server.unref();
  served = {
    proxyUrl: `http://127.0.0.1:${server.port}`,
    setSnapshot: (gzipped) => void files.set(SNAPSHOT_FILE, { body: new Blob([gzipped]), type: "application/octet-stream", gzipped: true }),
    grant: () => {
      const token = randomToken(24);
      grants.set(token, new Map());
      return { base: `${PYTHON_FILES_ORIGIN}/${token}/`, revoke: () => void grants.delete(token) };
    },
  };
  return served;
}
