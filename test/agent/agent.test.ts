/**
 * `/v2/agent` (src/agent) through the API and the official SDK: a run that reads the caller's page and then the
 * links the model picks, one confined to its URLs, one that starts from a web search; chat mode and threads (the
 * earlier turn reaches the model; a busy thread is a 409 with the busy run's id); cancel; maxCredits and effort;
 * webhooks; listing; a run a stopped server left behind; refusals. The LLM is the local fake speaking Ollama's
 * protocol, answering from what it is sent; SearXNG a local server speaking its JSON API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { startFakeSearxng, type FakeSearxng } from "../fixtures/searxng.ts";

let site: ReturnType<typeof Bun.serve>;
let searx: FakeSearxng;
let hooks: HookReceiver;
let llm: FakeLlm;
let h: Harness;
let apiUrl: string;
let base: string;
/** Delay of the model's answers (cancel and busy-thread tests slow it down). */
let slowMs = 0;

const page = (title: string, body: string) =>
  new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

const text = (req: LlmRequestLog) => req.messages.map((m) => m.content).join("\n");
const kind = (req: LlmRequestLog) => {
  const system = req.messages.find((m) => m.role === "system")?.content ?? "";
  return system.includes("reads web pages to complete a task") ? "pick" : system.includes("answering the user") ? "chat" : "extract";
};

/** A model that does the job with what it is sent: picks product links until both products were read. */
function model(req: LlmRequestLog) {
  const sent = text(req);
  const k = kind(req);
  if (k === "pick") {
    const read = sent.slice(sent.indexOf("Pages read so far:"), sent.indexOf("Candidate links:"));
    const wanted = ["/kettle", "/toaster"].filter((p) => !read.includes(`(${base}${p}): `));
    const lines = [...sent.matchAll(/^\[(\d+)\] .*?(\S+)$/gm)].map((m) => ({ n: Number(m[1]), url: m[2]! }));
    const picks = lines.filter((l) => wanted.some((w) => l.url === `${base}${w}`)).map((l) => l.n);
    return { content: JSON.stringify({ read: picks, done: wanted.length === 0 }), delayMs: slowMs };
  }
  const products = [...sent.matchAll(/The (\w+) costs (\d+) EUR/g)].map((m) => ({ name: m[1], price: Number(m[2]) }));
  if (k === "chat") {
    const followUp = sent.includes("earlier turns of this conversation") ? " (as a follow-up)" : "";
    return { content: `Prices${followUp}: ${products.map((p) => `${p.name} ${p.price} EUR`).join(", ")}.`, delayMs: slowMs };
  }
  return { content: JSON.stringify({ products }), delayMs: slowMs };
}

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/") return page("Shop", `<p>Our shop.</p><a href="/about">About us</a> <a href="/kettle">Kettle</a> <a href="/toaster">Toaster</a> <a href="/contact">Contact</a>`);
      if (p === "/kettle") return page("Kettle", `<p>The Kettle costs 25 EUR and holds 1.7 litres.</p><a href="/">Shop</a>`);
      if (p === "/toaster") return page("Toaster", `<p>The Toaster costs 40 EUR and has four slots.</p><a href="/">Shop</a>`);
      if (p === "/about") return page("About", "<p>A small shop.</p>");
      if (p === "/contact") return page("Contact", "<p>Write to us.</p>");
      if (p === "/dead-ends") return page("Dead ends", Array.from({ length: 50 }, (_, i) => `<a href="/gone/${i}">Gone ${i}</a>`).join(" "));
      if (p === "/many-links") return page("Many links", Array.from({ length: 20_000 }, (_, i) => `<a href="/l/${i}">L${i}</a>`).join(" "));
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  searx = startFakeSearxng(() => [
    { url: `${base}/toaster`, title: "Toaster", content: "A toaster" },
    { url: `${base}/kettle`, title: "Kettle", content: "A kettle" },
    { url: `${base}/about`, title: "About", content: "About the shop" },
  ]);
  hooks = startHookReceiver();
  llm = startFakeLlm();
  llm.respond = model;
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", searxngEndpoint: searx.url, allowPrivateWebhooks: true });
  apiUrl = h.listen();
});

afterAll(async () => {
  await h.close();
  site.stop(true);
  searx.stop();
  hooks.stop();
  llm.stop();
});

const SCHEMA = { type: "object", properties: { products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } }, required: ["products"] };

async function finished(id: string, harness = h, auth?: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const s = (await (await harness.request(`/v2/agent/${id}`, auth ? { auth } : {})).json()) as any;
    if (s.status !== "processing") return s;
    await Bun.sleep(25);
  }
  throw new Error("agent run did not finish");
}

const start = async (body: Record<string, unknown>, harness = h, auth?: string) => {
  const res = await harness.request("/v2/agent", { method: "POST", json: body, ...(auth ? { auth } : {}) });
  return { status: res.status, body: (await res.json()) as any };
};

