/**
 * @module llm/client
 * Provider-agnostic LLM operations the formats use: structured extraction (schema-constrained answer, checked,
 * repaired once), summaries, change descriptions, crawl options, brand personality. Long content is chunked to
 * the provider's context and partial answers merged. Every operation runs under one {@link LlmCall}: a deadline
 * (the operation never outlives it, even if the provider ignores its abort signal) and a token budget whose
 * usage is reported as it is spent (`onTokens`, recorded per key for `/v2/team/token-usage`).
 */
import { chunkText, CHARS_PER_TOKEN, estimateTokens, leadingWithin, mergeAnswers } from "./chunk.ts";
import { LlmEmptyAnswerError, LlmInvalidAnswerError, LlmPromptTooLongError } from "./errors.ts";
import { brandingMessages, changeMessages, crawlOptionsMessages, extractMessages, highlightsMessages, NOTHING_RELEVANT, questionMessages, REPAIR_QUOTE_CHARS, repairMessages, summaryMessages } from "./prompts.ts";
import { fitToBudget, EXPECTED_ANSWER_TOKENS, type ChunkPlan } from "./chunk-plan.ts";
import { relaxedSchema } from "./relaxed-schema.ts";
import { mergeOrJoin, runChunks, warnOnce } from "./chunk-run.ts";
import { changeExcerpts } from "../change-tracking/excerpts.ts";
import type { PairEdits } from "../change-tracking/shared-edits.ts";
import { parseJsonAnswer, validateAgainst, validationErrors } from "./schema.ts";
import { coerceScalars } from "./coerce-scalars.ts";
import { problemsInCallerTerms } from "./relaxed-schema.ts";
import { chatTurn, type LlmCall } from "./call.ts";
import { retriedInCall } from "./retry.ts";
import { ServerDownMemo } from "./server-down.ts";
import type { LlmChatAnswer, LlmMessage, LlmProvider } from "./types.ts";

/** Answer tokens reserved per call. */
export const MAX_ANSWER_TOKENS = 2048;
/** Tokens reserved for instructions and delimiters around a chunk (the schema and caller's prompt are counted apart). */
const PROMPT_OVERHEAD_TOKENS = 512;
/** Tokens of a repair turn's instruction and list of problems (up to ten short validator messages). */
const REPAIR_INSTRUCTION_TOKENS = 300;
/** Smallest chunk of content: below this a long page would take absurdly many calls. */
export const MIN_CHUNK_CHARS = 256;

/**
 * The call of a long page's later part, or of the merge of its parts' answers: retried in the call as synchronous
 * work even in a crawl or batch page its job will try again (llm/retry.ts {@link retriedInCall}). Their failure does
 * not fail the page (the parts answered are kept, with a warning: llm/chunk-run.ts), so the job's retry, to which
 * such a page otherwise leaves an unreachable server, never comes.
 */
function laterPartCall(call: LlmCall): LlmCall {
  return retriedInCall(call);
}


/** Runs LLM operations against one provider. */
export class LlmClient {
  constructor(
    readonly provider: LlmProvider,
    private readonly now: () => number = Date.now,
    /** Jitter of retry backoff (injected so tests can make it deterministic). */
    private readonly random: () => number = Math.random,
    /** The provider's server-down memo, shared by every call of this client (llm/server-down.ts); tests inject a short one. */
    private readonly down: ServerDownMemo = new ServerDownMemo(),
  ) {}

