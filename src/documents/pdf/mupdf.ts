/**
 * @module documents/pdf/mupdf
 * Loads mupdf (WASM) once, lazily. The WASM file is embedded in the compiled binary (`with { type: "file" }`) and
 * handed to mupdf as `wasmBinary` before its module is imported: inside `bun build --compile`, mupdf's own
 * `new URL("mupdf-wasm.wasm", import.meta.url)` points at the build machine (stack-notes.md, "the single binary").
 * Init takes 150–200 ms, so nothing loads until the first document arrives.
 */
import { readFileSync } from "node:fs";
import wasmPath from "../../../node_modules/mupdf/dist/mupdf-wasm.wasm" with { type: "file" };

export type Mupdf = typeof import("mupdf");

let loading: Promise<Mupdf> | undefined;

/** The mupdf module, initialised on first use and shared afterwards. */
export function loadMupdf(): Promise<Mupdf> {
  loading ??= (async () => {
    (globalThis as Record<string, unknown>).$libmupdf_wasm_Module = { wasmBinary: readFileSync(wasmPath) };
    const mupdf = await import("mupdf");
    // mupdf prints repair warnings for every damaged file to stderr; the parser reports failures itself.
    mupdf.setLog({ error() {}, warning() {} });
    return mupdf;
  })();
  return loading;
}
