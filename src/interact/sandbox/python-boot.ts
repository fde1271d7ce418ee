/**
 * @module interact/sandbox/python-boot
 * Starting CPython (Pyodide) in a Python sandbox page, as JavaScript run there: the page fetches Pyodide's files from
 * crawlbox's file proxy (python-assets.ts), the only place its browser context can reach. Starting from nothing takes
 * ~1.7 s, most of it CPython's own start-up; starting from a memory snapshot of a freshly started interpreter
 * (python-snapshot.ts), served by the same proxy, takes ~0.2 s. Two functions use it: {@link PYTHON_WRAPPER} runs a
 * caller's code, {@link SNAPSHOT_MAKER} makes the snapshot in a page no caller's code has run in.
 *
 * Plain JavaScript in strings (the functions run in the page), so that neither the TypeScript transpiler nor the
 * binary's minifier can change them.
 */
import { PAGE_SETUP } from "./prelude.ts";
import { HEAP_MAX_GLOBAL, SNAPSHOT_FILE } from "./python-assets.ts";

/** Statements defining `startPython(base, lock, options)`: Pyodide started from the file proxy's grant `base`. */
const BOOT = `
  const startPython = async (base, lock, options) => {
    const loader = await import(base + "pyodide.mjs");
    const asm = await import(base + "pyodide.asm.mjs");
    return loader.loadPyodide(Object.assign({ indexURL: base, createPyodideModule: asm.default, lockFileContents: lock, fullStdLib: false, stdin: () => null, convertNullToNone: true }, options));
  };
`;

/**
 * Run in the sandbox page (channel.ts `startInPage`) with the caller's `code`, the session page's URL, the file
 * proxy's grant for this page (its base URL), Pyodide's lock, the Python prelude (python-prelude.ts), whether the
 * snapshot is served and the most bytes Python's heap may grow to (0: WebAssembly's own 4 GiB). It leaves an empty
 * `data-cb-result` when the code ended well (its stdout is the result), or the traceback in `data-cb-error`.
 */
export const PYTHON_WRAPPER = `async function (code, startUrl, base, lock, prelude, fromSnapshot, heapMaxBytes) {${PAGE_SETUP}${BOOT}
  try {
    if (heapMaxBytes > 0) globalThis.${HEAP_MAX_GLOBAL} = heapMaxBytes;
    const snapshot = fromSnapshot ? fetch(base + "${SNAPSHOT_FILE}").then((r) => { if (!r.ok) throw new Error("no snapshot: " + r.status); return r.arrayBuffer(); }) : undefined;
    const py = await startPython(base, lock, snapshot ? { _loadSnapshot: snapshot } : {});
    // An interpreter that crashed (os._exit is turned into SystemExit, but deep recursion can still overflow the
    // WebAssembly stack) never answers: Pyodide's cry on the console ends the code at once instead.
    const logError = console.error;
    console.error = (...a) => {
      logError(...a);
      if (String(a[0]).includes("Pyodide has suffered a fatal error") && !root.hasAttribute("data-cb-result") && !root.hasAttribute("data-cb-error")) {
        root.setAttribute("data-cb-error", "Python failed: the interpreter crashed (too deep a recursion, or the like)");
      }
    };
    // Python's bytes as written (its own buffering groups them): a line-by-line handler would lose a last line
    // without its newline (sys.stdout.write(json.dumps(x)), print(..., end="")). The third item says "as is".
    const writer = (kind) => {
      const text = new TextDecoder();
      return { write: (bytes) => { const s = text.decode(bytes, { stream: true }); if (s) channel.note({ m: "log", a: [kind, cut(s), 1] }); return bytes.length; } };
    };
    py.setStdout(writer("out"));
    py.setStderr(writer("err"));
    py.runPython(prelude);
    const failed = await py.globals.get("_cb_main")(code, page, kindOf);
    if (failed) root.setAttribute("data-cb-error", String(failed).replace(/\\n$/, ""));
    else root.setAttribute("data-cb-result", "");
  } catch (e) {
    // toText (PAGE_SETUP): a value that cannot be turned into text must still end the code, not leave it to time out.
    let why;
    try { why = e && e.message ? e.message : e; } catch (_) { why = e; }
    root.setAttribute("data-cb-error", "Python failed: " + toText(why, "(unprintable value)"));
  }
}`;

/**
 * Run in a fresh Python sandbox page (awaited, its value returned) with a grant's base URL and Pyodide's lock: starts
 * Python for a snapshot
 * and answers the snapshot of its memory, gzipped and base64-encoded (~8 MB). An interpreter started to be
 * snapshotted cannot run code that uses the page (Pyodide's rule), so this one runs nothing.
 */
export const SNAPSHOT_MAKER = `async function (base, lock) {${BOOT}
  const py = await startPython(base, lock, { _makeSnapshot: true });
  const raw = py.makeMemorySnapshot();
  return new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer()).toBase64();
}`;
