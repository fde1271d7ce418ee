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
 *
 * Servers differ in the `response_format`s they take: LM Studio refuses `json_object` ("'response_format.type' must
 * be 'json_schema' or 'text'"), older vLLM and some proxies `json_schema`. A 400 naming `response_format` (or either
 * form) is answered by sending the same request in the next form ({@link formsFor}), down to none at all (the answer
 * is validated and repaired anyway), and a form refused as such is skipped from then on: before, every structured
 * call to such a server was a 503.
 *
 * A 404 is a configuration mistake (a base URL without `/v1`, a model the server does not have): its message says
 * what to check, and a vLLM-style error body (`{object: "error", message}`) is quoted by its message.
 */
import { estimateTokens } from "../../src/llm/chunk.ts";
import { LlmBrokenAnswerError, llmHttpError, LlmUnavailableError } from "../../src/llm/errors.ts";
import type { LlmChatRequest, LlmProvider, LlmProviderPlugin, LlmProviderSettings } from "../../src/llm/types.ts";

interface Completion {
  choices?: { message?: { content?: string | null }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** OpenAI, llama.cpp: `{error: {message, code, param}}`; LM Studio: `{error: "…"}`. */
  error?: { message?: string; code?: unknown; param?: unknown } | string;
  /** vLLM (and FastChat): `{object: "error", message: "…", code: 400}`. */
  object?: unknown;
  message?: unknown;
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

/** A `response_format` to try (none: the field left out), and whether its schema was wrapped (the answer is unwrapped then). */
interface FormCandidate {
  format?: { type: "json_schema" | "json_object"; json_schema?: Record<string, unknown> };
  /** Whether a refusal of this candidate is its type's (rules the type out for later calls), not its schema's. */
  typeRefused: boolean;
  wrapped: boolean;
}

/** Any JSON object: the `json_schema` that stands for `json_object` where only `json_schema` is taken. */
const ANY_OBJECT = { type: "json_schema" as const, json_schema: { name: "answer", schema: { type: "object" }, strict: false } };

/**
 * The `response_format`s to try for `format`, best first, less the types this endpoint refused: with a schema the
 * schema itself (a refusal may be the schema's, so it rules out nothing), then any object as `json_schema`, then
 * `json_object`; without one `json_object` first (what most servers take), then `json_schema`; last, none.
 */
function formsFor(format: LlmChatRequest["format"], refused: ReadonlySet<string>): FormCandidate[] {
  const none: FormCandidate = { typeRefused: false, wrapped: false };
  if (format === undefined) return [none];
  const forms: FormCandidate[] = [];
  if (format !== "json") {
    const rooted = objectRooted(format);
    forms.push({ format: { type: "json_schema", json_schema: { name: "answer", schema: rooted ?? format, strict: false } }, typeRefused: false, wrapped: rooted !== undefined });
  }
  const object: FormCandidate = { format: { type: "json_object" }, typeRefused: true, wrapped: false };
  const anyObject: FormCandidate = { format: ANY_OBJECT, typeRefused: true, wrapped: false };
  forms.push(...(format === "json" ? [object, anyObject] : [anyObject, object]));
  return [...forms.filter((f) => !refused.has(f.format!.type)), none];
}

/**
 * The error message of a failed answer, whichever shape the server gives it: `{error: {message}}` (OpenAI,
 * llama.cpp), `{error: "…"}` (LM Studio), `{object: "error", message}` (vLLM); undefined for anything else.
 */
function errorMessage(data: Completion | undefined): string | undefined {
  if (typeof data?.error === "string") return data.error;
  if (typeof data?.error === "object" && typeof data.error?.message === "string") return data.error.message;
  return typeof data?.message === "string" ? data.message : undefined;
}

/** What a 400 says the model refuses, by OpenAI's `error.param` (or its message): undefined when it is something else. */
function refusedParameter(data: Completion | undefined, status: number): "max_tokens" | "temperature" | undefined {
  if (status !== 400 || typeof data?.error !== "object") return undefined;
  const param = data.error.param;
  const message = data.error.message ?? "";
  if (param === "max_tokens" || /'max_tokens' is not supported/.test(message)) return "max_tokens";
  if (param === "temperature" || /'temperature' does not support/.test(message)) return "temperature";
  return undefined;
}

/**
 * Whether a failed answer refuses the request's `response_format`: a 400 (422 from servers that answer request
 * validation as FastAPI does) naming it, or either form, in its message or OpenAI's `param`.
 */
function refusesFormat(data: Completion | undefined, status: number): boolean {
  if (status !== 400 && status !== 422) return false;
  const param = typeof data?.error === "object" ? data.error.param : undefined;
  return param === "response_format" || /response_format|json_schema|json_object/i.test(errorMessage(data) ?? "");
}

/** Characters of the server's own message kept before a hint (so the hint survives the error's length cap). */
const MESSAGE_BEFORE_HINT_CHARS = 100;

export const openaiProvider: LlmProviderPlugin = {
  name: "openai",
  create(s: LlmProviderSettings): LlmProvider {
    const endpoint = { name: "openai", address: s.baseUrl, model: s.model };
    const url = `${s.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    /** Parameters this endpoint refused (see the module comment), left out of every later request. */
    const refused = new Set<"max_tokens" | "temperature">();
    /** `response_format` types this endpoint refused as such (see {@link formsFor}), not tried again. */
    const refusedForms = new Set<"json_schema" | "json_object">();
    /** What a 404 means here: a base URL not ending in the API's `/v1`, or a model the server does not have. */
    const notFoundHint = `check OPENAI_BASE_URL (it usually ends in /v1; requests go to ${url}) and MODEL_NAME ("${s.model}")`;
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
        const forms = formsFor(req.format, refusedForms);
        let form = 0;
        // At most one more request per parameter a reasoning model refuses, and per response_format refused.
        for (let attempt = 0; ; attempt++) {
          const body: Record<string, unknown> = { model: s.model, messages: req.messages, stream: false };
          if (!refused.has("temperature")) body.temperature = 0;
          body[refused.has("max_tokens") ? "max_completion_tokens" : "max_tokens"] = req.maxAnswerTokens;
          if (forms[form]!.format) body.response_format = forms[form]!.format;
          try {
            res = await s.fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: req.signal });
            text = await res.text();
          } catch (err) {
            if (req.signal.aborted) throw req.signal.reason ?? err;
            throw new LlmUnavailableError(endpoint, err instanceof Error ? err.message : String(err), err);
          }
          data = parseCompletion(text);
          const param = refusedParameter(data, res.status);
          if (param !== undefined && !refused.has(param) && attempt < 2 + forms.length) {
            refused.add(param);
            continue;
          }
          const tried = forms[form]!;
          if (tried.format === undefined || !refusesFormat(data, res.status)) break;
          if (tried.typeRefused) refusedForms.add(tried.format.type);
          form++;
        }
        // A failing status is classified by status whatever the body (a proxy's HTML 429 or 502 is no JSON).
        if (!res.ok) {
          const code = typeof data?.error === "object" && typeof data.error?.code === "string" ? ` (${data.error.code})` : "";
          let msg = (errorMessage(data) ?? (text.trim().slice(0, 200) || res.statusText)) + code;
          if (res.status === 404) msg = `${msg.length > MESSAGE_BEFORE_HINT_CHARS ? `${msg.slice(0, MESSAGE_BEFORE_HINT_CHARS)}…` : msg} (${notFoundHint})`;
          throw llmHttpError(endpoint, res.status, `HTTP ${res.status}: ${msg}`, res.headers.get("retry-after"));
        }
        if (!data) throw new LlmBrokenAnswerError(endpoint, `HTTP ${res.status}: the answer is not a JSON object (${text.slice(0, 200)})`);
        const choice = data.choices?.[0];
        if (!choice) throw new LlmBrokenAnswerError(endpoint, "the answer has no choices");
        const raw = choice.message?.content ?? "";
        const content = forms[form]!.wrapped ? unwrapped(raw) : raw;
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
