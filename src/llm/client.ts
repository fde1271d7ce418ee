/**
 * @module llm/client
 * Provider-agnostic LLM operations the formats use: structured extraction (schema-constrained answer, checked,
 * repaired once), summaries, change descriptions, crawl options, brand personality. Long content is chunked to
 * the provider's context and partial answers merged. Every operation runs under one {@link LlmCall}: a deadline
 * (the operation never outlives it, even if the provider ignores its abort signal) and a token budget whose
 * usage is reported as it is spent (`onTokens`, recorded per key for `/v2/team/token-usage`).
 */
import { CrawlboxError } from "../errors.ts";
import { chunkText, CHARS_PER_TOKEN, estimateTokens, mergeAnswers } from "./chunk.ts";
import { LlmBudgetExceededError, LlmInvalidAnswerError, LlmTimeoutError, LlmUnavailableError } from "./errors.ts";
import { brandingMessages, changeMessages, crawlOptionsMessages, extractMessages, highlightsMessages, NOTHING_RELEVANT, questionMessages, repairMessages, summaryMessages } from "./prompts.ts";
import { normaliseAnswer } from "./answer.ts";
import { changeExcerpts } from "../change-tracking/excerpts.ts";
import { parseJsonAnswer, validateAgainst } from "./schema.ts";
import type { LlmChatAnswer, LlmMessage, LlmProvider } from "./types.ts";

/** Answer tokens reserved per call. */
export const MAX_ANSWER_TOKENS = 2048;
/** Tokens reserved for instructions, schema and delimiters around a chunk. */
const PROMPT_OVERHEAD_TOKENS = 512;

/** The limits of one LLM-backed operation (one format of one page). */
export interface LlmCall {
  /** The client's abort (request gone, job cancelled). */
  signal?: AbortSignal;
  /** Absolute deadline (epoch ms) for the whole operation. */
  deadline: number;
  /**
   * The operation's whole allowance (ms), which an `LLM_TIMEOUT` quotes. Without it the error quotes the time the
   * last call had left, which after a few chunks of a long page can be a misleading "within 0 ms".
   */
  limitMs?: number;
  /** Tokens the operation may spend. */
  tokenBudget: number;
  /** Called with the tokens of each finished call (charged to the key even if the operation fails later). */
  onTokens?: (tokens: number) => void;
}

/** Runs LLM operations against one provider. */
export class LlmClient {
  constructor(
    readonly provider: LlmProvider,
    private readonly now: () => number = Date.now,
  ) {}

  /** Largest chunk of content one call carries, in characters. */
  chunkChars(schema?: Record<string, unknown>): number {
    const schemaTokens = schema ? estimateTokens(JSON.stringify(schema)) : 0;
    const room = this.provider.capabilities.contextTokens - PROMPT_OVERHEAD_TOKENS - schemaTokens - this.answerTokens();
    return Math.max(256, room * CHARS_PER_TOKEN);
  }

  private answerTokens(): number {
    return Math.min(MAX_ANSWER_TOKENS, Math.floor(this.provider.capabilities.contextTokens / 4));
  }

