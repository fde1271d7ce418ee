/**
 * @module llm/answer
 * What crawlbox accepts from a model server, whatever the server sends: the answer's text and its token counts.
 * Both providers' answers pass through {@link normaliseAnswer} in the client, so a hostile or broken endpoint
 * cannot crash a format (content that is not text), corrupt the token ledger (negative, fractional, infinite or
 * string counts), or blow up memory and later prompts (an answer far past its token limit).
 */
import { CHARS_PER_TOKEN, estimateTokens } from "./chunk.ts";
import type { LlmChatAnswer } from "./types.ts";

/** Answer characters kept per answer token asked for (a model honouring its limit stays well under). */
const MAX_CHARS_PER_ANSWER_TOKEN = CHARS_PER_TOKEN * 4;

/**
 * The text of an answer's content: a string as is, or the text parts of an OpenAI-style content array joined
 * (other parts, such as a refusal or an image, ignored); undefined when there is no text at all (a number, an
 * object, tool calls only).
 */
export function answerText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : undefined)).filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join("") : undefined;
}

/**
 * A reported token count if it is one (a finite number from 0 to `max`), rounded; else `estimate`. `max` is what
 * one call can really use (its context window): a larger count is not one, and must not be charged to the key.
 */
export function tokenCount(reported: unknown, estimate: number, max: number): number {
  return typeof reported === "number" && Number.isFinite(reported) && reported >= 0 && reported <= max ? Math.round(reported) : estimate;
}

/** A reasoning block's opening tag at the very start of an answer, and its closing tag anywhere. */
const LEADING_THINK = /^\s*<think>/i;
const THINK_END = /<\/think>/i;
/**
 * A closing tag that starts its line, as a reasoning model ends its thinking ("…\n</think>\n\nThe answer",
 * "…\n</think>The answer"); not one inside or at the end of a line of the answer's own text ("R1 ends its
 * reasoning with </think>", a list of HTML tags).
 */
const LONE_THINK_END = /(?:^|\n)[ \t]*<\/think>/i;

/**
 * `text` without a reasoning model's thinking, wherever the model server left it in the content:
 * - a leading `<think>…</think>` block (DeepSeek-R1 and QwQ as most servers pass them on);
 * - everything up to a `</think>` that starts its line: the chat templates of R1, QwQ and Qwen3 put the opening
 *   `<think>` in the prompt, so the answer holds only the closing one (Ollama issue #12736, "thinking spills into content"); a summary
 *   came back with the model's reasoning and a literal `</think>` in it, and a JSON answer whose reasoning held
 *   braces failed to parse;
 * - a `<think>` never closed: the model stopped (at its token limit) while still reasoning, so there is no answer.
 */
export function withoutReasoning(text: string): string {
  if (LEADING_THINK.test(text)) {
    const end = THINK_END.exec(text);
    return end ? text.slice(end.index + end[0].length).trimStart() : "";
  }
  // Only a closing tag at a line's start: one inside the answer's text ("ends its reasoning with a </think>
  // tag", a JSON title naming it) is the answer's, and cutting there lost its start.
  const end = LONE_THINK_END.exec(text);
  if (!end) return text;
  // A `<think>` before it means the tags are the answer's own text (a page about them).
  if (/<think>/i.test(text.slice(0, end.index))) return text;
  return text.slice(end.index + end[0].length).trimStart();
}

/**
 * The answer crawlbox works with: text only (undefined: the content was not text), a reasoning model's thinking
 * removed ({@link withoutReasoning}), cut to `maxAnswerTokens` worth of characters (then marked truncated), and
 * token counts that are counts, each at most `contextTokens` (estimated from the prompt and the text otherwise).
 */
export function normaliseAnswer(answer: LlmChatAnswer, promptEstimate: number, maxAnswerTokens: number, contextTokens: number): LlmChatAnswer | undefined {
  let text = answerText(answer.content as unknown);
  if (text === undefined) return undefined;
  text = withoutReasoning(text);
  const maxChars = maxAnswerTokens * MAX_CHARS_PER_ANSWER_TOKEN;
  const cut = text.length > maxChars;
  if (cut) text = text.slice(0, maxChars);
  const usage = (answer.usage ?? {}) as Partial<Record<"promptTokens" | "completionTokens", unknown>>;
  return {
    content: text,
    truncated: answer.truncated === true || cut,
    usage: {
      promptTokens: tokenCount(usage.promptTokens, promptEstimate, contextTokens),
      completionTokens: tokenCount(usage.completionTokens, estimateTokens(text), contextTokens),
    },
  };
}
