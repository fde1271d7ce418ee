/**
 * @module agent/answer
 * The last step of an agent run: the answer drawn from the pages it read, with the earlier turns of its thread as
 * context. `extract` mode (the default) answers with JSON, valid against the request's `schema` when it has one
 * (the same chunked, schema-checked extraction as `POST /v2/extract`); `chat` mode answers in text, in `message`.
 */
import type { ReadPage } from "../extract/read-pages.ts";
import type { LlmCall, LlmClient } from "../llm/client.ts";
import { agentChatMessages } from "../llm/prompts.ts";
import type { AgentJob } from "./store.ts";

/** Characters of each earlier turn's prompt and answer carried into the next turn. */
const HISTORY_TURN_CHARS = 2_000;

/** The earlier turns of a thread, oldest first, as the model reads them; "" for a thread's first run. */
export function threadHistory(earlier: readonly AgentJob[]): string {
  return earlier
    .filter((run) => run.status === "completed")
    .map((run) => {
      const answer = run.message ?? (run.data === undefined ? "" : JSON.stringify(run.data));
      return `User: ${run.request.prompt.slice(0, HISTORY_TURN_CHARS)}\nYou: ${answer.slice(0, HISTORY_TURN_CHARS)}`;
    })
    .join("\n\n");
}

/** The pages as one text, each under its URL. */
function pagesText(pages: readonly ReadPage[]): string {
  return pages.map((p) => `Source: ${p.url}\n\n${p.markdown}`).join("\n\n---\n\n");
}

/** The run's answer: `data` in extract mode, `message` in chat mode. */
export async function answer(
  llm: LlmClient,
  o: { mode: "extract" | "chat"; task: string; schema?: Record<string, unknown>; history: string; pages: readonly ReadPage[]; warnings: string[] },
  call: LlmCall,
  spent: { tokens: number },
): Promise<{ data?: unknown; message?: string }> {
  const content = pagesText(o.pages);
  if (o.mode === "extract") {
    const prompt = o.history ? `Earlier in this conversation:\n${o.history}\n\nNow:\n${o.task}` : o.task;
    const { value } = await llm.extract({ content, prompt, ...(o.schema ? { schema: o.schema } : {}) }, call);
    return { data: value };
  }
  // One call: a chat answer is not merged from parts. What does not fit the model's context is left out, and said.
  const room = llm.chunkChars();
  if (content.length > room) o.warnings.push(`The pages read hold ${content.length} characters; the answer was drawn from the first ${room} (the model's context).`);
  const reply = await llm.chat(agentChatMessages(o.task, o.history, content.slice(0, room)), undefined, call, spent);
  return { message: reply.content.trim() };
}
