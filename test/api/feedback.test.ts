/**
 * `/v2/feedback` and `/v2/search/{id}/feedback` (src/server/routes/feedback.ts) through the official SDK's `feedback`
 * and `searchFeedback`: feedback kept in SQLite, once per key, endpoint and job (a second answers
 * `alreadySubmitted` with the first's id); read back, newest first and per key, with `GET /v2/feedback`; bounded
 * bodies refused with the field named; the daily limit; old feedback pruned.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { FEEDBACK_TTL_MS, MAX_FEEDBACK_PER_DAY } from "../../src/feedback/store.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let app: Firecrawl;

beforeAll(async () => {
  h = await createHarness({ browserEnabled: false });
  app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(() => h.close());

describe("feedback", () => {
  test("kept once per job, read back newest first, per key", async () => {
    const first: any = await app.feedback({ endpoint: "scrape", jobId: "job-1", rating: "bad", issues: ["missing table"], note: "the price table is gone", pageNumbers: [2], metadata: { selector: "#prices" } });
    expect(first).toEqual({ success: true, feedbackId: expect.stringMatching(/^[0-9a-f-]{36}$/), creditsRefunded: 0 });
    const again: any = await app.feedback({ endpoint: "scrape", jobId: "job-1", rating: "good" });
    expect(again).toEqual({ success: true, feedbackId: first.feedbackId, creditsRefunded: 0, alreadySubmitted: true });
    // The same job id on another endpoint is another job.
    expect(((await app.feedback({ endpoint: "map", jobId: "job-1", rating: "partial" })) as any).alreadySubmitted).toBeUndefined();
    const search: any = await app.searchFeedback("search-9", { rating: "partial", valuableSources: [{ url: "https://a.example/", reason: "primary source" }], missingContent: [{ topic: "pricing" }], querySuggestions: "add the year" });
    expect(search.success).toBe(true);

    const listed: any = await (await h.request("/v2/feedback")).json();
    expect(listed.feedback.map((f: any) => [f.endpoint, f.jobId, f.rating])).toEqual([
      ["search", "search-9", "partial"],
      ["map", "job-1", "partial"],
      ["scrape", "job-1", "bad"],
    ]);
    // What was sent is kept as sent (the first rating, not the repeat's).
    expect(listed.feedback[2].feedback).toMatchObject({ note: "the price table is gone", issues: ["missing table"], pageNumbers: [2], metadata: { selector: "#prices" } });
    expect(listed.feedback[0].feedback).toMatchObject({ endpoint: "search", jobId: "search-9", missingContent: [{ topic: "pricing" }] });
    const other = h.services.keys.create("other").key;
    expect(((await (await h.request("/v2/feedback", { auth: other })).json()) as any).feedback).toEqual([]);
  });

  test("bad bodies are 400s naming the field", async () => {
    const bad: [unknown, string][] = [
      [{ endpoint: "crawl", jobId: "j", rating: "good" }, "endpoint"],
      [{ endpoint: "scrape", jobId: "j", rating: "great" }, "rating"],
      [{ endpoint: "scrape", rating: "good" }, "jobId"],
      [{ endpoint: "scrape", jobId: "j", rating: "good", extra: 1 }, "extra"],
      [{ endpoint: "scrape", jobId: "j", rating: "good", metadata: { blob: "x".repeat(9_000) } }, "metadata"],
      [{ endpoint: "scrape", jobId: "j", rating: "good", note: "x".repeat(5_001) }, "note"],
    ];
    for (const [json, field] of bad) {
      const res = await h.request("/v2/feedback", { method: "POST", json });
      const body = (await res.json()) as any;
      expect([field, res.status, body.code]).toEqual([field, 400, "BAD_REQUEST"]);
      expect(JSON.stringify(body.details)).toContain(field);
    }
    expect((await h.request("/v2/search/s/feedback", { method: "POST", json: { rating: "good", endpoint: "search" } })).status).toBe(400);
    expect((await h.request("/v2/feedback?after=yesterday")).status).toBe(400);
    expect((await h.request(`/v2/search/${"x".repeat(201)}/feedback`, { method: "POST", json: { rating: "good" } })).status).toBe(400);
    expect((await h.request("/v2/feedback", { method: "POST", json: { endpoint: "scrape", jobId: "j", rating: "good" }, auth: null })).status).toBe(401);
  });

  test("pages of GET /v2/feedback neither skip nor repeat feedback left in the same millisecond", async () => {
    const keyId = h.services.keys.create("pager").key;
    const who = h.services.keys.verify(keyId)!;
    const now = Date.now();
    // 230 in all, in runs of 23 sharing a millisecond, so that page boundaries fall inside runs.
    for (let i = 0; i < 230; i++) h.services.feedback.add(who.keyId, "scrape", `p${i}`, "good", {}, now - Math.floor(i / 23));
    const seen: string[] = [];
    let url: string | undefined = "/v2/feedback";
    while (url) {
      const page = (await (await h.request(url.replace(/^https?:\/\/[^/]+/, ""), { auth: keyId })).json()) as any;
      seen.push(...page.feedback.map((f: any) => f.jobId));
      url = page.next;
    }
    expect(seen.length).toBe(230);
    expect(new Set(seen).size).toBe(230);
  });

  test("a key's daily limit is a 429; feedback older than its time is pruned", () => {
    const store = h.services.feedback;
    const now = Date.now();
    for (let i = 0; i < MAX_FEEDBACK_PER_DAY; i++) store.add("busy-key", "scrape", `j${i}`, "good", {}, now);
    expect(() => store.add("busy-key", "scrape", "one-more", "good", {}, now)).toThrow(expect.objectContaining({ status: 429, code: "FEEDBACK_LIMIT", details: { retryAfterSeconds: 3600 } }));
    // A repeat is not new feedback: it still answers.
    expect(store.add("busy-key", "scrape", "j0", "bad", {}, now).alreadySubmitted).toBe(true);
    expect(store.add("busy-key", "scrape", "next-day", "good", {}, now + 24 * 60 * 60 * 1000 + 1).alreadySubmitted).toBe(false);
    expect(store.prune(now + FEEDBACK_TTL_MS + 1)).toBeGreaterThanOrEqual(MAX_FEEDBACK_PER_DAY); // and the earlier tests'
    expect(store.list("busy-key", 10).map((f) => f.jobId)).toEqual(["next-day"]);
  });
});
