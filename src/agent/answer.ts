/**
 * @module agent/answer
 * The last step of an agent run: the answer drawn from the pages it read, with the earlier turns of its thread as
 * context. `extract` mode (the default) answers with JSON, valid against the request's `schema` when it has one
 * (the same chunked, schema-checked extraction as `POST /v2/extract`); `chat` mode answers in text, in `message`
 * (an empty answer fails the run with `LLM_INVALID_ANSWER`'s message).
 */
import { pagesText, type ReadPage } from "../extract/read-pages.ts";
import { leadingWithin, weightedLength } from "../llm/chunk.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { agentChatMessages } from "../llm/task-prompts.ts";
import type { AgentJob } from "./store.ts";

/** Characters of each earlier turn's prompt and answer carried into the next turn. */
const HISTORY_TURN_CHARS = 2_000;
/** Earlier turns carried into the next one (the latest): a long thread must not fill the model's context. */
export const HISTORY_TURNS = 4;

/**
 * The latest completed turns of a thread (at most {@link HISTORY_TURNS}), oldest first, as the model reads them;
 * "" for a thread's first run. Answers were written from web pages: callers put this text in a delimited block.
 */
export function threadHistory(earlier: readonly AgentJob[]): string {
  return earlier
    .filter((run) => run.status === "completed")
    .slice(-HISTORY_TURNS)
    .map((run) => {
      const answer = run.message ?? (run.data === undefined ? "" : JSON.stringify(run.data));
      return `User: ${run.request.prompt.slice(0, HISTORY_TURN_CHARS)}\nYou: ${answer.slice(0, HISTORY_TURN_CHARS)}`;
    })
    .join("\n\n");
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
    // The earlier turns go with the pages (delimited data), not into the instructions: their answers quote pages.
    const context = o.history ? `Earlier turns of this conversation, for context:\n${o.history}\n\n---\n\n` : "";
    const { value } = await llm.extract({ content: context + content, prompt: o.task, ...(o.schema ? { schema: o.schema } : {}) }, call);
    return { data: value };
  }
  // One call: a chat answer is not merged from parts. What does not fit the model's context is left out, and said.
  // Sizes are llm/chunk.ts weighted lengths: a Chinese character counts as the ASCII characters of its tokens.
  const room = Math.max(1_000, llm.chunkChars() - weightedLength(o.task) - weightedLength(o.history));
  const kept = leadingWithin(content, room);
  if (kept.length < content.length) o.warnings.push(`The pages read hold ${content.length} characters; the answer was drawn from the first ${kept.length} (the model's context).`);
  // An empty answer is LLM_INVALID_ANSWER (docs/llm.md), as a summary's: not a completed run saying nothing.
  return { message: await llm.chatText(agentChatMessages(o.task, o.history, kept), call, spent) };
}
