/**
 * `/v2/agent`'s limits and refusals: credits left, runs processing, another key's thread, a run that stopped the
 * server three times, list paging, and requests refused before anything is stored.
 * The shop, the SearXNG fake and the model are in agent-shop.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import { SCHEMA, useAgentShop } from "./agent-shop.ts";

const shop = useAgentShop();
let h: Harness;
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ h, base, llm } = shop));
const { model, finished, start } = shop;

describe("/v2/agent", () => {
  test("limits: 402 under 20 credits left, 429 past 10 runs processing, another key's thread is 404, a run that stopped the server 3 times fails, the list pages with an absolute next", async () => {
    const poor = h.services.keys.create("poor", 5).key;
    const r402 = await start({ urls: [`${base}/kettle`], prompt: "p" }, h, poor);
    expect(r402.status).toBe(402);
    expect((await start({ urls: [`${base}/kettle`], prompt: "p", maxCredits: 4, strictConstrainToURLs: true }, h, poor)).status).toBe(200); // maxCredits lowers the bar

    const busy = h.services.keys.create("busy").key;
    const busyId = h.services.keys.verify(busy)!.keyId;
    const now = Date.now();
    const insert = h.services.db.query("INSERT INTO agent_jobs (id, key_id, thread_id, turn, status, owner, attempts, request, created_at, updated_at, expires_at) VALUES (?, ?, ?, 1, ?, 'elsewhere', ?, ?, ?, ?, ?)");
    const request = JSON.stringify({ urls: [`${base}/toaster`], prompt: "prices", schema: SCHEMA, strictConstrainToURLs: true, model: "spark-2", origin: "api" });
    for (let i = 0; i < 10; i++) insert.run(`busy-${i}`, busyId, `busy-thread-${i}`, "processing", 1, request, now - 1000 + i, now, now + 1000);
    const r429 = await start({ urls: [`${base}/kettle`], prompt: "p" }, h, busy);
    expect(r429.status).toBe(429);
    expect(r429.body.code).toBe("TOO_MANY_AGENT_RUNS");
    // The thread of another key is not found, even by its id.
    expect((await start({ urls: [`${base}/kettle`], prompt: "p", threadId: "busy-thread-0" })).status).toBe(400); // not a UUID
    const foreign = crypto.randomUUID();
    insert.run("foreign-run", busyId, foreign, "completed", 1, request, now, now, now + 60_000);
    const r404 = await start({ urls: [`${base}/kettle`], prompt: "p", threadId: foreign });
    expect(r404.status).toBe(404);
    expect(r404.body).toMatchObject({ success: false, code: "thread_not_found", error: "Thread not found." });
    const unknown = await start({ urls: [`${base}/kettle`], prompt: "p", threadId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("thread_not_found");

    // Three attempts already: the next start fails it instead of running it a fourth time.
    const me = h.services.keys.verify(h.key)!.keyId;
    insert.run("crashed-thrice", me, crypto.randomUUID(), "processing", 3, request, now, now, now + 1000);
    h.services.agent.resumeAbandoned();
    const gaveUp = await finished("crashed-thrice");
    expect(gaveUp).toMatchObject({ success: false, status: "failed" });
    expect(gaveUp.error).toContain("3 times");

    // 21 finished runs of one key: a page of 20 and an absolute next that leads to the 21st.
    const many = h.services.keys.create("many").key;
    const manyId = h.services.keys.verify(many)!.keyId;
    for (let i = 0; i < 21; i++) insert.run(`old-${i}`, manyId, crypto.randomUUID(), "completed", 1, request, now - 100_000 + i, now, now + 60_000);
    const page1 = (await (await h.request("/v2/agent", { auth: many })).json()) as any;
    expect(page1.agents).toHaveLength(20);
    expect(page1.agents[0].id).toBe("old-20");
    const next = new URL(page1.next); // absolute: the request's own host (CRAWLBOX_PUBLIC_URL when set)
    expect(next.pathname + next.search).toBe(`/v2/agent?before=${now - 100_000 + 1}`);
    const page2 = (await (await h.request(next.pathname + next.search, { auth: many })).json()) as any;
    expect(page2.agents.map((a: any) => a.id)).toEqual(["old-0"]);
    expect(page2.next).toBeUndefined();
  });

  test("refused before anything is stored: no LLM, no search backend and no urls, strict without urls, bad bodies", async () => {
    const bare = await createHarness();
    try {
      const r = await start({ urls: [`${base}/`], prompt: "p" }, bare);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("LLM_NOT_CONFIGURED");
    } finally {
      await bare.close();
    }
    const noSearch = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
    try {
      const r = await start({ prompt: "p" }, noSearch);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("SEARXNG_ENDPOINT");
    } finally {
      await noSearch.close();
    }
    expect((await start({ prompt: "p", strictConstrainToURLs: true })).body.error).toContain("strictConstrainToURLs needs urls");
    expect((await start({ prompt: "p", maxCredits: 2 })).body.error).toContain("cannot pay for the web search");
    // With urls, a cap below one page's credit would read nothing and fail: refused up front.
    const tooLow = await start({ urls: [`${base}/kettle`], prompt: "p", maxCredits: 0.5 });
    expect([tooLow.status, tooLow.body.error]).toEqual([400, "maxCredits 0.5 cannot pay for one page (1 credit); raise it to at least 1."]);
    expect((await start({ urls: [`${base}/`] })).status).toBe(400); // prompt is required
    // An empty prompt without urls gives the run nothing to search for: refused, naming prompt, nothing stored.
    const runsBefore = (h.services.db.query("SELECT COUNT(*) AS n FROM agent_jobs").get() as any).n;
    for (const prompt of ["", "  \n\t "]) {
      const r = await start({ prompt });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: "BAD_REQUEST", details: [{ path: ["prompt"] }] });
      expect(r.body.error).toContain("prompt");
    }
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM agent_jobs").get() as any).n).toBe(runsBefore);
    expect((await start({ prompt: "p", urls: [`${base}/`], schema: { type: "nonsense" } })).status).toBe(400);
    expect((await h.request(`/v2/agent/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.request(`/v2/agent/${crypto.randomUUID()}`, { method: "DELETE" })).status).toBe(404);
  });
});
