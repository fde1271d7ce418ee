/**
 * A local test LLM server speaking both protocols crawlbox uses, faithfully enough for the official clients:
 * - Ollama: `GET /api/tags`, `POST /api/chat` (non-streaming JSON, or NDJSON when `stream` is not false, as
 *   Ollama defaults to streaming; `format` schema; `options.num_ctx`/`num_predict`; `done_reason`; token counts;
 *   `{error}` bodies with 404 for an unknown model);
 * - OpenAI: `GET /v1/models`, `POST /v1/chat/completions` (`response_format` json_schema/json_object,
 *   `max_tokens`, `finish_reason`, `usage`, SSE when `stream: true`, `{error:{message,type,code}}` bodies,
 *   401 for a wrong key).
 * Answers are scripted per test with `respond`; every request is recorded so tests can check what was sent.
 * Served by Bun.serve on 127.0.0.1; nothing touches the internet.
 */

/** A recorded request. */
export interface LlmRequestLog {
  protocol: "ollama" | "openai";
  path: string;
  headers: Record<string, string>;
  body: any;
  /** The chat messages, whichever protocol. */
  messages: { role: string; content: string }[];
  /** Ollama `format` or OpenAI `response_format.json_schema.schema` (`"json"` for json_object / format "json"). */
  schema: unknown;
}

/** A scripted answer. */
export interface LlmReply {
  /** Answer text (the assistant message content). */
  content?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer with this HTTP error status and message instead. */
  status?: number;
  error?: string;
  /** `length` marks an answer cut at the token limit. @default "stop" */
  doneReason?: "stop" | "length";
  /** Pad the JSON body with this many extra bytes (an oversized response). */
  padBytes?: number;
  /** With `status`: the error as an HTML page (a reverse proxy in front of the model server), not JSON. */
  htmlError?: boolean;
  /** With `status`, OpenAI protocol: the error's `code` and `type` (e.g. `insufficient_quota`). */
  errorCode?: string;
  /** With `status`: extra response headers (e.g. `retry-after` on a 429 or 503). */
  headers?: Record<string, string>;
  /** A misbehaving server: this value as the message content, whatever its type (instead of `content`). */
  rawContent?: unknown;
  /** A misbehaving server: these token counts reported, whatever their type. */
  usage?: { prompt: unknown; completion: unknown };
  /**
   * A thinking model's reasoning, returned beside the content as the servers do: Ollama's `message.thinking`,
   * vLLM's and DeepSeek's `message.reasoning_content` (the content is then `null` when empty, as theirs is).
   */
  reasoning?: string;
}

export interface FakeLlm {
  url: string;
  /** OpenAI base URL (`${url}/v1`). */
  openaiUrl: string;
  requests: LlmRequestLog[];
  /** Chat requests only. */
  chats(): LlmRequestLog[];
  /** Scripted answers: a function of the request, called for every chat. */
  respond: (req: LlmRequestLog, index: number) => LlmReply;
  /** Answers from a list, in order (the last one repeats). */
  script(replies: LlmReply[]): void;
  reset(): void;
  stop(): void;
}

const MODELS = ["llama3.2:3b", "qwen2.5:7b", "gpt-4o-mini", "test-model", "gpt-5-mini"];

/**
 * Models that answer as OpenAI's reasoning models do (the o-series, gpt-5): `max_tokens` and a `temperature` other
 * than 1 are refused with a 400 naming the parameter, in OpenAI's words.
 */
const REASONING_MODELS = new Set(["gpt-5-mini"]);

function tokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

/**
 * Starts the fake LLM server. `apiKey`: when set, OpenAI requests must carry it. `port`: a fixed one (a server
 * stopped and started again at the same address, as a model server restarting); a free one by default.
 */
