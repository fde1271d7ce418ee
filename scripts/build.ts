/**
 * Builds the single binary `dist/crawlbox`: `bun build --compile` of src/main.ts with every asset embedded
 * (files imported `with { type: "file" }`), as ESM so that top-level await works with `--bytecode`
 * (stack-notes.md, "the single binary"). Extra entry points (workers) are added here as they appear.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const OUTFILE = join(ROOT, "dist", "crawlbox");
/**
 * Workers compiled into the same binary. Each pool finds its script with `workerScriptPath` (src/worker-threads.ts),
 * which maps a path under `src/` to the embedded entry point.
 */
const EXTRA_ENTRYPOINTS: string[] = ["src/documents/ocr/ocr-worker.ts", "src/documents/isolate/document-worker.ts", "src/scrape/parse-workers/worker.ts"];

mkdirSync(join(ROOT, "dist"), { recursive: true });
const started = performance.now();
const proc = Bun.spawnSync(
  [
    process.execPath,
    "build",
    "--compile",
    "--format=esm",
    "--minify",
    "--bytecode",
    "--sourcemap=none",
    join(ROOT, "src", "main.ts"),
    ...EXTRA_ENTRYPOINTS.map((e) => join(ROOT, e)),
    "--outfile",
    OUTFILE,
  ],
  { cwd: ROOT, stdout: "inherit", stderr: "inherit" },
);
if (proc.exitCode !== 0) {
  console.error(`build failed (exit ${proc.exitCode})`);
  process.exit(proc.exitCode ?? 1);
}
const sizeMb = (Bun.file(OUTFILE).size / 1024 / 1024).toFixed(1);
console.log(`built ${OUTFILE} (${sizeMb} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
