/**
 * Parse workers (src/scrape/parse-workers) that fail: a worker that crashes or exits costs only the hand-over (the
 * page is parsed on the main thread and the worker replaced), repeated crashes turn the pool off, and one that hangs
 * is stopped at the scrape's deadline. Real workers (the fixtures in test/fixtures/parse-workers), real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createParsePool, MAX_CRASHES_IN_A_ROW } from "../../src/scrape/parse-workers/pool.ts";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { scrape, withPool } from "./parse-workers-helpers.ts";

let site: FixtureSite;

beforeAll(() => {
  site = startFixtureSite();
});

afterAll(() => {
  site.stop();
});

describe("failing workers", () => {
  const fixture = (name: string) => join(import.meta.dir, "..", "fixtures", "parse-workers", `${name}.ts`);

  for (const kind of ["crash", "exit"]) {
    test(`a worker that ${kind === "crash" ? "throws" : "exits"}: the page is parsed on the main thread and the worker replaced`, async () => {
      const warnings: string[] = [];
      const pool = createParsePool({ size: 1, largePageChars: 0, workerPath: fixture(kind), onWorkerError: (m) => warnings.push(m) });
      const h = await withPool(pool);
      try {
        for (let i = 0; i < 2; i++) {
          const doc = await scrape(h, { url: `${site.url}/article`, formats: ["markdown"] });
          expect(doc.markdown).toContain("Growing Tomatoes Indoors");
        }
        expect(pool.stats()).toMatchObject({ offloaded: 0, failed: 2, disabled: false });
        expect(warnings.filter((w) => w.includes(kind === "crash" ? "parse worker crashed" : "parse worker exited")).length).toBe(2);
      } finally {
        await h.close();
      }
    });
  }

  test(`${MAX_CRASHES_IN_A_ROW} crashes in a row turn the pool off: no more threads are started`, async () => {
    const warnings: string[] = [];
    const pool = createParsePool({ size: 1, largePageChars: 0, workerPath: fixture("crash"), onWorkerError: (m) => warnings.push(m) });
    const h = await withPool(pool);
    try {
      for (let i = 0; i < MAX_CRASHES_IN_A_ROW + 2; i++) await scrape(h, { url: `${site.url}/article`, formats: ["markdown"] });
      expect(pool.stats()).toMatchObject({ failed: MAX_CRASHES_IN_A_ROW, disabled: true, live: 0 });
      expect(warnings.filter((w) => w.includes("turned off")).length).toBe(1);
    } finally {
      await h.close();
    }
  });

  test("a worker still parsing at the scrape's deadline is stopped and the scrape times out", async () => {
    const pool = createParsePool({ size: 1, largePageChars: 0, workerPath: fixture("silent") });
    const h = await withPool(pool);
    try {
      const started = performance.now();
      const err = await scrape(h, { url: `${site.url}/article`, formats: ["markdown"], timeout: 1000 }, 408);
      expect(err).toMatchObject({ success: false, code: "SCRAPE_TIMEOUT" });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(pool.stats()).toMatchObject({ timedOut: 1, live: 0, disabled: false });
    } finally {
      await h.close();
    }
  });
});
