/**
 * @module worker-threads
 * What every pool of Bun Workers in crawlbox needs (OCR, parse workers): where its embedded script is, and
 * whether it keeps the process alive.
 */
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";

/**
 * The path of a worker script given by its path under `src/` (e.g. `documents/ocr/ocr-worker.ts`). From source:
 * the file itself. In the compiled binary (scripts/build.ts adds each worker as an extra entry point) every module
 * is bundled into `/$bunfs/root/crawlbox`, and a worker is embedded under its path relative to the entry points'
 * common folder (`src/`), with a `.js` extension.
 */
export function workerScriptPath(pathUnderSrc: string): string {
  if (Bun.main.startsWith("/$bunfs/")) return `${dirname(Bun.main)}/${pathUnderSrc.replace(/\.ts$/, ".js")}`;
  return fileURLToPath(new URL(`./${pathUnderSrc}`, import.meta.url));
}

/** Bun's Worker has `ref`/`unref` (Node's API) but its types lack them. */
type RefWorker = Worker & { ref(): void; unref(): void };

/**
 * Marks a worker as holding the process alive (it has work) or not (idle). An idle worker must not keep a CLI
 * run alive, and a *busy* unreferenced one makes Bun's main thread spin at 100 % of a core while it waits for the
 * reply when nothing else holds the event loop (measured; see documents/ocr/pool.ts).
 */
export function setWorkerBusy(worker: Worker, busy: boolean): void {
  if (busy) (worker as RefWorker).ref();
  else (worker as RefWorker).unref();
}
