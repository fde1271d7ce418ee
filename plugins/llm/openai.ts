/**
 * @module plugins/llm/openai
 * The OpenAI-compatible provider (OpenAI, vLLM, llama.cpp server, LM Studio, …): `POST {OPENAI_BASE_URL}/chat/completions`,
 * non-streaming, `temperature: 0`, `max_tokens` bounding the answer, and for structured answers
 * `response_format: {type: "json_schema", json_schema: {name, schema, strict: false}}` (`json_object` when any
 * JSON object will do). `strict: false` because OpenAI's strict mode refuses ordinary schemas (optional
 * properties); the answer is validated and repaired by src/llm either way.
 *
 * OpenAI's reasoning models (the o-series, gpt-5) refuse `max_tokens` (they take `max_completion_tokens`) and any
 * `temperature` but the default, with a 400 naming the parameter. The provider then sends the request again without
 * what was refused, and leaves it out from then on: before, every LLM call against such a model failed.
 */
import { estimateTokens } from "../../src/llm/chunk.ts";
import { llmHttpError, LlmUnavailableError } from "../../src/llm/errors.ts";
import type { LlmChatRequest, LlmProvider, LlmProviderPlugin, LlmProviderSettings } from "../../src/llm/types.ts";

interface Completion {
  choices?: { message?: { content?: string | null }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string; code?: unknown } | string;
}

/** The answer body as a JSON object; undefined when it is not one. */
function parseCompletion(text: string): Completion | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Completion) : undefined;
  } catch {
    return undefined;
  }
}

/** The property a schema whose root is not an object is wrapped in (see {@link objectRooted}). */
const WRAPPED = "answer";

/**
 * `schema` with an object at its root, as OpenAI's structured outputs require ("schema must be a JSON Schema of
 * 'type: "object"'"): a root array (a list of products), a root `$ref` or anything else is wrapped as the one
 * property {@link WRAPPED}, its `$defs`/`definitions` kept at the root where its `#/…` references point.
 * Undefined when the root is an object already. Upstream normalises schemas for OpenAI too (api-v2.md §2.8).
 */
function objectRooted(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  if (schema.type === "object") return undefined;
  const { $defs, definitions, $schema: _, ...inner } = schema;
  return { type: "object", properties: { [WRAPPED]: inner }, required: [WRAPPED], ...($defs ? { $defs } : {}), ...(definitions ? { definitions } : {}) };
}

/** The answer to a wrapped schema, unwrapped; any other text as it came (the caller validates and repairs it). */
function unwrapped(content: string): string {
  try {
    const v: unknown = JSON.parse(content);
    if (typeof v === "object" && v !== null && !Array.isArray(v) && WRAPPED in v) return JSON.stringify((v as Record<string, unknown>)[WRAPPED]);
  } catch {
    // Not JSON: left for the repair turn.
  }
  return content;
}

/** The request's `response_format`, and whether its schema was wrapped (the answer is unwrapped then). */
function responseFormat(format: LlmChatRequest["format"]): { format?: Record<string, unknown>; wrapped: boolean } {
  if (format === undefined) return { wrapped: false };
  if (format === "json") return { format: { type: "json_object" }, wrapped: false };
  const rooted = objectRooted(format);
  return { format: { type: "json_schema", json_schema: { name: "answer", schema: rooted ?? format, strict: false } }, wrapped: rooted !== undefined };
}

/** What a 400 says the model refuses, by OpenAI's `error.param` (or its message): undefined when it is something else. */
function refusedParameter(data: Completion | undefined, status: number): "max_tokens" | "temperature" | undefined {
  if (status !== 400 || typeof data?.error !== "object") return undefined;
  const param = (data.error as { param?: unknown }).param;
  const message = data.error.message ?? "";
  if (param === "max_tokens" || /'max_tokens' is not supported/.test(message)) return "max_tokens";
  if (param === "temperature" || /'temperature' does not support/.test(message)) return "temperature";
  return undefined;
}

export const openaiProvider: LlmProviderPlugin = {
  name: "openai",
  create(s: LlmProviderSettings): LlmProvider {
    const endpoint = { name: "openai", address: s.baseUrl, model: s.model };
    const url = `${s.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    /** Parameters this endpoint refused (see the module comment), left out of every later request. */
    const refused = new Set<"max_tokens" | "temperature">();
    return {
      name: "openai",
      address: s.baseUrl,
      model: s.model,
      capabilities: { contextTokens: s.contextTokens, structuredOutput: true },
      async chat(req: LlmChatRequest) {
        const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
        if (s.apiKey !== "") headers.authorization = `Bearer ${s.apiKey}`;
        let res: Response;
        let text: string;
        let data: Completion | undefined;
        const rf = responseFormat(req.format);
        // At most one more request per parameter a reasoning model refuses.
        for (let attempt = 0; ; attempt++) {
          const body: Record<string, unknown> = { model: s.model, messages: req.messages, stream: false };
          if (!refused.has("temperature")) body.temperature = 0;
          body[refused.has("max_tokens") ? "max_completion_tokens" : "max_tokens"] = req.maxAnswerTokens;
          if (rf.format) body.response_format = rf.format;
          try {
            res = await s.fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: req.signal });
            text = await res.text();
          } catch (err) {
            if (req.signal.aborted) throw req.signal.reason ?? err;
            throw new LlmUnavailableError(endpoint, err instanceof Error ? err.message : String(err), err);
          }
          data = parseCompletion(text);
          const param = refusedParameter(data, res.status);
          if (param === undefined || refused.has(param) || attempt >= 2) break;
          refused.add(param);
        }
        // A failing status is classified by status whatever the body (a proxy's HTML 429 or 502 is no JSON).
        if (!res.ok) {
          const code = typeof data?.error === "object" && typeof data.error?.code === "string" ? ` (${data.error.code})` : "";
          const msg = typeof data?.error === "string" ? data.error : (data?.error?.message ?? (text.trim().slice(0, 200) || res.statusText)) + code;
          throw llmHttpError(endpoint, res.status, `HTTP ${res.status}: ${msg}`, res.headers.get("retry-after"));
        }
        if (!data) throw new LlmUnavailableError(endpoint, `HTTP ${res.status}: the answer is not a JSON object (${text.slice(0, 200)})`);
        const choice = data.choices?.[0];
        if (!choice) throw new LlmUnavailableError(endpoint, "the answer has no choices");
        const raw = choice.message?.content ?? "";
        const content = rf.wrapped ? unwrapped(raw) : raw;
        return {
          content,
          truncated: choice.finish_reason === "length",
          usage: {
            promptTokens: data.usage?.prompt_tokens ?? estimateTokens(req.messages.map((m) => m.content).join("\n")),
            completionTokens: data.usage?.completion_tokens ?? estimateTokens(content),
          },
        };
      },
    };
  },
};
