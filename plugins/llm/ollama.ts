/**
 * @module plugins/llm/ollama
 * The Ollama provider: `POST /api/chat` through the official `ollama` package, non-streaming, with the JSON
 * Schema as `format` (Ollama's structured outputs), `num_ctx` sized to the configured context and `num_predict`
 * bounding the answer. All traffic goes through the pinned fetch (the configured OLLAMA_BASE_URL only).
 */
import { Ollama } from "ollama/browser";
import { estimateTokens } from "../../src/llm/chunk.ts";
import { LlmUnavailableError } from "../../src/llm/errors.ts";
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

/** Describes a failed call for the client: HTTP status and the server's message, or the network failure. */
function reason(err: unknown): string {
  const e = err as { name?: string; status_code?: number; error?: string; message?: string };
  if (e?.name === "ResponseError") return `HTTP ${e.status_code}: ${e.error ?? e.message}`;
  return e?.message ?? String(err);
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
        // One client per call: the package's abort() is per instance, so the signal is bound through fetch.
        const client = new Ollama({
          host: s.baseUrl,
          fetch: (async (input: string | URL | Request, init?: RequestInit) => asJsonError(await s.fetch(input, { ...init, signal: req.signal }))) as typeof fetch,
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
          throw new LlmUnavailableError(endpoint, reason(err), err);
        }
      },
    };
  },
};
