/**
 * `/v2/agent` (src/agent) runs through the API and the official SDK: a run that reads the caller's page and then
 * the links the model picks, one confined to its URLs, one that starts from a web search; chat mode and threads (the
 * earlier turn reaches the model; a busy thread is a 409 with the busy run's id); cancel; webhooks.
 * The shop, the SearXNG fake and the model are in agent-shop.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { HookReceiver } from "../fixtures/hook-receiver.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import type { Harness } from "../helpers/harness.ts";
import { kind, SCHEMA, text, useAgentShop } from "./agent-shop.ts";

const shop = useAgentShop();
let h: Harness;
let apiUrl: string;
let base: string;
let llm: FakeLlm;
let hooks: HookReceiver;
beforeAll(() => ({ h, apiUrl, base, llm, hooks } = shop));
const { model, finished, start } = shop;

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
    shop.slowMs = 3_000;
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
      shop.slowMs = 0;
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
    // Up to four of a job's events are in flight at once, so two pages may arrive swapped (docs/webhooks.md, "Order").
    expect(mine.filter((b) => b.type === "agent.action").map((b) => b.data[0].url).sort()).toEqual([`${base}/`, `${base}/kettle`, `${base}/toaster`]);
    expect(mine.at(-1).data[0].products).toHaveLength(2);
    expect(mine.at(-1).metadata).toEqual({ run: "a1" });
  });

});