export function startFakeLlm(opts: { apiKey?: string; models?: string[]; port?: number } = {}): FakeLlm {
  const models = opts.models ?? MODELS;
  const requests: LlmRequestLog[] = [];
  let chatIndex = 0;
  const fake: FakeLlm = {
    url: "",
    openaiUrl: "",
    requests,
    chats: () => requests.filter((r) => r.path === "/api/chat" || r.path === "/v1/chat/completions"),
    respond: () => ({ content: "{}" }),
    script(replies) {
      fake.respond = (_req, i) => replies[Math.min(i, replies.length - 1)]!;
    },
    reset() {
      requests.length = 0;
      chatIndex = 0;
      fake.respond = () => ({ content: "{}" });
    },
    stop: () => server.stop(true),
  };

  const json = (body: unknown, status = 200, pad = 0, extra: Record<string, string> = {}) => {
    let text = JSON.stringify(body);
    if (pad > 0) text = text.replace(/}$/, `,"padding":"${"x".repeat(pad)}"}`);
    return new Response(text, { status, headers: { ...extra, "content-type": "application/json; charset=utf-8" } });
  };

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: "127.0.0.1",
    idleTimeout: 120,
    async fetch(req) {
      const url = new URL(req.url);
      const headers = Object.fromEntries(req.headers.entries());
      if (req.method === "GET" && url.pathname === "/api/tags") {
        return json({
          models: models.map((m) => ({
            name: m, model: m, modified_at: "2026-01-01T00:00:00Z", size: 2_000_000_000, digest: "sha256:" + "0".repeat(64),
            details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3B", quantization_level: "Q4_K_M" },
          })),
        });
      }
      if (req.method === "GET" && url.pathname === "/v1/models") {
        if (opts.apiKey && headers.authorization !== `Bearer ${opts.apiKey}`) return json({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, 401);
        return json({ object: "list", data: models.map((m) => ({ id: m, object: "model", created: 1_700_000_000, owned_by: "test" })) });
      }
      const isOllama = req.method === "POST" && url.pathname === "/api/chat";
      const isOpenai = req.method === "POST" && url.pathname === "/v1/chat/completions";
      if (!isOllama && !isOpenai) return isOllama || url.pathname.startsWith("/api/") ? json({ error: "404 page not found" }, 404) : json({ error: { message: `Unknown path ${url.pathname}`, type: "invalid_request_error" } }, 404);

      let body: any;
      try {
        body = await req.json();
      } catch {
        return isOllama ? json({ error: "invalid JSON body" }, 400) : json({ error: { message: "Invalid JSON body", type: "invalid_request_error" } }, 400);
      }
      const schema = isOllama
        ? body.format
        : body.response_format?.type === "json_schema" ? body.response_format.json_schema?.schema : body.response_format?.type === "json_object" ? "json" : undefined;
      const log: LlmRequestLog = { protocol: isOllama ? "ollama" : "openai", path: url.pathname, headers, body, messages: body.messages ?? [], schema };
      requests.push(log);

      if (isOpenai && opts.apiKey && headers.authorization !== `Bearer ${opts.apiKey}`) {
        return json({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, 401);
      }
      if (!models.includes(body.model)) {
        return isOllama
          ? json({ error: `model "${body.model}" not found, try pulling it first` }, 404)
          : json({ error: { message: `The model \`${body.model}\` does not exist.`, type: "invalid_request_error", code: "model_not_found" } }, 404);
      }
      // OpenAI's structured outputs take an object at the root only.
      const rootType = body.response_format?.json_schema?.schema?.type;
      if (isOpenai && body.response_format?.type === "json_schema" && rootType !== "object") {
        return json({ error: { message: `Invalid schema for response_format 'answer': schema must be a JSON Schema of 'type: "object"', got 'type: "${rootType ?? "None"}'.`, type: "invalid_request_error", param: "response_format", code: null } }, 400);
      }
      if (isOpenai && REASONING_MODELS.has(body.model)) {
        if (body.max_tokens !== undefined) {
          return json({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" } }, 400);
        }
        if (body.temperature !== undefined && body.temperature !== 1) {
          return json({ error: { message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`, type: "invalid_request_error", param: "temperature", code: "unsupported_value" } }, 400);
        }
      }
      const reply = fake.respond(log, chatIndex++);
      if (reply.delayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, reply.delayMs);
          req.signal.addEventListener("abort", () => (clearTimeout(t), resolve()));
        });
        if (req.signal.aborted) return new Response(null, { status: 499 });
      }
      if (reply.status && reply.htmlError) {
        return new Response(`<html><body><h1>${reply.status} ${reply.error ?? "Bad Gateway"}</h1></body></html>`, { status: reply.status, headers: { ...reply.headers, "content-type": "text/html" } });
      }
      if (reply.status) {
        const msg = reply.error ?? "server error";
        return isOllama ? json({ error: msg }, reply.status, 0, reply.headers) : json({ error: { message: msg, type: reply.errorCode ?? "server_error", ...(reply.errorCode ? { code: reply.errorCode } : {}) } }, reply.status, 0, reply.headers);
      }
      const content: any = "rawContent" in reply ? reply.rawContent : (reply.content ?? "");
      const promptTokens: any = reply.usage ? reply.usage.prompt : tokens((body.messages ?? []).map((m: any) => m.content).join("\n"));
      const completionTokens: any = reply.usage ? reply.usage.completion : tokens(typeof content === "string" ? content : JSON.stringify(content));
      const doneReason = reply.doneReason ?? "stop";
      if (isOllama) {
        const done = {
          model: body.model, created_at: new Date().toISOString(), message: { role: "assistant", content, ...(reply.reasoning !== undefined ? { thinking: reply.reasoning } : {}) },
          done: true, done_reason: doneReason, total_duration: 1_000_000, load_duration: 1000,
          prompt_eval_count: promptTokens, prompt_eval_duration: 1000, eval_count: completionTokens, eval_duration: 1000,
        };
        if (body.stream === false) return json(done, 200, reply.padBytes ?? 0);
        // Ollama streams by default: NDJSON, content first, then the final record.
        const lines = [
          JSON.stringify({ model: body.model, created_at: done.created_at, message: { role: "assistant", content }, done: false }),
          JSON.stringify({ ...done, message: { role: "assistant", content: "" } }),
        ];
        return new Response(lines.join("\n") + "\n", { headers: { "content-type": "application/x-ndjson" } });
      }
      const completion = {
        id: `chatcmpl-${crypto.randomUUID()}`, object: "chat.completion", created: Math.floor(Date.now() / 1000), model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content: reply.reasoning !== undefined && content === "" ? null : content, ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}) }, logprobs: null, finish_reason: doneReason }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      };
      if (body.stream === true) {
        const chunk = { id: completion.id, object: "chat.completion.chunk", created: completion.created, model: body.model, choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: doneReason }] };
        return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, { headers: { "content-type": "text/event-stream" } });
      }
      return json(completion, 200, reply.padBytes ?? 0);
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.openaiUrl = `${fake.url}/v1`;
  return fake;
}
