/**
 * @module llm/types
 * The LLM provider interface. A provider is one object (plugins/llm/<name>.ts) that turns a chat request into
 * an answer; everything above it (schema checks, repair, chunking, budgets, prompts) lives in src/llm and is
 * provider-agnostic. Providers know nothing about scraping.
 */

/** One chat message. Page content only ever appears inside a delimited block of a `user` message. */
export interface LlmMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What a provider can do, on the plugin object (style A7 §3). */
export interface LlmCapabilities {
  /** Context window the requests are sized for, in tokens (prompt + answer). */
  contextTokens: number;
  /** Whether the endpoint constrains answers to a JSON Schema (Ollama `format`, OpenAI `response_format`). */
  structuredOutput: boolean;
}

/** A chat request. */
export interface LlmChatRequest {
  messages: LlmMessage[];
  /**
   * The answer's JSON Schema: the provider asks the endpoint to constrain the answer to it. `"json"` asks for
   * any JSON object; absent = free text.
   */
  format?: Record<string, unknown> | "json";
  /** Upper bound on answer tokens. */
  maxAnswerTokens: number;
  /** Aborts the HTTP call (deadline or client gone). */
  signal: AbortSignal;
}

/** Tokens one call consumed, as the endpoint reported them (estimated when it reports nothing). */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A chat answer. */
export interface LlmChatAnswer {
  content: string;
  usage: LlmUsage;
  /** The endpoint stopped at the answer-token limit (the answer is probably cut off). */
  truncated?: boolean;
}

/** A configured provider. */
export interface LlmProvider {
  /** `ollama` or `openai`: named in errors. */
  readonly name: string;
  /** The configured base URL: named in errors and the only address LLM traffic may go to. */
  readonly address: string;
  readonly model: string;
  readonly capabilities: LlmCapabilities;
  /** One chat turn. Throws `LlmError`s (unavailable, timeout, bad response) naming provider and address. */
  chat(request: LlmChatRequest): Promise<LlmChatAnswer>;
}

/** Settings a provider plugin is built from (read from Config by the registry). */
export interface LlmProviderSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  contextTokens: number;
  /** Fetch bound to `baseUrl`'s origin (see pinned-fetch.ts); providers must use nothing else. */
  fetch: typeof fetch;
}

/** A provider plugin: builds a provider from settings. Registered once in plugins/index.ts. */
export interface LlmProviderPlugin {
  readonly name: string;
  create(settings: LlmProviderSettings): LlmProvider;
}
