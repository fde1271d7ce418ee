/**
 * Bodies nested deeper than any /v2 request needs are a 400, not a stack overflow (500) in the recursive
 * validators; the depth scan ignores brackets inside strings.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/server/body-parser.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

test("a 50,000-deep body is a 400 on every kind of route, with or without an Idempotency-Key", async () => {
  const deep = `{"url":"https://example.com","x":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
  for (const [path, headers] of [["/v2/scrape", {}], ["/v2/scrape", { "idempotency-key": "deep" }], ["/v2/crawl", {}], ["/v2/search", {}]] as const) {
    const res = await h.request(path, { method: "POST", body: deep, headers: { "content-type": "application/json", ...headers } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toContain(`deeper than ${MAX_JSON_DEPTH}`);
  }
});

test("the scan counts only structure, not brackets in strings", () => {
  expect(nestsDeeperThan(`{"a":"${"[".repeat(500)}"}`, 128)).toBe(false);
  expect(nestsDeeperThan(`{"a":"\\"${"{".repeat(500)}"}`, 128)).toBe(false);
  expect(nestsDeeperThan(`${"[".repeat(129)}${"]".repeat(129)}`, 128)).toBe(true);
  expect(nestsDeeperThan(`${"[".repeat(128)}${"]".repeat(128)}`, 128)).toBe(false);
});
