/**
 * @module llm/registry
 * The registry of provider plugins (filled once in plugins/index.ts) and the rule that picks the configured one.
 *
 * Which provider (CRAWLBOX_LLM_PROVIDER=auto, the default, honours upstream's variables as upstream reads them):
 * 1. `OLLAMA_BASE_URL` set → `ollama` at that address with `MODEL_NAME`, whatever `OPENAI_*` say. Upstream's
 *    `generic-ai.ts` picks Ollama whenever `OLLAMA_BASE_URL` is set; an operator who points at a local Ollama on an
 *    air-gapped site must not have page content leave it because an `OPENAI_API_KEY` is also in the .env (config.ts
 *    refuses to start when `MODEL_NAME` is then missing, rather than fall back to OpenAI);
 * 2. else `OPENAI_BASE_URL` or `OPENAI_API_KEY` set → `openai` (base URL default `https://api.openai.com/v1`, model
 *    `MODEL_NAME` or `gpt-4o-mini`);
 * 3. else `MODEL_NAME` set → `ollama` at the default `http://127.0.0.1:11434`;
 * 4. else none: LLM formats answer 400 `LLM_NOT_CONFIGURED` naming what to set.
 * `CRAWLBOX_LLM_PROVIDER=ollama|openai` forces one, `off` disables LLM formats.
 */
import { normaliseOllamaBaseUrl, type Config } from "../config.ts";
import { LlmClient } from "./client.ts";
import { createPinnedFetch } from "./pinned-fetch.ts";
import type { ServerDownMemo } from "./server-down.ts";
import type { LlmProviderPlugin } from "./types.ts";

/** Default base URL of the openai provider when only a key is given. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** Default model of the openai provider when MODEL_NAME is unset. */
export const OPENAI_DEFAULT_MODEL = "gpt-4o-mini";

/** Thrown at boot when two plugins claim one name. */
export class DuplicateProviderError extends Error {}

/** The one registry of LLM provider plugins. */
export class LlmProviderRegistry {
  private readonly byName = new Map<string, LlmProviderPlugin>();

  register(plugin: LlmProviderPlugin): this {
    if (this.byName.has(plugin.name)) throw new DuplicateProviderError(`LLM provider "${plugin.name}" is registered twice`);
    this.byName.set(plugin.name, plugin);
    return this;
  }

  get(name: string): LlmProviderPlugin | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

type LlmConfig = Pick<Config, "llmProvider" | "ollamaBaseUrl" | "openaiBaseUrl" | "openaiApiKey" | "modelName" | "llmContextTokens"> &
  Partial<Pick<Config, "ollamaBaseUrlSet">>;

/** Which provider `config` selects, with its base URL, key and model; undefined when none is configured. */
export function selectProvider(config: LlmConfig): { name: string; baseUrl: string; apiKey: string; model: string } | undefined {
  const mode = config.llmProvider;
  if (mode === "off") return undefined;
  const ollama = { name: "ollama", baseUrl: normaliseOllamaBaseUrl(config.ollamaBaseUrl), apiKey: "", model: config.modelName };
  // Upstream's rule first: an explicit OLLAMA_BASE_URL wins (never silently OpenAI; no model → not configured).
  if (mode === "auto" && config.ollamaBaseUrlSet === true) return config.modelName !== "" ? ollama : undefined;
  const openai = mode === "openai" || (mode === "auto" && (config.openaiBaseUrl !== "" || config.openaiApiKey !== ""));
  if (openai) {
    return { name: "openai", baseUrl: config.openaiBaseUrl || OPENAI_DEFAULT_BASE_URL, apiKey: config.openaiApiKey, model: config.modelName || OPENAI_DEFAULT_MODEL };
  }
  if (mode === "ollama" || (mode === "auto" && config.modelName !== "")) return ollama;
  return undefined;
}

/**
 * The LLM client for `config`, or undefined when no provider is configured. The provider gets a fetch pinned
 * to its configured base URL: the only traffic that bypasses the egress gate (see pinned-fetch.ts). `down`: its
 * server-down memo (llm/server-down.ts), a short one injected by tests; one of the default length by default.
 */
export function createLlmClient(config: LlmConfig, registry: LlmProviderRegistry, inner: typeof fetch = fetch, down?: ServerDownMemo): LlmClient | undefined {
  const sel = selectProvider(config);
  if (!sel) return undefined;
  const plugin = registry.get(sel.name);
  if (!plugin) throw new Error(`LLM provider "${sel.name}" is not registered (have: ${registry.names().join(", ")})`);
  const provider = plugin.create({
    baseUrl: sel.baseUrl,
    apiKey: sel.apiKey,
    model: sel.model,
    contextTokens: config.llmContextTokens,
    fetch: createPinnedFetch(sel.baseUrl, inner),
  });
  return new LlmClient(provider, undefined, undefined, down);
}
