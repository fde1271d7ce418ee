/**
 * Upstream self-host .env compatibility (docs/llm.md "Choosing the provider"): upstream picks Ollama whenever
 * OLLAMA_BASE_URL is set, and its .env.example writes it with a trailing `/api`. The environment is read by the real
 * config module; the scrape goes through the real API to a fake Ollama and a separate fake OpenAI endpoint, so the
 * test sees where page content was sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig, type Config } from "../../src/config.ts";
import { selectProvider } from "../../src/llm/registry.ts";
import { createHarness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

let site: PageSite;
let ollama: FakeLlm;
let openai: FakeLlm;

beforeAll(() => {
  site = startPageSite();
  site.set("/product", page("Blue Kettle", "The Blue Kettle costs 24.50 euros."));
  ollama = startFakeLlm();
  openai = startFakeLlm();
});
afterAll(() => {
  site.stop();
  ollama.stop();
  openai.stop();
});

/** The LLM fields of a config read from `env`, as overrides for the test harness. */
function llmFields(env: Record<string, string>): Partial<Config> {
  const c = loadConfig(env);
  return { llmProvider: c.llmProvider, ollamaBaseUrl: c.ollamaBaseUrl, ollamaBaseUrlSet: c.ollamaBaseUrlSet, openaiBaseUrl: c.openaiBaseUrl, openaiApiKey: c.openaiApiKey, modelName: c.modelName };
}

describe("upstream .env: OLLAMA_BASE_URL", () => {
  test("with OPENAI_API_KEY also set, page content goes to Ollama only, at /api/chat (not /api/api/chat)", async () => {
    const env = { OLLAMA_BASE_URL: `${ollama.url}/api`, OPENAI_API_KEY: "sk-should-not-be-used", OPENAI_BASE_URL: openai.openaiUrl, MODEL_NAME: "test-model" };
    const fields = llmFields(env);
    expect(fields.ollamaBaseUrl).toBe(ollama.url);
    expect(selectProvider(loadConfig(env))?.name).toBe("ollama");
    ollama.reset();
    openai.reset();
    ollama.script([{ content: "A kettle for sale." }]);
    const h = await createHarness(fields);
    try {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, formats: ["summary"] } });
      const body = (await res.json()) as any;
      expect({ status: res.status, summary: body.data?.summary }).toEqual({ status: 200, summary: "A kettle for sale." });
      expect(ollama.chats().map((r) => r.path)).toEqual(["/api/chat"]);
      expect(openai.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });

  test("a trailing slash, /api and /api/ are all normalised to the server's root", () => {
    for (const suffix of ["", "/", "/api", "/api/", "/API"]) {
      expect(loadConfig({ OLLAMA_BASE_URL: `http://10.0.0.5:11434${suffix}` }).ollamaBaseUrl).toBe("http://10.0.0.5:11434");
    }
    // A path that merely contains "api" is kept.
    expect(loadConfig({ OLLAMA_BASE_URL: "http://gw.local/ollama-api" }).ollamaBaseUrl).toBe("http://gw.local/ollama-api");
  });

  test("OLLAMA_BASE_URL and an OpenAI key without MODEL_NAME: refused at start, never a silent fall-back to OpenAI", () => {
    expect(() => loadConfig({ OLLAMA_BASE_URL: "http://127.0.0.1:11434", OPENAI_API_KEY: "sk-x" })).toThrow(ConfigError);
  });

  test("without OLLAMA_BASE_URL the OpenAI variables still select openai; CRAWLBOX_LLM_PROVIDER still forces", () => {
    expect(selectProvider(loadConfig({ OPENAI_API_KEY: "sk-x", MODEL_NAME: "m" }))?.name).toBe("openai");
    expect(selectProvider(loadConfig({ MODEL_NAME: "m" }))).toMatchObject({ name: "ollama", baseUrl: "http://127.0.0.1:11434" });
    expect(selectProvider(loadConfig({ OLLAMA_BASE_URL: "http://10.0.0.5:11434", OPENAI_API_KEY: "sk-x", MODEL_NAME: "m", CRAWLBOX_LLM_PROVIDER: "openai" }))?.name).toBe("openai");
  });
});
