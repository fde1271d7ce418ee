/**
 * agent/explore.ts with v1 deep research's limits: `maxRounds` (maxDepth less the first reading) and `readUntil`
 * (timeLimit) stop the model's picking with a warning, and the pages read so far are what the answer is drawn from.
 * The model client is a stand-in that counts its picks (explore only calls `structured` for them).
 */
import { describe, expect, test } from "bun:test";
import { explore, type ExploreOptions } from "../../src/agent/explore.ts";
import type { LlmClient } from "../../src/llm/client.ts";

/** A site where every page links to two more. */
function options(over: Partial<ExploreOptions>): { o: ExploreOptions; picks: () => number } {
  let picks = 0;
  const llm = { structured: async () => (picks++, { read: [0], done: false }) } as unknown as LlmClient;
  const o: ExploreOptions = {
    llm,
    call: () => ({ deadline: Date.now() + 10_000, tokenBudget: 100_000 }),
    spent: { tokens: 0 },
    task: "find the pages",
    urls: ["http://site.test/p/0"],
    strict: false,
    maxPages: 12,
    read: async (urls) => urls.map((url) => ({ url, markdown: `page ${url}`, links: [`${url}/a`, `${url}/b`] })),
    search: async () => [],
    affordable: () => true,
    onRead: () => undefined,
    active: () => true,
    warnings: [],
    ...over,
  };
  return { o, picks: () => picks };
}

describe("explore's research limits", () => {
  test("maxRounds: the first reading and at most that many picks", async () => {
    const { o, picks } = options({ maxRounds: 2 });
    const pages = await explore(o);
    expect(picks()).toBe(2);
    expect(pages).toHaveLength(3);
    expect(o.warnings).toEqual(["maxDepth was reached after 3 rounds of reading: the answer is drawn from the 3 pages read."]);
    const none = options({ maxRounds: 0 });
    expect(await explore(none.o)).toHaveLength(1);
    expect(none.picks()).toBe(0);
  });

  test("readUntil: no pick once the time is up; without limits the page budget ends it", async () => {
    let clock = 1_000;
    const { o, picks } = options({ readUntil: 1_500, now: () => clock, read: async (urls) => ((clock += 200), urls.map((url) => ({ url, markdown: "x", links: [`${url}/a`] }))) });
    const pages = await explore(o);
    // Read at 1,200 (first), pick, read at 1,400, pick, read at 1,600: the time is up.
    expect(pages).toHaveLength(3);
    expect(picks()).toBe(2);
    expect(o.warnings[0]).toStartWith("timeLimit was reached");
    const free = options({});
    expect(await explore(free.o)).toHaveLength(12);
    expect(free.o.warnings).toEqual([]);
  });
});
