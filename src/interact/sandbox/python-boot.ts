/**
 * @module interact/sandbox/python-boot
 * Starting CPython (Pyodide) in an offline sandbox page, as JavaScript run there: the page fetches nothing, so
 * crawlbox hands it Pyodide's files (python-assets.ts) as arguments, and the page's `fetch` answers Pyodide's own
 * requests for them from memory while it starts (and only then). Starting from nothing takes ~1.7 s, most of it
 * CPython's own start-up; starting from a memory snapshot of a freshly started interpreter (python-snapshot.ts) takes
 * ~0.2 s. Two functions use it: {@link PYTHON_WRAPPER} runs a caller's code, {@link SNAPSHOT_MAKER} makes the
 * snapshot in a page no caller's code has run in.
 *
 * Plain JavaScript in strings (the functions run in the page), so that neither the TypeScript transpiler nor the
 * binary's minifier can change them.
 */
import { PAGE_SETUP } from "./prelude.ts";
import { UNZIPPED_FILE } from "./python-assets.ts";

/** Statements defining `startPython(files, lock, options)`: Pyodide started from `files`, with `options` added. */
const BOOT = `
  const unzip = async (b64) => new Uint8Array(await new Response(new Blob([Uint8Array.fromBase64(b64)]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  const startPython = async (files, lock, options) => {
    const blobs = {};
    const types = { "pyodide.asm.wasm": "application/wasm", "${UNZIPPED_FILE}": "application/zip" };
    for (const name of Object.keys(files)) {
      const bytes = name === "${UNZIPPED_FILE}" ? Uint8Array.fromBase64(files[name]) : await unzip(files[name]);
      blobs[name] = new Blob([bytes], { type: types[name] || "text/javascript" });
    }
    const base = "https://python.crawlbox.invalid/";
    const realFetch = globalThis.fetch;
    globalThis.fetch = (u, o) => {
      const s = String(u && u.url ? u.url : u);
      const name = s.startsWith(base) ? s.slice(base.length) : "";
      return Object.hasOwn(blobs, name) ? Promise.resolve(new Response(blobs[name], { headers: { "content-type": blobs[name].type } })) : realFetch(u, o);
    };
    try {
      const loader = await import(URL.createObjectURL(blobs["pyodide.mjs"]));
      const asm = await import(URL.createObjectURL(blobs["pyodide.asm.mjs"]));
      return await loader.loadPyodide(Object.assign({ indexURL: base, createPyodideModule: asm.default, lockFileContents: lock, fullStdLib: false, stdin: () => null, convertNullToNone: true }, options));
    } finally {
      globalThis.fetch = realFetch;
    }
  };
`;

/**
 * Run in the sandbox page (channel.ts `startInPage`) with the caller's `code`, the session page's URL, Pyodide's
 * files and lock, the Python prelude (python-prelude.ts) and a snapshot (gzipped, base64) or null. It leaves an empty
 * `data-cb-result` when the code ended well (its stdout is the result), or the traceback in `data-cb-error`.
 */
export const PYTHON_WRAPPER = `async function (code, startUrl, files, lock, prelude, snapshot) {${PAGE_SETUP}${BOOT}
  try {
    const py = await startPython(files, lock, snapshot ? { _loadSnapshot: await unzip(snapshot) } : {});
    files = snapshot = null;
    // An interpreter that crashed (os._exit is turned into SystemExit, but deep recursion can still overflow the
    // WebAssembly stack) never answers: Pyodide's cry on the console ends the code at once instead.
    const logError = console.error;
    console.error = (...a) => {
      logError(...a);
      if (String(a[0]).includes("Pyodide has suffered a fatal error") && !root.hasAttribute("data-cb-result") && !root.hasAttribute("data-cb-error")) {
        root.setAttribute("data-cb-error", "Python failed: the interpreter crashed (too deep a recursion, or the like)");
      }
    };
    py.setStdout({ batched: (s) => channel.note({ m: "log", a: ["out", cut(s)] }) });
    py.setStderr({ batched: (s) => channel.note({ m: "log", a: ["err", cut(s)] }) });
    py.runPython(prelude);
    const failed = await py.globals.get("_cb_main")(code, page);
    if (failed) root.setAttribute("data-cb-error", String(failed).replace(/\\n$/, ""));
    else root.setAttribute("data-cb-result", "");
  } catch (e) {
    root.setAttribute("data-cb-error", "Python failed: " + String(e && e.message ? e.message : e));
  }
}`;

/**
 * Run in a fresh sandbox page (awaited, its value returned) with Pyodide's files and lock: starts Python for a
 * snapshot and answers the snapshot of its memory, gzipped and base64-encoded (~8 MB). An interpreter started to
 * be snapshotted cannot run code that uses the page (Pyodide's rule), so this one runs nothing.
 */
export const SNAPSHOT_MAKER = `async function (files, lock) {${BOOT}
  const py = await startPython(files, lock, { _makeSnapshot: true });
  const raw = py.makeMemorySnapshot();
  return new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer()).toBase64();
}`;