describe("/v2/agent", () => {
  test("the official SDK's agent: the caller's page, then the links the model picks, and the answer from all of them", async () => {
    llm.reset();
    llm.respond = model;
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const out: any = await app.agent({ urls: [`${base}/`], prompt: "List the shop's products and their prices", schema: SCHEMA, pollInterval: 1 });
    expect(out.status).toBe("completed");
    expect(out.success).toBe(true);
    expect(out.data.products).toEqual([{ name: "Kettle", price: 25 }, { name: "Toaster", price: 40 }]);
    expect(out.model).toBe("spark-2");
    expect(out.mode).toBe("extract");
    expect(out.sources).toEqual([`${base}/`, `${base}/kettle`, `${base}/toaster`]);
    expect(out.creditsUsed).toBe(3);
    expect(out.threadTurn).toBe(1);
    expect(new Date(out.expiresAt).getTime()).toBeGreaterThan(Date.now());
    // The model chose from the links it was shown, and said when it was done.
    const picks = llm.chats().filter((c) => kind(c) === "pick");
    expect(picks.length).toBe(2);
    expect(text(picks[0]!)).toContain(`${base}/about`);
    expect(picks[0]!.schema).toMatchObject({ required: ["read", "done"] });
    expect(text(llm.chats().at(-1)!)).toContain(`Source: ${base}/toaster`);

    // The trace says what the run did, in order; the answer is its snapshot. (The waiter's answer is the status,
    // which has no id: the run is the key's newest.)
    const id = ((await app.listAgents()) as any).agents[0].id;
    const trace: any = await app.getAgentTrace(id);
    expect(trace.success).toBe(true);
    expect(trace.events.map((e: any) => e.type)).toEqual([
      "run.started", "progress.reported",
      "tool_call.started", "tool_call.finished", "reasoning.summary",
      "tool_call.started", "tool_call.started", "tool_call.finished", "tool_call.finished", "reasoning.summary",
      "progress.reported", "artifact.updated", "run.finished",
    ]);
    expect(trace.events.map((e: any) => e.producerSequence)).toEqual(trace.events.map((_: unknown, i: number) => i + 1));
    expect(trace.events[2]).toMatchObject({ schemaVersion: 1, runId: id, toolName: "scrape", parameters: { url: `${base}/` }, agent: { role: "orchestrator" } });
    expect(trace.events[3].result).toMatchObject({ url: `${base}/`, title: "Shop" });
    expect(trace.events[4].text).toBe(`Reading next: ${base}/kettle, ${base}/toaster.`);
    expect(trace.events.at(-1)).toMatchObject({ type: "run.finished", outcome: "succeeded", error: null });
    const artifact = trace.events.find((e: any) => e.type === "artifact.updated").artifact;
    expect(artifact).toMatchObject({ kind: "json", artifactId: "answer", change: "init" });
    const snap: any = await app.getAgentSnapshot(id, artifact.snapshotId);
    expect(JSON.parse(snap.snapshot)).toEqual(out.data);
    expect((await h.request(`/v2/agent/${id}/snapshots/${crypto.randomUUID()}`)).status).toBe(404);
    expect(((await (await h.request(`/v2/agent/${id}/trace?liveView=true`)).json()) as any).activeBrowserSessions).toEqual([]);
  });

  test("strictConstrainToURLs reads the given URLs only: no links followed, no model picks", async () => {
    llm.reset();
    llm.respond = model;
    const { status, body } = await start({ urls: [`${base}/kettle`], prompt: "prices", schema: SCHEMA, strictConstrainToURLs: true });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, id: expect.any(String), threadId: expect.any(String), threadTurn: 1 });
    const done = await finished(body.id);
    expect(done.sources).toEqual([`${base}/kettle`]);
    expect(done.data).toEqual({ products: [{ name: "Kettle", price: 25 }] });
    expect(llm.chats().filter((c) => kind(c) === "pick")).toHaveLength(0);
    // Cancelling it now changes nothing: a 200 (the SDK throws on anything else) that says it did not cancel, so the
    // SDK's cancelAgent ("true if cancelled") answers false.
    const late = await h.request(`/v2/agent/${body.id}`, { method: "DELETE" });
    expect([late.status, await late.json()]).toEqual([200, { success: false, status: "completed" }]);
    expect(await new Firecrawl({ apiKey: h.key, apiUrl }).cancelAgent(body.id)).toBe(false);
    expect((await finished(body.id)).status).toBe("completed");
  });

  test("without urls the run starts from a web search for the prompt; the search's credits are the run's", async () => {
    llm.reset();
    llm.respond = model;
    const { body } = await start({ prompt: "kettle and toaster prices", schema: SCHEMA, effort: "low" });
    const done = await finished(body.id);
    expect(done.status).toBe("completed");
    expect(done.sources.slice(0, 2)).toEqual([`${base}/toaster`, `${base}/kettle`]);
    expect(done.data.products.map((p: any) => p.name).sort()).toEqual(["Kettle", "Toaster"]);
    expect(done.creditsUsed).toBe(2 + done.sources.length);
    expect(done.effort).toBe("low");
  });

  test("chat mode answers in message; a second turn on the thread carries the first; the thread lists both", async () => {
    llm.reset();
    llm.respond = model;
    const first = await start({ urls: [`${base}/kettle`], prompt: "How much is the kettle?", mode: "chat", strictConstrainToURLs: true });
    const one = await finished(first.body.id);
    expect(one.message).toBe("Prices: Kettle 25 EUR.");
    expect(one.data).toBeUndefined();
    const second = await start({ urls: [`${base}/toaster`], prompt: "And the toaster?", mode: "chat", strictConstrainToURLs: true, threadId: first.body.threadId });
    expect(second.body).toMatchObject({ threadId: first.body.threadId, threadTurn: 2 });
    const two = await finished(second.body.id);
    expect(two.message).toBe("Prices (as a follow-up): Toaster 40 EUR.");
    const sent = text(llm.chats().at(-1)!);
    // The earlier answer was written from a web page: it reaches the model inside a delimited data block.
    expect(sent).toMatch(/<<<PAGE_CONTENT id=(\w+) \(earlier turns\)>>>\nUser: How much is the kettle\?\nYou: Prices: Kettle 25 EUR\.\n<<<END_PAGE_CONTENT id=\1>>>/);
    const thread = (await (await h.request(`/v2/agent/threads/${first.body.threadId}`)).json()) as any;
    expect(thread.success).toBe(true);
    expect(thread.thread.status).toBe("idle");
    expect(thread.thread.runs.map((r: any) => [r.turn, r.status, r.prompt, r.message])).toEqual([
      [1, "succeeded", "How much is the kettle?", "Prices: Kettle 25 EUR."],
      [2, "succeeded", "And the toaster?", "Prices (as a follow-up): Toaster 40 EUR."],
    ]);
    const unknownThread = await h.request(`/v2/agent/threads/${crypto.randomUUID()}`);
    expect(unknownThread.status).toBe(404);
    expect(((await unknownThread.json()) as any).code).toBe("thread_not_found");
  });

  test("cancel: the run stops and says so (webhook too); a second cancel is a 200 with its status; a busy thread is a 409 thread_busy with the run's id", async () => {
    llm.reset();
    llm.respond = model;
    slowMs = 3_000;
    try {
      const webhook = { url: `http://127.0.0.1:${hooks.port}/hook` };
      const { body } = await start({ urls: [`${base}/`], prompt: "products", webhook });
      for (let i = 0; i < 100 && llm.chats().length === 0; i++) await Bun.sleep(20);
      const busy = await start({ urls: [`${base}/kettle`], prompt: "more", threadId: body.threadId });
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ success: false, code: "thread_busy", runId: body.id });
      const app = new Firecrawl({ apiKey: h.key, apiUrl });
      expect(await app.cancelAgent(body.id)).toBe(true);
      const status = (await (await h.request(`/v2/agent/${body.id}`)).json()) as any;
      expect(status.status).toBe("cancelled");
      // Cancelling a run that has ended is upstream's {success} (api-v2.md §2.9), with the status it ended in; the
      // SDK's cancelAgent throws on anything but a 200.
      const again = await h.request(`/v2/agent/${body.id}`, { method: "DELETE" });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ success: true, status: "cancelled" });
      expect(await app.cancelAgent(body.id)).toBe(true);
      for (let i = 0; i < 100 && !hooks.bodies.some((b) => b.id === body.id && b.type === "agent.cancelled"); i++) await Bun.sleep(20);
      const types = hooks.bodies.filter((b) => b.id === body.id).map((b) => b.type);
      expect(types[0]).toBe("agent.started");
      expect(types).toContain("agent.action");
      expect(types.at(-1)).toBe("agent.cancelled");
      expect(hooks.bodies.find((b) => b.id === body.id && b.type === "agent.cancelled")).toMatchObject({ success: false, error: "The agent run was cancelled.", data: [] });
      const trace = (await (await h.request(`/v2/agent/${body.id}/trace`)).json()) as any;
      expect(trace.events.slice(-3).map((e: any) => e.type)).toEqual(["run.cancel_requested", "error.occurred", "run.finished"]);
      expect(trace.events.at(-1)).toMatchObject({ outcome: "cancelled", error: { code: "cancelled" } });
    } finally {
      slowMs = 0;
    }
  });

  test("webhooks: started, an action per page read, completed with the answer", async () => {
    llm.reset();
    llm.respond = model;
    const webhook = { url: `http://127.0.0.1:${hooks.port}/hook`, metadata: { run: "a1" } };
    const { body } = await start({ urls: [`${base}/`], prompt: "products", schema: SCHEMA, webhook });
    await finished(body.id);
    for (let i = 0; i < 100 && !hooks.bodies.some((b) => b.id === body.id && b.type === "agent.completed"); i++) await Bun.sleep(20);
    const mine = hooks.bodies.filter((b) => b.id === body.id);
    expect(mine.map((b) => b.type)).toEqual(["agent.started", "agent.action", "agent.action", "agent.action", "agent.completed"]);
    expect(mine.filter((b) => b.type === "agent.action").map((b) => b.data[0].url)).toEqual([`${base}/`, `${base}/kettle`, `${base}/toaster`]);
    expect(mine.at(-1).data[0].products).toHaveLength(2);
    expect(mine.at(-1).metadata).toEqual({ run: "a1" });
  });

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
