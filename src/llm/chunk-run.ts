/**
 * @module llm/chunk-run
 * Asking the model about a long page's chunks one after another, within the operation's limits, and keeping what
 * was answered when a limit ends the run early: the page's first parts answered are worth more than an error with
 * the tokens already charged. A run ends early for
 * - the token budget (the plan leaves out what it cannot cover, llm/chunk-plan.ts; repair turns are not planned for,
 *   so the budget may still run out on the way);
 * - time: every chunk after the first, and the merge of their answers, run under a deadline
 *   {@link FINISH_RESERVE_MS} before the operation's, so a call that deadline cuts off ends the run with the chunks
 *   before it and still leaves the scrape time to answer. Before, a 2 MB page on a model taking 1.5 s a call
 *   answered nine chunks (charged) and then failed `LLM_TIMEOUT` with nothing. Every chunk is tried while time
 *   is left, not guessed at from the calls so far: a first call slowed by loading the model says little of the next
 *   ones, and a quick "nothing relevant" answer little of a full one (each guess tried stopped runs early or late).
 *   Where the model then combines the answers (a summary, a question's answer), the later chunks stop at
 *   {@link MERGE_SHARE} of the time before the deadline, left for the merge: without it they ran until the
 *   deadline, and a long page's summary came back as its parts, one after another;
 * - the model server's rate limit, met on a later chunk;
 * - the model server failing a later chunk (`LLM_UNAVAILABLE`: its 5xx or a connection reset, after the client's
 *   own retries, llm/retry.ts; or an error status such as a 400 for that chunk): before, one 503 on the ninth part
 *   of a page threw away the eight answered (and charged) before it.
 *
 * Only a first chunk's failure is the error it always was: there is nothing to give without it. An abort (the client
 * gone, the job cancelled) is never a partial result.
 */
import { LlmBudgetExceededError, LlmRateLimitedError, LlmTimeoutError, LlmUnavailableError } from "./errors.ts";
import { mergeInRounds, type ChunkPlan } from "./chunk-plan.ts";
import type { LlmCall } from "./call.ts";

/**
 * Time kept free before the operation's deadline for the chunks after the first and for merges: what the scrape does
 * after its formats (the document, its storage), so that a run cut short still answers within the scrape's timeout.
 */
export const FINISH_RESERVE_MS = 500;

/** Adds `message` to the call's warnings (once): the document's or job's `warning`. */
export function warnOnce(call: LlmCall, message: string): void {
  if (call.warnings && !call.warnings.includes(message)) call.warnings.push(message);
}

/** Share of an operation's time its later chunks leave for merging their answers, where the model merges them. */
export const MERGE_SHARE = 0.2;

/** `call` with its deadline {@link FINISH_RESERVE_MS} and `extraMs` earlier. */
function reserved(call: LlmCall, extraMs = 0): LlmCall {
  return { ...call, deadline: call.deadline - FINISH_RESERVE_MS - extraMs };
}

/** How to run a plan's chunks. */
export interface ChunkRun<T> {
  call: LlmCall;
  /** The operation's result, named in warnings ("the summary"). */
  what: string;
  /** Whether the model combines the answers after the chunks (a summary, an answer; a JSON answer is merged here). */
  modelMerges?: boolean;
  /** The clock (injected by the client). */
  now: () => number;
  /** Asks about one chunk, under `call` (the operation's, or for a later chunk its reserved deadline). */
  ask: (chunk: string, index: number, count: number, call: LlmCall) => Promise<T>;
}

/** The answers to the plan's leading chunks: all of them, or those the operation's limits allowed (with a warning). */
export async function runChunks<T>(plan: ChunkPlan, run: ChunkRun<T>): Promise<T[]> {
  const { call, what } = run;
  const count = plan.chunks.length;
  const out: T[] = [];
  const started = run.now();
  const limitMs = call.limitMs ?? Math.max(0, call.deadline - started);
  const later = reserved(call, run.modelMerges && count > 1 ? MERGE_SHARE * limitMs : 0);
  const leftOut = (reason: string) => {
    warnOnce(call, `${reason}: ${what} was drawn from the first ${out.length} of ${count} parts of the content.`);
    return out;
  };
  for (let i = 0; i < count; i++) {
    try {
      out.push(await run.ask(plan.chunks[i]!, i, count, i === 0 ? call : later));
    } catch (err) {
      if (i === 0 || call.signal?.aborted) throw err;
      if (err instanceof LlmBudgetExceededError) return leftOut(`The LLM token budget of this request (${call.tokenBudget} tokens, CRAWLBOX_LLM_TOKEN_BUDGET) ran out`);
      if (err instanceof LlmTimeoutError) return leftOut(timeReason(call, started, i, run.now()));
      if (err instanceof LlmRateLimitedError) return leftOut("The model server rate-limited this request before every part was read");
      if (err instanceof LlmUnavailableError) return leftOut(`The model server failed on part ${i + 1} (${serverReason(err)})`);
      throw err;
    }
  }
  if (plan.warning) warnOnce(call, plan.warning);
  return out;
}

/**
 * Combines partial answers with `mergeOne`, in rounds (llm/chunk-plan.ts), under the reserved deadline; when that cuts
 * the merge off (or the rate limit does, or the server fails it), the parts themselves, in page order, with a
 * warning: they are what the calls so far produced.
 */
export async function mergeOrJoin(parts: string[], maxChars: number, call: LlmCall, what: string, mergeOne: (joined: string, call: LlmCall) => Promise<string>): Promise<string> {
  const later = reserved(call);
  try {
    return await mergeInRounds(parts, maxChars, (joined) => mergeOne(joined, later));
  } catch (err) {
    if (!(err instanceof LlmTimeoutError || err instanceof LlmRateLimitedError || err instanceof LlmUnavailableError) || call.signal?.aborted) throw err;
    const why = err instanceof LlmUnavailableError ? `The model server failed to combine the ${parts.length} parts of ${what} (${serverReason(err)})` : `The LLM had no time left to combine the ${parts.length} parts of ${what}`;
    warnOnce(call, `${why}: they are given one after another, in page order.`);
    return parts.join("\n\n");
  }
}

/** Characters of the server's failure quoted in a warning. */
const REASON_CHARS = 200;

/** The provider's own words of `err` (after "failed: "), short: what the operator reads to fix the server. */
function serverReason(err: LlmUnavailableError): string {
  const reason = err.message.replace(/^.*? failed: /, "");
  return reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS)}…` : reason;
}

/** Why a run stopped for time, with the figures a user can act on. */
function timeReason(call: LlmCall, started: number, answered: number, now: number): string {
  const limit = call.limitMs !== undefined ? `${call.limitMs} ms` : "time";
  const per = Math.round((now - started) / Math.max(1, answered));
  return `The LLM had too little of this operation's ${limit} for every part (about ${per} ms a part; the scrape's timeout, or CRAWLBOX_LLM_TIMEOUT_MS)`;
}
