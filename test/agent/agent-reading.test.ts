/**
 * What bounds an `/v2/agent` run's reading (maxCredits, effort, a model that cannot choose, the page budget, a
 * cancel by another process), the list of a key's runs, and a run a stopped server left behind.
 * The shop, the SearXNG fake and the model are in agent-shop.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { FakeLlm } from "../llm/fake-llm.ts";
import type { Harness } from "../helpers/harness.ts";
import { kind, SCHEMA, text, useAgentShop } from "./agent-shop.ts";

const shop = useAgentShop();
let h: Harness;
let apiUrl: string;
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ h, apiUrl, base, llm } = shop));
const { model, finished, start } = shop;

describe("/v2/agent", () => {
  test("maxCredits and effort bound what a run reads", async () => {
    llm.reset();
    llm.respond = model;
    const capped = await finished((await start({ urls: [`${base}/`], prompt: "products", schema: SCHEMA, maxCredits: 2 })).body.id);
    expect(capped.status).toBe("completed");
    expect(capped.creditsUsed).toBe(2);
    expect(capped.sources).toHaveLength(2);
    expect(capped.warning).toContain("maxCredits was reached after 2 pages");
    // effort low: 3 pages; a model that never says it is done still stops there.
    llm.respond = (req) => (kind(req) === "pick" ? { content: JSON.stringify({ read: [0, 1], done: false }) } : model(req));
    const low = await finished((await start({ urls: [`${base}/`], prompt: "everything", effort: "low" })).body.id);
    expect(low.sources).toHaveLength(3);
  });

  test("a model that cannot choose the next pages ends the reading, not the run: the answer comes from the pages read", async () => {
    llm.reset();
    // The pick is prose, twice (the answer and its repair turn); the final answer is fine. Before, the run failed
    // with LLM_INVALID_ANSWER blaming "the schema", having read and paid for its page.
    llm.respond = (req) => (kind(req) === "pick" ? { content: "I think you should read the toaster page." } : model(req));
    const run = await finished((await start({ urls: [`${base}/`], prompt: "List the products", schema: SCHEMA })).body.id);
    expect(run.status).toBe("completed");
    expect(run.sources).toEqual([`${base}/`]);
    expect(run.data).toEqual({ products: [] });
    expect(run.warning).toContain("The model could not choose the next pages to read (LLM_INVALID_ANSWER");
  });

  test("the page budget counts pages tried, not only those read; a page of 20,000 links offers a bounded list", async () => {
    llm.reset();
    // A model that always wants more: every pick names the first two candidates and never says it is done.
    llm.respond = (req) => (kind(req) === "pick" ? { content: JSON.stringify({ read: [0, 1], done: false }) } : model(req));
    const dead = await finished((await start({ urls: [`${base}/dead-ends`], prompt: "gone pages", effort: "low" })).body.id);
    expect(dead.status).toBe("completed");
    expect(dead.sources).toEqual([`${base}/dead-ends`]); // the 404s are not sources
    expect(dead.warning).toContain("could not be read");
    expect(llm.chats().filter((c) => kind(c) === "pick")).toHaveLength(1); // 1 read + 2 tried = the low budget of 3

    llm.reset();
    llm.respond = (req) => (kind(req) === "pick" ? { content: JSON.stringify({ read: [], done: true }) } : model(req));
    const t0 = performance.now();
    const many = await finished((await start({ urls: [`${base}/many-links`], prompt: "links" })).body.id);
    expect(many.status).toBe("completed");
    expect(performance.now() - t0).toBeLessThan(10_000);
    const listed = text(llm.chats().find((c) => kind(c) === "pick")!).match(/^\[\d+\] /gm)!;
    expect(listed).toHaveLength(40);
  });

  test("a run cancelled by another process (its row says so) stops before its next round", async () => {
    llm.reset();
    llm.respond = (req) => (kind(req) === "pick" ? { content: JSON.stringify({ read: [0], done: false }), delayMs: 500 } : model(req));
    const { body } = await start({ urls: [`${base}/`], prompt: "everything", effort: "high" });
    for (let i = 0; i < 200 && llm.chats().length === 0; i++) await Bun.sleep(10);
    h.services.db.query("UPDATE agent_jobs SET status = 'cancelled' WHERE id = ?").run(body.id);
    await Bun.sleep(1_500);
    expect(llm.chats().filter((c) => kind(c) === "pick")).toHaveLength(1);
    expect(llm.chats().filter((c) => kind(c) === "extract")).toHaveLength(0);
    expect(((await (await h.request(`/v2/agent/${body.id}`)).json()) as any).status).toBe("cancelled");
  });

  test("listing: the key's runs, newest first, in upstream's item shape; other keys see none of them", async () => {
    const { key } = h.services.keys.create("lister");
    llm.reset();
    llm.respond = model;
    // Started together, most likely within one millisecond: the list's time cursor must still skip none of them.
    const ids: string[] = [];
    for (const r of await Promise.all([0, 1, 2].map((i) => start({ urls: [`${base}/kettle`], prompt: `run ${i}`, strictConstrainToURLs: true }, h, key)))) ids.push(r.body.id);
    for (const id of ids) await finished(id, h, key);
    const created = ids.map((id) => h.services.agent.get(id, h.services.keys.verify(key)!.keyId)!.createdAt);
    expect(new Set(created).size).toBe(3);
    ids.sort((a, b) => created[ids.indexOf(a)]! - created[ids.indexOf(b)]!);
    const app = new Firecrawl({ apiKey: key, apiUrl });
    const list: any = await app.listAgents();
    expect(list.success).toBe(true);
    expect(list.agents.map((a: any) => a.id)).toEqual([...ids].reverse());
    expect(list.agents[0]).toMatchObject({ targetHint: "127.0.0.1", origin: "api", settings: { hidden: false, starred: false }, status: "completed", options: { model: "spark-2" } });
    const before = Date.parse(list.agents[0].createdAt);
    const older: any = await app.listAgents({ before });
    expect(older.agents.map((a: any) => a.id)).toEqual([ids[1], ids[0]]);
    expect((await h.request(`/v2/agent/${ids[0]}`)).status).toBe(404); // the harness's own key
    expect((await h.request("/v2/agent?before=yesterday")).status).toBe(400);
  });

  test("a run a stopped server left processing runs again at the next start", async () => {
    llm.reset();
    llm.respond = model;
    const now = Date.now();
    const request = { urls: [`${base}/toaster`], prompt: "prices", schema: SCHEMA, strictConstrainToURLs: true, model: "spark-2", origin: "api" };
    h.services.db
      .query("INSERT INTO agent_jobs (id, key_id, thread_id, turn, status, owner, attempts, request, created_at, updated_at, expires_at) VALUES ('left-over', ?, 'left-thread', 1, 'processing', 'dead-process', 1, ?, ?, ?, ?)")
      .run(h.services.keys.verify(h.key)!.keyId, JSON.stringify(request), now, now, now + 1000);
    expect(h.services.agent.resumeAbandoned()).toBe(1);
    const done = await finished("left-over");
    expect(done.data).toEqual({ products: [{ name: "Toaster", price: 40 }] });
  });

});
