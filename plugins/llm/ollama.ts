/**
 * @module plugins/llm/ollama
 * The Ollama provider: `POST /api/chat` through the official `ollama` package, non-streaming, with the JSON
 * Schema as `format` (Ollama's structured outputs), `num_ctx` sized to the configured context and `num_predict`
 * bounding the answer. All traffic goes through the pinned fetch (the configured OLLAMA_BASE_URL only).
 *
 * A 404 is a configuration mistake, and its error says which: Ollama's `model "x" not found` (the model is not
 * pulled, or MODEL_NAME is misspelt), else a wrong OLLAMA_BASE_URL (a path in front of Ollama's own `/api`).
 */
import { Ollama } from "ollama/browser";
import { estimateTokens } from "../../src/llm/chunk.ts";
import { llmHttpError, LlmUnavailableError } from "../../src/llm/errors.ts";
import type { LlmChatRequest, LlmProvider, LlmProviderPlugin, LlmProviderSettings } from "../../src/llm/types.ts";

/**
 * A failed answer that is not JSON (a reverse proxy's HTML 502) as the JSON error Ollama itself would send: the
 * `ollama` package prints to stdout when it has to read an error as text, and stdout is the CLI's output.
 */
async function asJsonError(res: Response): Promise<Response> {
  if (res.ok || (res.headers.get("content-type") ?? "").includes("application/json")) return res;
  const text = await res.text().catch(() => "");
  return Response.json({ error: text.trim() || res.statusText || `HTTP ${res.status}` }, { status: res.status, statusText: res.statusText });
}

/** The `ollama` package's error for an answer with a failing HTTP status. */
interface ResponseError {
  name: "ResponseError";
  status_code: number;
  error?: string;
  message: string;
}

function isResponseError(err: unknown): err is ResponseError {
  return (err as { name?: unknown })?.name === "ResponseError" && typeof (err as { status_code?: unknown }).status_code === "number";
}

/** Characters of Ollama's own message kept before a hint (so the hint survives the error's length cap). */
const MESSAGE_BEFORE_HINT_CHARS = 100;

/** `message` of a failed answer with `status`, and for a 404 what to check (model `model` at `baseUrl`). */
function withHint(status: number, message: string, model: string, baseUrl: string): string {
  if (status !== 404) return message;
  const quoted = message.length > MESSAGE_BEFORE_HINT_CHARS ? `${message.slice(0, MESSAGE_BEFORE_HINT_CHARS)}…` : message;
  const hint = /\bmodel\b.*\bnot found\b/i.test(message)
    ? `model '${model}' not found: run \`ollama pull ${model}\` on the Ollama server or set MODEL_NAME`
    : `check OLLAMA_BASE_URL: the Ollama server's root, without /api or /v1 (crawlbox calls ${baseUrl}/api/chat)`;
  return `${quoted} (${hint})`;
}

export const ollamaProvider: LlmProviderPlugin = {
  name: "ollama",
  create(s: LlmProviderSettings): LlmProvider {
    const endpoint = { name: "ollama", address: s.baseUrl, model: s.model };
    return {
      name: "ollama",
      address: s.baseUrl,
      model: s.model,
      capabilities: { contextTokens: s.contextTokens, structuredOutput: true },
      async chat(req: LlmChatRequest) {
        // The `Retry-After` of the last answer: the package's ResponseError keeps only status and message.
        let retryAfter: string | null = null;
        // One client per call: the package's abort() is per instance, so the signal is bound through fetch.
        const client = new Ollama({
          host: s.baseUrl,
          fetch: (async (input: string | URL | Request, init?: RequestInit) => {
            const res = await s.fetch(input, { ...init, signal: req.signal });
            retryAfter = res.headers.get("retry-after");
            return asJsonError(res);
          }) as typeof fetch,
        });
        try {
          const r = await client.chat({
            model: s.model,
            messages: req.messages,
            stream: false,
            ...(req.format !== undefined ? { format: req.format } : {}),
            options: { num_ctx: s.contextTokens, num_predict: req.maxAnswerTokens, temperature: 0 },
          });
          const content = r.message?.content ?? "";
          return {
            content,
            truncated: r.done_reason === "length",
            usage: {
              promptTokens: r.prompt_eval_count ?? estimateTokens(req.messages.map((m) => m.content).join("\n")),
              completionTokens: r.eval_count ?? estimateTokens(content),
            },
          };
        } catch (err) {
          if (req.signal.aborted) throw req.signal.reason ?? err;
          if (isResponseError(err)) {
            const message = withHint(err.status_code, err.error ?? err.message, s.model, s.baseUrl.replace(/\/+$/, ""));
            throw llmHttpError(endpoint, err.status_code, `HTTP ${err.status_code}: ${message}`, retryAfter, err);
          }
          throw new LlmUnavailableError(endpoint, err instanceof Error ? err.message : String(err), err);
        }
      },
    };
  },
};