  /**
   * Largest chunk of content one call carries, in characters: the context window less our instructions, the
   * schema, the caller's `prompt` (which goes with every chunk), the answer's reservation and, with `repair`, the
   * repair turn's additions (the quoted answer and the list of problems), so that the repair request fits too.
   * Throws {@link LlmPromptTooLongError} (400) when the caller's prompt or schema (`callerSchema`: the schema is the
   * request's, not one of crawlbox's own small ones) leaves no room for content; never less than
   * {@link MIN_CHUNK_CHARS} otherwise. A schema-only request was not checked: a 67 KB schema went out with a context
   * of 8,192 tokens, which Ollama cuts from the start, rules and all. `repair` is opt-in (`extract` sets it): the other structured callers
   * (clean-content, redact, the injection check) size their parts on this and were tuned without it.
   */
  chunkChars(schema?: Record<string, unknown>, o: { prompt?: string; repair?: boolean; callerSchema?: boolean } = {}): number {
    const context = this.provider.capabilities.contextTokens;
    const schemaTokens = schema ? estimateTokens(JSON.stringify(schema)) : 0;
    const promptTokens = o.prompt ? estimateTokens(o.prompt) : 0;
    const room = context - PROMPT_OVERHEAD_TOKENS - schemaTokens - promptTokens - this.answerTokens();
    if ((promptTokens > 0 || (o.callerSchema === true && schemaTokens > 0)) && room * CHARS_PER_TOKEN < MIN_CHUNK_CHARS) throw new LlmPromptTooLongError(promptTokens + schemaTokens, context);
    const repair = o.repair === true ? this.repairTokens() : 0;
    return Math.max(MIN_CHUNK_CHARS, (room - repair) * CHARS_PER_TOKEN);
  }

  /** What a repair turn adds to its request: the invalid answer quoted back (at most the answer limit) and the instruction. */
  private repairTokens(): number {
    return Math.min(this.answerTokens(), estimateTokens("x".repeat(REPAIR_QUOTE_CHARS))) + REPAIR_INSTRUCTION_TOKENS;
  }

  private answerTokens(): number {
    return Math.min(MAX_ANSWER_TOKENS, Math.floor(this.provider.capabilities.contextTokens / 4));
  }

  /** One chat turn of this client's provider under `call` (llm/call.ts {@link chatTurn}). */
  async chat(messages: LlmMessage[], format: Record<string, unknown> | "json" | undefined, call: LlmCall, spent: { tokens: number }): Promise<LlmChatAnswer> {
    return await chatTurn({ provider: this.provider, answerTokens: this.answerTokens(), now: this.now, random: this.random, down: this.down }, messages, format, call, spent);
  }

