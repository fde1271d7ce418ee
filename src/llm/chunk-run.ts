/**
 * @module llm/chunk-run
 * Asking the model about a long page's chunks one after another, within the operation's limits, and keeping what
 * was answered when a limit ends the run early: the page's first parts answered are worth more than an error with
 * the tokens already charged. A run ends early for
 * - the token budget (the plan leaves out what it cannot cover, llm/chunk-plan.ts; repair turns are not planned for,
 *   so the budget may still run out on the way);
 * - time: a chunk is not begun when the calls so far say it would not end, with the merge after it, before the
 *   operation's deadline; and a chunk the deadline cuts off ends the run with the chunks before it. Before, a 2 MB
 *   page on a model taking 1.5 s a call answered nine chunks (charged) and then failed `LLM_TIMEOUT` with nothing.
 *
 * Only a first chunk's failure is the error it always was: there is nothing to give without it.
 */
import { LlmBudgetExceededError, LlmTimeoutError } from "./errors.ts";
import { mergeInRounds, type ChunkPlan } from "./chunk-plan.ts";
import type { LlmCall } from "./client.ts";

/**
 * Time kept free before the deadline when deciding whether a chunk can still be begun: what the scrape does after its
 * formats (the document, its storage) and the slack of one call's time against the next's.
 */
export const FINISH_RESERVE_MS = 500;

/** Adds `message` to the call's warnings (once): the document's or job's `warning`. */
export function warnOnce(call: LlmCall, message: string): void {
  if (call.warnings && !call.warnings.includes(message)) call.warnings.push(message);
}

/** How to run a plan's chunks. */
export interface ChunkRun<T> {
  call: LlmCall;
  /** The operation's result, named in warnings ("the summary"). */
  what: string;
  /** Calls still needed after the chunks to combine their answers (a summary's merge: 1; a JSON answer's: 0). */
  mergeCalls: number;
  /** The clock (injected by the client). */
  now: () => number;
  ask: (chunk: string, index: number, count: number) => Promise<T>;
}

/** The answers to the plan's leading chunks: all of them, or those the operation's limits allowed (with a warning). */
export async function runChunks<T>(plan: ChunkPlan, run: ChunkRun<T>): Promise<T[]> {
  const { call, what } = run;
  const count = plan.chunks.length;
  const out: T[] = [];
  const started = run.now();
  const leftOut = (reason: string) => {
    warnOnce(call, `${reason}: ${what} was drawn from the first ${out.length} of ${count} parts of the page.`);
    return out;
  };
  for (let i = 0; i < count; i++) {
    if (i > 0) {
      const perCallMs = (run.now() - started) / i;
      const needMs = perCallMs * (1 + (run.mergeCalls > 0 && count > 1 ? run.mergeCalls : 0));
      if (run.now() + needMs > call.deadline - FINISH_RESERVE_MS) return leftOut(timeReason(call, started, i, run.now()));
    }
    try {
      out.push(await run.ask(plan.chunks[i]!, i, count));
    } catch (err) {
      if (i === 0) throw err;
      if (err instanceof LlmBudgetExceededError) return leftOut(`The LLM token budget of this request (${call.tokenBudget} tokens, CRAWLBOX_LLM_TOKEN_BUDGET) ran out`);
      if (err instanceof LlmTimeoutError && !call.signal?.aborted) return leftOut(timeReason(call, started, i, run.now()));
      throw err;
    }
  }
  if (plan.warning) warnOnce(call, plan.warning);
  return out;
}

/**
 * Combines partial answers with `mergeOne`, in rounds (llm/chunk-plan.ts); when the deadline cuts the merge off, the
 * parts themselves, in page order, with a warning: they are what the calls so far produced.
 */
export async function mergeOrJoin(parts: string[], maxChars: number, call: LlmCall, what: string, mergeOne: (joined: string) => Promise<string>): Promise<string> {
  try {
    return await mergeInRounds(parts, maxChars, mergeOne);
  } catch (err) {
    if (!(err instanceof LlmTimeoutError) || call.signal?.aborted) throw err;
    warnOnce(call, `The LLM had no time left to combine the ${parts.length} parts of ${what}: they are given one after another, in page order.`);
    return parts.join("\n\n");
  }
}

/** Why a run stopped for time, with the figures a user can act on. */
function timeReason(call: LlmCall, started: number, answered: number, now: number): string {
  const limit = call.limitMs !== undefined ? `${call.limitMs} ms` : "time";
  const per = Math.round((now - started) / Math.max(1, answered));
  return `The LLM had too little of this operation's ${limit} for every part of the page (about ${per} ms a part; the scrape's timeout, or CRAWLBOX_LLM_TIMEOUT_MS)`;
}
