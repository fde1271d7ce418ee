/**
 * The shared set-up of the `/v2/agent` tests (agent-runs, agent-reading, agent-refusals): a small shop site, a
 * SearXNG fake that finds its pages, a webhook receiver, and the fake LLM speaking Ollama's protocol with `model`, a
 * model that does the job with what it is sent.
 */
import { afterAll, beforeAll } from "bun:test";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { startFakeSearxng, type FakeSearxng } from "../fixtures/searxng.ts";

/** A shop page titled `title`. */
export const page = (title: string, body: string) =>
  new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

/** Everything a model request sent, as one text. */
export const text = (req: LlmRequestLog) => req.messages.map((m) => m.content).join("\n");
/** Which of the agent's calls a model request is: choosing links, a chat answer, or an extraction. */
export const kind = (req: LlmRequestLog) => {
  const system = req.messages.find((m) => m.role === "system")?.content ?? "";
  return system.includes("reads web pages to complete a task") ? "pick" : system.includes("answering the user") ? "chat" : "extract";
};

/** The answer schema of the shop's products. */
export const SCHEMA = { type: "object", properties: { products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } }, required: ["products"] };

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface AgentShop {
  h: Harness;
  apiUrl: string;
  /** The shop's origin. */
  base: string;
  searx: FakeSearxng;
  hooks: HookReceiver;
  llm: FakeLlm;
  /** Delay of the model's answers (cancel and busy-thread tests slow it down). */
  slowMs: number;
  /** A model that does the job with what it is sent: picks product links until both products were read. */
  model(req: LlmRequestLog): { content: string; delayMs: number };
  /** Polls `GET /v2/agent/{id}` until the run is no longer processing. */
  finished(id: string, harness?: Harness, auth?: string): Promise<any>;
  /** `POST /v2/agent` with `body`. */
  start(body: Record<string, unknown>, harness?: Harness, auth?: string): Promise<{ status: number; body: any }>;
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useAgentShop(): AgentShop {
  let site: ReturnType<typeof Bun.serve>;
  const shop = { slowMs: 0 } as AgentShop;
  shop.model = (req) => {
    const { base, slowMs } = shop;
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
  };
  shop.finished = async (id, harness = shop.h, auth) => {
    for (let i = 0; i < 400; i++) {
      const s = (await (await harness.request(`/v2/agent/${id}`, auth ? { auth } : {})).json()) as any;
      if (s.status !== "processing") return s;
      await Bun.sleep(25);
    }
    throw new Error("agent run did not finish");
  };
  shop.start = async (body, harness = shop.h, auth) => {
    const res = await harness.request("/v2/agent", { method: "POST", json: body, ...(auth ? { auth } : {}) });
    return { status: res.status, body: (await res.json()) as any };
  };

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
    const base = (shop.base = `http://127.0.0.1:${site.port}`);
    shop.searx = startFakeSearxng(() => [
      { url: `${base}/toaster`, title: "Toaster", content: "A toaster" },
      { url: `${base}/kettle`, title: "Kettle", content: "A kettle" },
      { url: `${base}/about`, title: "About", content: "About the shop" },
    ]);
    shop.hooks = startHookReceiver();
    shop.llm = startFakeLlm();
    shop.llm.respond = shop.model;
    shop.h = await createHarness({ ollamaBaseUrl: shop.llm.url, modelName: "test-model", searxngEndpoint: shop.searx.url, allowPrivateWebhooks: true });
    shop.apiUrl = shop.h.listen();
  });

  afterAll(async () => {
    await shop.h.close();
    site.stop(true);
    shop.searx.stop();
    shop.hooks.stop();
    shop.llm.stop();
  });
  return shop;
}
