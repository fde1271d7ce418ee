/**
 * @module documents/ocr/ocr-worker
 * The OCR worker: tesseract.js's own worker script driven directly, with the WASM core (the SIMD, LSTM-only build)
 * and the English LSTM data (`tessdata_fast`, assets/tessdata/README.md) embedded in the binary (stack-notes.md:
 * tesseract's default adapter loads the core with `require` from the build machine's node_modules and fetches
 * language data from a CDN; neither works in an air-gapped binary).
 * Other languages are read from the configured tessdata folder. Compiled as a second entry point
 * (scripts/build.ts). Speaks {@link OcrRequest}/{@link OcrResponse}.
 * A page's ruling lines (table borders) are erased before recognition: with them, tesseract's layout drops most
 * of a bordered table (documents/ocr/ruling-lines.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
// @ts-expect-error tesseract.js ships no types for its worker internals
import * as workerScript from "../../../node_modules/tesseract.js/src/worker-script/index.js";
// @ts-expect-error the core is an Emscripten factory without types
import TesseractCore from "../../../node_modules/tesseract.js-core/tesseract-core-simd-lstm.js";
import coreWasmPath from "../../../node_modules/tesseract.js-core/tesseract-core-simd-lstm.wasm" with { type: "file" };
import engDataPath from "../../../assets/tessdata/eng.traineddata.gz" with { type: "file" };
import type { OcrRequest, OcrResponse } from "./protocol.ts";
import { withoutRulingLines } from "./ruling-lines.ts";

declare const self: Worker;

const ws = (workerScript as { default?: unknown }).default ?? workerScript;
const { dispatchHandlers, setAdapter } = ws as {
  dispatchHandlers(packet: unknown, send: (msg: { status: string; data: unknown }) => void): void;
  setAdapter(adapter: unknown): void;
};

/** Pseudo-folder the worker script reads language data from; mapped to real files in `readCache`. */
const LANG_DIR = "/crawlbox-tessdata";
let tessdataDir = "";
let wasmBinary: Uint8Array | undefined;

function languageFile(path: string): Uint8Array {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const lang = name.replace(/\.traineddata(\.gz)?$/, "");
  if (tessdataDir) {
    for (const candidate of [`${lang}.traineddata`, `${lang}.traineddata.gz`]) {
      const p = join(tessdataDir, candidate);
      if (existsSync(p)) return readFileSync(p);
    }
  }
  if (lang === "eng") return readFileSync(engDataPath);
  throw new Error(`no traineddata for language "${lang}"`);
}

setAdapter({
  getCore: async () => (opts: Record<string, unknown>) => {
    wasmBinary ??= readFileSync(coreWasmPath);
    return (TesseractCore as (o: unknown) => Promise<unknown>)({ ...opts, wasmBinary });
  },
  gunzip: (data: Uint8Array) => gunzipSync(data),
  fetch: () => Promise.reject(new Error("network access is disabled in the OCR worker")),
  readCache: async (path: string) => (path.startsWith(LANG_DIR) ? languageFile(path) : undefined),
  writeCache: async () => {},
  deleteCache: async () => {},
  checkCache: async () => false,
});

let jobCounter = 0;
/** Runs one action of tesseract's worker script and resolves with its data. */
function action(name: string, payload: unknown): Promise<unknown> {
  const jobId = `job-${++jobCounter}`;
  return new Promise((resolve, reject) => {
    dispatchHandlers({ workerId: "crawlbox-ocr", jobId, action: name, payload }, (msg) => {
      if (msg.status === "resolve") resolve(msg.data);
      else if (msg.status === "reject") reject(new Error(String(msg.data)));
    });
  });
}

let loaded: Promise<unknown> | undefined;
let currentLangs = "";

async function ensureLanguages(langs: string): Promise<void> {
  loaded ??= action("load", { options: { lstmOnly: true, corePath: "", logging: false } });
  await loaded;
  if (langs === currentLangs) return;
  const list = langs.split("+");
  await action("loadLanguage", {
    langs: list,
    options: { langPath: LANG_DIR, dataPath: "", cachePath: LANG_DIR, cacheMethod: "readOnly", gzip: true, lstmOnly: true },
  });
  await action("initialize", { langs, oem: 1, config: {} });
  currentLangs = langs;
}

self.onmessage = async (event: MessageEvent<OcrRequest>) => {
  const req = event.data;
  let reply: OcrResponse;
  try {
    tessdataDir = req.tessdataDir;
    await ensureLanguages(req.langs);
    const image = withoutRulingLines(req.image);
    const result = (await action("recognize", { image, options: {}, output: { text: false, tsv: true } })) as { tsv: string };
    reply = { id: req.id, ok: true, tsv: result.tsv ?? "" };
  } catch (err) {
    currentLangs = "";
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
