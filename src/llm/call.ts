/**
 * @module llm/call
 * One LLM-backed operation's limits ({@link LlmCall}) and the one chat turn every operation is made of
 * ({@link chatTurn}): under the operation's deadline (never outlived, even by a provider that ignores its abort
 * signal) and token budget (each finished call's usage reported at once, `onTokens`, for `/v2/team/token-usage`),
 * a transient provider failure retried by the call's policy (llm/retry.ts), a server found unreachable moments ago
 * not asked at all by a job page its job will retry (llm/server-down.ts), and every provider failure turned into crawlbox's typed LLM errors. The
 * client's operations (llm/client.ts) chunk, validate and merge around it.
 */
import { CrawlboxError } from "../errors.ts";
import { estimateTokens } from "./chunk.ts";
import { LlmBrokenAnswerError, LlmBudgetExceededError, LlmServerDownError, LlmTimeoutError, LlmUnavailableError } from "./errors.ts";
import { normaliseAnswer } from "./answer.ts";
import { JOB_PAGE_LLM_RETRY, retryDelayMs, sleepMs, SYNC_LLM_RETRY, type LlmRetryPolicy } from "./retry.ts";
import type { ServerDownMemo } from "./server-down.ts";
import type { LlmChatAnswer, LlmMessage, LlmProvider } from "./types.ts";

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
  /**
   * How a call that meets a transient provider failure (429, 5xx, unreachable) is retried, within `deadline`.
   * Asynchronous extract and agent jobs pass `JOB_LLM_RETRY` (llm/retry.ts). @default `SYNC_LLM_RETRY`
   * (synchronous work: a failing server is tried twice more after a short backoff; a 429, retryable and with the
   * provider's `Retry-After`, goes to the client or the crawl's page retries at once). A crawl or batch page its job
   * will try again gets `JOB_PAGE_LLM_RETRY` (llm/render-call.ts: an unreachable server is left to that retry)
   */
  retry?: LlmRetryPolicy;
  /**
   * Where the operation says what it could not fully do (parts of a long page left out for the token budget, a
   * schema's required field the page does not give): the document's or job's `warning`.
   */
  warnings?: string[];
}

/** What a chat turn needs of the client that runs it. */
export interface ChatTurnContext {
  provider: LlmProvider;
  /** The answer's token reservation per call. */
  answerTokens: number;
  /** The clock (epoch ms; injected by tests). */
  now: () => number;
  /** Jitter of retry backoff (injected so tests can make it deterministic). */
  random: () => number;
  /** The provider's server-down memo (llm/server-down.ts), consulted under `JOB_PAGE_LLM_RETRY` only; without it every call is sent. */
  down?: ServerDownMemo;
}

/**
 * What one operation has spent so far, shared by its turns: its tokens, and whether the server has answered one of
 * them. "Answered" is its own flag, not `tokens > 0`: a server that reports a usage of 0 (which an answer may carry)
 * left a later turn (a repair turn, a long page's next part) counted as a first turn, turned away by the memo that
 * another page's refusal had armed since, and the page failed for the job to retry instead of keeping its answer.
 */
export interface OperationSpent {
  tokens: number;
  /** Set once a turn of the operation got an answer. */
  answered?: boolean;
}

/** Whether the server has answered a turn of the operation (tokens are counted from answers only, so either says it). */
function answered(spent: OperationSpent): boolean {
  return spent.answered === true || spent.tokens > 0;
}

/**
 * One chat turn under the call's deadline and budget; a transient provider failure is retried by the call's
 * {@link LlmCall.retry} policy (llm/retry.ts), so earlier work (a job's pages read, a long page's parts answered)
 * is kept. `spent` counts the operation's tokens so far, against `call.tokenBudget`, and is marked `answered` once a
 * turn of the operation got an answer. Under `JOB_PAGE_LLM_RETRY` (a job page its job will try again), the first turn
 * of an operation (nothing answered yet) sent within the memo of a server found unreachable (`ctx.down`) fails at
 * once with {@link LlmServerDownError}; under any other policy the memo is not consulted (a lone scrape, a page's
 * last attempt, interact, monitor, extract, agent). A later turn of an operation the server has answered moments ago
 * (a long page's next part, a repair turn, a merge), whose failure would cost what was answered, is sent whatever the
 * memo says, and so are a turn's own retries, which its policy spaces.
 */
export async function chatTurn(
  ctx: ChatTurnContext,
  messages: LlmMessage[],
  format: Record<string, unknown> | "json" | undefined,
  call: LlmCall,
  spent: OperationSpent,
): Promise<LlmChatAnswer> {
  const policy = call.retry ?? SYNC_LLM_RETRY;
  const down = policy !== JOB_PAGE_LLM_RETRY || call.signal?.aborted || answered(spent) ? undefined : ctx.down?.current();
  if (down) throw new LlmServerDownError(endpointOf(ctx.provider), down.reason, down.ageMs, ctx.down!.memoMs, down.cause);
  for (let retry = 1; ; retry++) {
    try {
      const answer = await chatOnce(ctx, messages, format, call, spent);
      ctx.down?.noteAnswer();
      return answer;
    } catch (err) {
      ctx.down?.noteFailure(err);
      if (call.signal?.aborted) throw err;
      const waitMs = retryDelayMs(err, retry, policy, { now: ctx.now(), deadline: call.deadline, random: ctx.random });
      if (waitMs === undefined) throw err;
      await sleepMs(waitMs, call.signal);
    }
  }
}

/** Who a turn asks, as its errors name it. */
function endpointOf(p: LlmProvider): { name: string; address: string; model: string } {
  return { name: p.name, address: p.address, model: p.model };
}

/** One attempt of {@link chatTurn}. */
async function chatOnce(
  ctx: ChatTurnContext,
  messages: LlmMessage[],
  format: Record<string, unknown> | "json" | undefined,
  call: LlmCall,
  spent: OperationSpent,
): Promise<LlmChatAnswer> {
  const p = ctx.provider;
  const estimate = estimateTokens(messages.map((m) => m.content).join("\n"));
  if (spent.tokens + estimate > call.tokenBudget) throw new LlmBudgetExceededError(call.tokenBudget, spent.tokens);
  const left = call.deadline - ctx.now();
  const timeoutMs = Math.max(0, Math.round(left));
  const endpoint = endpointOf(p);
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
    const raw = await Promise.race([p.chat({ messages, format, maxAnswerTokens: ctx.answerTokens, signal }), deadline]);
    const answer = normaliseAnswer(raw, estimate, ctx.answerTokens, p.capabilities.contextTokens);
    if (!answer) throw new LlmBrokenAnswerError(endpoint, "the answer's content is not text");
    const tokens = answer.usage.promptTokens + answer.usage.completionTokens;
    spent.tokens += tokens;
    spent.answered = true;
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
