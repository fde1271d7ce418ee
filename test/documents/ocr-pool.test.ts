/**
 * The OCR pool with the real worker: the main thread stays idle while a worker recognises (an unreferenced busy
 * Bun Worker made it spin at 100 % of a core, a third of the CPU with two workers on two cores), and language data
 * from the tessdata folder (CRAWLBOX_TESSDATA_DIR) is loaded next to the embedded English.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableLanguages } from "../../src/documents/ocr/languages.ts";
import { createOcrPool } from "../../src/documents/ocr/pool.ts";
import { renderRunsToPng } from "../fixtures/documents/pdf-builder.ts";

const EMBEDDED_ENG = join(import.meta.dir, "../../assets/tessdata/eng.traineddata.gz");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** CPU time of this process's main thread so far, in clock ticks (Linux /proc). */
function mainThreadTicks(): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

/** A page of text large enough to keep a worker busy for a while. */
async function textPage(): Promise<Uint8Array> {
  const words = "the quick brown fox jumps over the lazy dog while the committee reviews every proposal".split(" ");
  const runs = Array.from({ length: 30 }, (_, i) => ({ text: words.map((_, k) => words[(k + i) % words.length]).join(" "), x: 20, y: 30 + i * 22, size: 14 }));
  return renderRunsToPng(runs, 150, 620, 700);
}

describe("OCR pool with the real worker", () => {
  test.skipIf(!existsSync(`/proc/${process.pid}/task`))("the main thread stays idle while a worker recognises", async () => {
    const png = await textPage();
    const pool = createOcrPool({ size: 1, tessdataDir: "" });
    await pool.recognize(png, "eng"); // start the worker and load the model
    const ticks = mainThreadTicks();
    const started = performance.now();
    await pool.recognize(png, "eng");
    const busyMs = performance.now() - started;
    const mainMs = ((mainThreadTicks() - ticks) * 1000) / 100; // USER_HZ is 100 on Linux
    await pool.close();
    // Spinning, the main thread used about as much CPU as the job took; idle, a few ticks at most.
    expect(mainMs).toBeLessThan(Math.max(100, busyMs * 0.25));
  }, 60_000);

  test("languages in the tessdata folder are found and recognised with", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-tessdata-"));
    dirs.push(dir);
    // Any LSTM data works as a stand-in for another language: English under the code `xyz`.
    writeFileSync(join(dir, "xyz.traineddata.gz"), readFileSync(EMBEDDED_ENG));
    expect(availableLanguages(dir).sort()).toEqual(["eng", "xyz"]);
    const png = await renderRunsToPng([{ text: "Hello tessdata folder", x: 20, y: 40, size: 20 }], 150, 300, 60);
    const pool = createOcrPool({ size: 1, tessdataDir: dir });
    expect(await pool.recognize(png, "xyz")).toContain("tessdata");
    expect(await pool.recognize(png, "eng")).toContain("Hello");
    await pool.close();
  }, 60_000);
});