  /** One chat turn under the call's deadline and budget. */
  async chat(messages: LlmMessage[], format: Record<string, unknown> | "json" | undefined, call: LlmCall, spent: { tokens: number }): Promise<LlmChatAnswer> {
    const p = this.provider;
    const estimate = estimateTokens(messages.map((m) => m.content).join("\n"));
    if (spent.tokens + estimate > call.tokenBudget) throw new LlmBudgetExceededError(call.tokenBudget, spent.tokens);
    const left = call.deadline - this.now();
    const timeoutMs = Math.max(0, Math.round(left));
    const endpoint = { name: p.name, address: p.address, model: p.model };
    const quotedMs = call.limitMs ?? timeoutMs;
    if (left <= 0) throw new LlmTimeoutError(endpoint, quotedMs);
    const timer = new AbortController();
    const signal = call.signal ? AbortSignal.any([call.signal, timer.signal]) : timer.signal;
    let handle: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      handle = setTimeout(() => {
        timer.abort(new DOMException("LLM deadline passed", "TimeoutError"));
        reject(new LlmTimeoutError(endpoint, quotedMs));
      }, left);
    });
    try {
      const raw = await Promise.race([p.chat({ messages, format, maxAnswerTokens: this.answerTokens(), signal }), deadline]);
      const answer = normaliseAnswer(raw, estimate, this.answerTokens(), p.capabilities.contextTokens);
      if (!answer) throw new LlmUnavailableError(endpoint, "the answer's content is not text");
      const tokens = answer.usage.promptTokens + answer.usage.completionTokens;
      spent.tokens += tokens;
      call.onTokens?.(tokens);
      return answer;
    } catch (err) {
      if (timer.signal.aborted) throw new LlmTimeoutError(endpoint, quotedMs);
      if (call.signal?.aborted) throw call.signal.reason ?? err;
      if (err instanceof CrawlboxError) throw err;
      throw new LlmUnavailableError(endpoint, err instanceof Error ? err.message : String(err), err);
    } finally {
      clearTimeout(handle);
    }
  }

  /**
   * One structured turn: asks for JSON valid against `schema` (or any JSON object), validates, and on failure
   * sends one repair turn naming the problems; a second failure is {@link LlmInvalidAnswerError}.
   */
  async structured(messages: LlmMessage[], schema: Record<string, unknown> | undefined, call: LlmCall, spent = { tokens: 0 }): Promise<unknown> {
    const check = (answer: LlmChatAnswer): { value?: unknown; problems: string[] } => {
      const parsed = parseJsonAnswer(answer.content);
      if (!parsed.ok) return { problems: [answer.truncated ? "the answer was cut off at the token limit" : parsed.problem] };
      if (schema) {
        const problems = validateAgainst(schema, parsed.value);
        return problems.length > 0 ? { problems } : { value: parsed.value, problems };
      }
      if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) return { problems: ["the answer must be a JSON object"] };
      return { value: parsed.value, problems: [] };
    };
    const format = schema ?? "json";
    const first = await this.chat(messages, format, call, spent);
    const a = check(first);
    if (a.problems.length === 0) return a.value;
    const second = await this.chat(repairMessages(messages, first.content, a.problems), format, call, spent);
    const b = check(second);
    if (b.problems.length === 0) return b.value;
    throw new LlmInvalidAnswerError({ name: this.provider.name, address: this.provider.address, model: this.provider.model }, b.problems);
  }

  /**
   * Structured extraction from page content (`json` format): chunked, answers merged. `spent` counts the tokens
   * against the call's budget, shared with other calls of the same format (the injection check).
   */
  async extract(o: { content: string; schema?: Record<string, unknown>; prompt?: string }, call: LlmCall, spent = { tokens: 0 }): Promise<{ value: unknown; chunks: number }> {
    const chunks = chunkText(o.content, this.chunkChars(o.schema));
    const answers: unknown[] = [];
    for (let i = 0; i < chunks.length; i++) {
      const msgs = extractMessages({ content: chunks[i]!, prompt: o.prompt, schema: o.schema, part: { index: i, count: chunks.length } });
      answers.push(await this.structured(msgs, o.schema, call, spent));
    }
    return { value: mergeAnswers(answers), chunks: chunks.length };
  }

  /** A summary of page content (`summary` format): chunk summaries merged by one more call when long. */
  async summarize(content: string, call: LlmCall): Promise<string> {
    const chunks = chunkText(content, this.chunkChars());
    const spent = { tokens: 0 };
    const parts: string[] = [];
    for (const c of chunks) parts.push((await this.chat(summaryMessages(c), undefined, call, spent)).content.trim());
    if (parts.length === 1) return parts[0]!;
    const joined = parts.map((p, i) => `Part ${i + 1}: ${p}`).join("\n\n");
    return (await this.chat(summaryMessages(joined, "merge"), undefined, call, spent)).content.trim();
  }

  /**
   * The answer to `question` from page content (`question` format): each chunk answers or says it has nothing;
   * several partial answers are combined by one more call. Undefined when no part of the page answers it.
   */
  async answer(content: string, question: string, call: LlmCall): Promise<string | undefined> {
    const spent = { tokens: 0 };
    const parts: string[] = [];
    for (const c of chunkText(content, this.chunkChars())) {
      const a = (await this.chat(questionMessages(c, question), undefined, call, spent)).content.trim();
      if (a && a !== NOTHING_RELEVANT) parts.push(a);
    }
    if (parts.length <= 1) return parts[0];
    const joined = parts.map((p, i) => `Part ${i + 1}: ${p}`).join("\n\n");
    return (await this.chat(questionMessages(joined, question, "merge"), undefined, call, spent)).content.trim();
  }

  /** Passages of page content relevant to `query` (`highlights` format), one per line; "" when none is. */
  async highlights(content: string, query: string, call: LlmCall): Promise<string> {
    const spent = { tokens: 0 };
    const lines: string[] = [];
    for (const c of chunkText(content, this.chunkChars())) {
      const a = (await this.chat(highlightsMessages(c, query), undefined, call, spent)).content.trim();
      if (a && a !== NOTHING_RELEVANT) lines.push(...a.split("\n").map((l) => l.trim()).filter((l) => l && l !== NOTHING_RELEVANT));
    }
    return lines.join("\n");
  }

  /**
   * A JSON description of the change between two versions (changeTracking `json` mode without a schema). Versions
   * too long for one call are sent as the passages that changed (change-tracking/excerpts.ts), not their starts: a
   * change further down a long page must reach the model.
   */
  async describeChange(previous: string, current: string, prompt: string | undefined, call: LlmCall): Promise<unknown> {
    return this.structured(changeMessages(changeExcerpts(previous, current, this.chunkChars()), prompt), undefined, call);
  }

  /** Crawler options from a natural-language description. */
  async crawlOptions(url: string, prompt: string, schema: Record<string, unknown>, call: LlmCall): Promise<Record<string, unknown>> {
    return (await this.structured(crawlOptionsMessages(url, prompt, schema), schema, call)) as Record<string, unknown>;
  }

  /** A brand's personality (branding format), from the start of the page. */
  async brandPersonality(content: string, call: LlmCall): Promise<Record<string, unknown>> {
    const schema = {
      type: "object",
      properties: { tone: { type: "string" }, energy: { type: "string", enum: ["low", "medium", "high"] }, targetAudience: { type: "string" } },
      required: ["tone", "energy", "targetAudience"],
    };
    return (await this.structured(brandingMessages(content.slice(0, this.chunkChars(schema))), schema, call)) as Record<string, unknown>;
  }
}