  /**
   * One structured turn: asks for JSON valid against `schema` (or any JSON object), validates, and on failure
   * sends one repair turn naming the problems; a second failure is {@link LlmInvalidAnswerError}. Numbers and
   * booleans the model wrote as text are read as such first (llm/coerce-scalars.ts). `o.checkWith` is the schema the
   * answer is checked against when it is not `schema` itself (a chunk's relaxed schema, see llm/relaxed-schema.ts;
   * the model is constrained to `schema`, which `extract` makes the relaxed one too for a page of several parts);
   * `o.callerSchema` the request's schema `checkWith` relaxes, in whose terms the error then words the problems.
   */
  async structured(
    messages: LlmMessage[],
    schema: Record<string, unknown> | undefined,
    call: LlmCall,
    spent = { tokens: 0 },
    o: { checkWith?: Record<string, unknown>; callerSchema?: Record<string, unknown> } = {},
  ): Promise<unknown> {
    const checkWith = o.checkWith ?? schema;
    const fits = (v: unknown) => (checkWith ? validateAgainst(checkWith, coerceScalars(checkWith, v)).length === 0 : typeof v === "object" && v !== null && !Array.isArray(v));
    const check = (answer: LlmChatAnswer): { value?: unknown; problems: string[] } => {
      const parsed = parseJsonAnswer(answer.content, fits);
      if (!parsed.ok) return { problems: [answer.truncated ? "the answer was cut off at the token limit" : parsed.problem] };
      if (checkWith) {
        const value = coerceScalars(checkWith, parsed.value);
        const problems = validateAgainst(checkWith, value);
        return { value, problems };
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
    // The client reads the problems against the schema it sent, not the relaxed copy's "must be number,null".
    const problems = o.callerSchema && checkWith && b.value !== undefined ? problemsInCallerTerms(validationErrors(checkWith, b.value), o.callerSchema) : b.problems;
    throw new LlmInvalidAnswerError({ name: this.provider.name, address: this.provider.address, model: this.provider.model }, problems);
  }

  /**
   * The chunks of `content` one operation sends: sized to the context (with the caller's `prompt` and the repair
   * turn, see {@link chunkChars}), then cut to the leading ones the remaining token budget covers (llm/chunk-plan.ts).
   * `fixed(count)` is the request around a chunk, without it.
   */
  private plan(content: string, o: { maxChars: number; fixed: (count: number) => LlmMessage[]; call: LlmCall; spent: { tokens: number }; mergeTokens?: number; what: string }): ChunkPlan {
    const chunks = chunkText(content, o.maxChars);
    const fixedTokens = estimateTokens(o.fixed(chunks.length).map((m) => m.content).join("\n"));
    return fitToBudget(chunks, { fixedTokens, budgetTokens: o.call.tokenBudget - o.spent.tokens, perChunkMergeTokens: o.mergeTokens ?? 0, what: o.what });
  }

  /**
   * Runs `ask` for each planned chunk, in order, within the call's budget and deadline (llm/chunk-run.ts): chunks
   * the limits leave no room for are left out with a warning, the answered ones kept; the parts after the first
   * under {@link laterPartCall}.
   */
  private eachChunk<T>(plan: ChunkPlan, call: LlmCall, what: string, ask: (chunk: string, index: number, count: number, call: LlmCall) => Promise<T>, modelMerges = false): Promise<T[]> {
    return runChunks(plan, { call, what, modelMerges, now: this.now, ask: (chunk, i, n, c) => ask(chunk, i, n, i === 0 ? c : laterPartCall(c)) });
  }

  /**
   * One chat turn whose answer is text (no format), trimmed: an empty answer is {@link LlmEmptyAnswerError}
   * (`LLM_INVALID_ANSWER`), as for a summary. The agent's chat-mode answer: an empty one passed as a completed run
   * with `message: ""`.
   */
  async chatText(messages: LlmMessage[], call: LlmCall, spent: { tokens: number }): Promise<string> {
    return this.textOf(await this.chat(messages, undefined, call, spent));
  }

  /**
   * A free-text answer's text, trimmed. Empty is {@link LlmEmptyAnswerError} (a reasoning model that spent its answer
   * tokens thinking), unless `emptyIsNothing` and the model ended its answer itself: for a question, nothing to say.
   */
  private textOf(answer: LlmChatAnswer, emptyIsNothing = false): string {
    const text = answer.content.trim();
    if (text || (emptyIsNothing && !answer.truncated)) return text;
    throw new LlmEmptyAnswerError({ name: this.provider.name, address: this.provider.address, model: this.provider.model }, answer.truncated === true, this.answerTokens());
  }

  /**
   * Structured extraction from page content (`json` format): chunked, answers merged field by field
   * (llm/merge-answers.ts). Each chunk's answer is checked against the schema's relaxed copy (a chunk may lack
   * fields: llm/relaxed-schema.ts), which a page of several parts also sends as the format; the merged answer
   * against the schema itself. A merged answer that still lacks required fields (or has them null) is returned as
   * the model gave it, as upstream returns it, with a `warning` naming what is missing: the page may simply not
   * say, and a made-up value would be worse. `spent` counts the tokens against the call's budget, shared with
   * other calls of the same format (the injection check).
   */
  async extract(o: { content: string; schema?: Record<string, unknown>; prompt?: string }, call: LlmCall, spent = { tokens: 0 }): Promise<{ value: unknown; chunks: number; readChars: number }> {
    const relaxed = o.schema ? relaxedSchema(o.schema) : undefined;
    const plan = this.plan(o.content, {
      maxChars: this.chunkChars(o.schema, { repair: true, callerSchema: true, ...(o.prompt ? { prompt: o.prompt } : {}) }),
      fixed: (count) => extractMessages({ content: "", prompt: o.prompt, schema: o.schema, part: { index: count - 1, count } }),
      call,
      spent,
      what: "the json answer",
    });
    // A page of several parts: each part is asked for (and, where the server constrains its output to the schema:
    // Ollama's `format`, vLLM, LM Studio, constrained to) the relaxed schema, so that a part without a required
    // number or boolean can answer null as the prompt asks. Constrained to the caller's schema it could not, and
    // answered 0 or false, which then stood for the page's value.
    const answers = await this.eachChunk(plan, call, "the json answer", (chunk, index, count, c) =>
      this.structured(extractMessages({ content: chunk, prompt: o.prompt, schema: o.schema, part: { index, count } }), count > 1 ? relaxed : o.schema, c, spent, {
        ...(relaxed ? { checkWith: relaxed } : {}),
        ...(o.schema ? { callerSchema: o.schema } : {}),
      }),
    );
    const value = mergeAnswers(answers);
    if (o.schema) {
      const problems = validateAgainst(o.schema, value);
      if (problems.length > 0) warnOnce(call, `The page does not give everything the json schema requires; the answer is returned as the model gave it (missing fields are null or absent): ${problems.slice(0, 5).join("; ")}.`);
    }
    // How far into the content the answered chunks reach (all of it, or the leading chunks the limits allowed).
    let readChars = 0;
    if (answers.length === plan.chunks.length && !plan.warning) readChars = o.content.length;
    else for (const c of plan.chunks.slice(0, answers.length)) readChars += c.length;
    return { value, chunks: answers.length, readChars };
  }

  /** A summary of page content (`summary` format): chunk summaries combined in rounds that each fit the context. */
  async summarize(content: string, call: LlmCall): Promise<string> {
    const spent = { tokens: 0 };
    const plan = this.plan(content, { maxChars: this.chunkChars(), fixed: () => summaryMessages(""), call, spent, mergeTokens: EXPECTED_ANSWER_TOKENS, what: "the summary" });
    const parts = await this.eachChunk(plan, call, "the summary", async (chunk, _i, _n, c) => this.textOf(await this.chat(summaryMessages(chunk), undefined, c, spent)), true);
    if (parts.length === 1) return parts[0]!;
    return mergeOrJoin(parts, this.chunkChars(), call, "the summary", async (joined, c) => this.textOf(await this.chat(summaryMessages(joined, "merge"), undefined, laterPartCall(c), spent)));
  }

  /**
   * The answer to `question` from page content (`question` format): each chunk answers or says it has nothing;
   * several partial answers are combined in rounds that each fit the context. Undefined when no part answers it.
   */
  async answer(content: string, question: string, call: LlmCall): Promise<string | undefined> {
    const spent = { tokens: 0 };
    const maxChars = this.chunkChars(undefined, { prompt: question });
    const plan = this.plan(content, { maxChars, fixed: () => questionMessages("", question), call, spent, mergeTokens: EXPECTED_ANSWER_TOKENS, what: "the answer" });
    const answers = await this.eachChunk(plan, call, "the answer", async (chunk, _i, _n, c) => this.textOf(await this.chat(questionMessages(chunk, question), undefined, c, spent), true), true);
    const parts = answers.filter((a) => a && a !== NOTHING_RELEVANT);
    if (parts.length <= 1) return parts[0];
    return mergeOrJoin(parts, maxChars, call, "the answer", async (joined, c) => this.textOf(await this.chat(questionMessages(joined, question, "merge"), undefined, laterPartCall(c), spent)));
  }

  /** Passages of page content relevant to `query` (`highlights` format), one per line; "" when none is. */
  async highlights(content: string, query: string, call: LlmCall): Promise<string> {
    const spent = { tokens: 0 };
    const plan = this.plan(content, { maxChars: this.chunkChars(undefined, { prompt: query }), fixed: () => highlightsMessages("", query), call, spent, what: "the highlights" });
    const answers = await this.eachChunk(plan, call, "the highlights", async (chunk, _i, _n, c) => this.textOf(await this.chat(highlightsMessages(chunk, query), undefined, c, spent), true));
    return answers.flatMap((a) => (a && a !== NOTHING_RELEVANT ? a.split("\n").map((l) => l.trim()).filter((l) => l && l !== NOTHING_RELEVANT) : [])).join("\n");
  }

  /**
   * A JSON description of the change between two versions (changeTracking `json` mode without a schema). Versions
   * too long for one call are sent as the passages that changed (change-tracking/excerpts.ts), not their starts: a
   * change further down a long page must reach the model. `edits`: the line diff of the two, when the caller has one
   * to share (change-tracking/shared-edits.ts).
   */
  async describeChange(previous: string, current: string, prompt: string | undefined, call: LlmCall, edits?: PairEdits): Promise<unknown> {
    return this.structured(changeMessages(changeExcerpts(previous, current, this.chunkChars(), edits), prompt), undefined, call);
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
    return (await this.structured(brandingMessages(leadingWithin(content, this.chunkChars(schema))), schema, call)) as Record<string, unknown>;
  }
}
