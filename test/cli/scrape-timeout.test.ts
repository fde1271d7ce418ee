/**
 * `crawlbox scrape --timeout N` is a deadline of N ms, 30000 included. The API raises an explicit `timeout: 30000`
 * to 120000 (upstream's legacy rule for old SDK clients); the CLI passed its flag as that field and inherited it, so
 * `--timeout 30000` waited 120 s where leaving the flag out (the same documented default) waited 30 s.
 */
import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliScrapeSpec } from "../../src/cli/scrape.ts";
import { testConfig } from "../../src/config.ts";

test("--timeout is the deadline as given; without it, the server's default", () => {
  // A data folder is named but never made: building a spec opens nothing (testConfig would make a temporary one).
  const config = testConfig({ defaultTimeoutMs: 30_000, dataDir: join(tmpdir(), "crawlbox-unused-data-dir") });
  const body = (timeout?: number) => ({ url: "https://example.com/", formats: ["markdown"], origin: "cli", ...(timeout === undefined ? {} : { timeout }) });
  expect(cliScrapeSpec(body(30_000), config).timeoutMs).toBe(30_000);
  expect(cliScrapeSpec(body(45_000), config).timeoutMs).toBe(45_000);
  expect(cliScrapeSpec(body(), config).timeoutMs).toBe(30_000);
});
