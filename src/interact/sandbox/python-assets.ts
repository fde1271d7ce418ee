/**
 * @module interact/sandbox/python-assets
 * Pyodide (CPython compiled to WebAssembly, npm `pyodide`, MPL-2.0): the files browser `code` in
 * `language: "python"` needs to start Python in its sandbox page (interact/sandbox/run-code.ts). They are embedded in
 * the compiled binary (`with { type: "file" }`, stack-notes.md) and handed to the page through the browser's
 * debugging channel, because the sandbox is offline: it can fetch nothing, from anywhere, crawlbox included.
 * Only the standard library comes with it: packages (numpy, …) would need the internet, which crawlbox never needs.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import loaderPath from "../../../node_modules/pyodide/pyodide.mjs" with { type: "file" };
import modulePath from "../../../node_modules/pyodide/pyodide.asm.mjs" with { type: "file" };
import wasmPath from "../../../node_modules/pyodide/pyodide.asm.wasm" with { type: "file" };
import stdlibPath from "../../../node_modules/pyodide/python_stdlib.zip" with { type: "file" };
import lock from "../../../node_modules/pyodide/pyodide-lock.json";

/**
 * Pyodide's files by the name it asks for, base64-encoded (what a CDP argument can carry); all but the standard
 * library's zip (compressed already) gzipped, which halves what crosses (~8.6 MB of text instead of ~17): the page
 * unpacks them with its own `DecompressionStream`.
 */
export type PythonFiles = Record<string, string>;

/** The one file sent as it is. */
export const UNZIPPED_FILE = "python_stdlib.zip";

let files: PythonFiles | undefined;

/**
 * The files, read and encoded on first use and then kept: a server that never runs Python never reads them, and one
 * that does pays the encoding once (~0.5 s).
 */
export function pythonFiles(): PythonFiles {
  if (!files) {
    const read = (path: string, name: string) => {
      const bytes = readFileSync(path);
      return (name === UNZIPPED_FILE ? bytes : gzipSync(bytes, { level: 6 })).toString("base64");
    };
    files = {
      "pyodide.mjs": read(loaderPath, "pyodide.mjs"),
      "pyodide.asm.mjs": read(modulePath, "pyodide.asm.mjs"),
      "pyodide.asm.wasm": read(wasmPath, "pyodide.asm.wasm"),
      [UNZIPPED_FILE]: read(stdlibPath, UNZIPPED_FILE),
    };
  }
  return files;
}

/**
 * The lock file Pyodide starts from, without its packages: none of them is here (their wheels are on Pyodide's
 * servers), so `loadPackage` and `micropip` say a package is unknown instead of trying the network.
 */
export const PYTHON_LOCK = { info: lock.info, packages: {} };
