/**
 * What the parse-worker tests (parse-workers.test.ts, parse-workers-failing.test.ts) share: a scrape through a
 * harness that checks the status, and a harness whose pages all go to a given parse pool.
 */
import { expect } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import type { ParsePool } from "../../src/scrape/parse-workers/pool.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** POST /v2/scrape (maxAge 0 unless given); expects `status` and gives the document, or the error body. */
export async function scrape(h: Harness, body: Record<string, unknown>, status = 200) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { maxAge: 0, ...body } });
  const json = (await res.json()) as any;
  expect(res.status).toBe(status);
  return status === 200 ? json.data : json;
}

/** A harness whose pages all go to the given pool. */
export const withPool = (pool: ParsePool, overrides = {}) => createHarness({ parseWorkers: 1, ...overrides }, { parsePool: pool, log: silentLogger });
