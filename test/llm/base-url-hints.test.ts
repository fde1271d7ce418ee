/**
 * Configuration mistakes that used to surface only as a bare 503 (plugins/llm/*.ts, config.ts), through the real
 * config module and API against the local fake LLM:
 * - `OLLAMA_BASE_URL=http://host:11434/v1` (Ollama's OpenAI-compatible address) is taken as the server's root, as
 *   `/api` already was: before, crawlbox called `/v1/api/chat`, a 404;
 * - a 404 says what to check: OPENAI_BASE_URL (which usually ends in /v1) and MODEL_NAME, or for Ollama the model to
 *   pull, or OLLAMA_BASE_URL. The code and status stay `LLM_UNAVAILABLE`, 503;
 * - a vLLM-style error body (`{object: "error", message}`) is quoted by its message, not as raw JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig, type Config } from "../../src/config.ts";
import { createHarness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

let site: PageSite;
let llm: FakeLlm;
/** A vLLM-like server: every chat answers `vllmReply` in vLLM's error shape. */
let vllm: ReturnType<typeof Bun.serve>;
let vllmReply = { status: 404, message: "The model `no-such-model` does not exist.", type: "NotFoundError" };

beforeAll(() => {
  site = startPageSite();
  site.set("/product", page("Blue Kettle", "The Blue Kettle costs 24.50 euros."));
  llm = startFakeLlm();
  vllm = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => Response.json({ object: "error", message: vllmReply.message, type: vllmReply.type, param: null, code: vllmReply.status }, { status: vllmReply.status }),
  });
});
afterAll(() => {
  site.stop();
  llm.stop();
  vllm.stop(true);
});

/** A summary scrape with `config`: status, code and error message. */
async function summary(config: Partial<Config>): Promise<{ status: number; code?: string; error?: string; summary?: string }> {
  const h = await createHarness(config);
  try {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, formats: ["summary"], maxAge: 0 } });
    const body = (await res.json()) as any;
    return { status: res.status, code: body.code, error: body.error, summary: body.data?.summary };
  } finally {
    await h.close();
  }
}

describe("OLLAMA_BASE_URL ending in /v1", () => {
  test("normalised to the server's root, with or without a trailing slash; other paths kept", () => {
    for (const suffix of ["/v1", "/v1/", "/V1"]) expect(loadConfig({ OLLAMA_BASE_URL: `http://10.0.0.5:11434${suffix}` }).ollamaBaseUrl).toBe("http://10.0.0.5:11434");
    expect(loadConfig({ OLLAMA_BASE_URL: "http://gw.local/ollama/v1" }).ollamaBaseUrl).toBe("http://gw.local/ollama");
    expect(loadConfig({ OLLAMA_BASE_URL: "http://gw.local/v10" }).ollamaBaseUrl).toBe("http://gw.local/v10");
  });

  test("a scrape with it reaches Ollama at /api/chat", async () => {
    llm.reset();
    llm.script([{ content: "A kettle for sale." }]);
    const c = loadConfig({ OLLAMA_BASE_URL: `${llm.url}/v1`, MODEL_NAME: "test-model" });
    const r = await summary({ ollamaBaseUrl: c.ollamaBaseUrl, ollamaBaseUrlSet: c.ollamaBaseUrlSet, modelName: c.modelName });
    expect({ status: r.status, summary: r.summary }).toEqual({ status: 200, summary: "A kettle for sale." });
    expect(llm.chats().map((x) => x.path)).toEqual(["/api/chat"]);
  });
});

describe("a 404 says what to check", () => {
  test("openai: OPENAI_BASE_URL without /v1", async () => {
    const r = await summary({ openaiBaseUrl: llm.url, modelName: "test-model" });
    expect({ status: r.status, code: r.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(r.error).toContain("HTTP 404");
    expect(r.error).toContain("check OPENAI_BASE_URL (it usually ends in /v1");
    expect(r.error).toContain("MODEL_NAME");
  });

  test("openai: a model the server does not have", async () => {
    const r = await summary({ openaiBaseUrl: llm.openaiUrl, modelName: "no-such-model" });
    expect({ status: r.status, code: r.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(r.error).toContain("`no-such-model` does not exist");
    expect(r.error).toContain('MODEL_NAME ("no-such-model")');
  });

  test("ollama: a model not pulled", async () => {
    const r = await summary({ ollamaBaseUrl: llm.url, modelName: "no-such-model" });
    expect({ status: r.status, code: r.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(r.error).toContain("model 'no-such-model' not found: run `ollama pull no-such-model`");
    expect(r.error).toContain("MODEL_NAME");
  });

  test("ollama: a base URL with a path in front of Ollama's /api", async () => {
    const r = await summary({ ollamaBaseUrl: `${llm.url}/ollama`, modelName: "test-model" });
    expect({ status: r.status, code: r.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(r.error).toContain("check OLLAMA_BASE_URL");
    expect(r.error).toContain(`${llm.url}/ollama/api/chat`);
  });
});

describe("a vLLM-style error body", () => {
  test("is quoted by its message (a 404 with the hint, a 400 as it is)", async () => {
    const base = { openaiBaseUrl: `http://127.0.0.1:${vllm.port}/v1`, modelName: "no-such-model" };
    vllmReply = { status: 404, message: "The model `no-such-model` does not exist.", type: "NotFoundError" };
    const notFound = await summary(base);
    expect({ status: notFound.status, code: notFound.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(notFound.error).toContain("HTTP 404: The model `no-such-model` does not exist. (check OPENAI_BASE_URL");
    expect(notFound.error).not.toContain('"object"');
    vllmReply = { status: 400, message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.", type: "BadRequestError" };
    const tooLong = await summary(base);
    expect({ status: tooLong.status, code: tooLong.code }).toEqual({ status: 503, code: "LLM_UNAVAILABLE" });
    expect(tooLong.error).toContain("HTTP 400: This model's maximum context length is 8192 tokens.");
    expect(tooLong.error).not.toContain('"object"');
  });
});
