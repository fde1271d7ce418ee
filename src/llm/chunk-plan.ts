/**
 * @module llm/chunk-plan
 * How much of a long page an LLM operation takes on, and how partial answers are combined so every request fits.
 *
 * - Budget first: the chunks' cost is estimated before the first call. A page whose chunks would spend more than
 *   the operation's token budget is cut to the leading chunks that fit, and the document says so in its `warning`
 *   (upstream cuts the content to fit the model, too). Before, a very long page made ~22 calls and then failed
 *   `LLM_TOKEN_BUDGET_EXCEEDED` with ~100k tokens spent and nothing to show.
 * - Merges in rounds: partial summaries or answers are combined a context-full at a time, then the combinations
 *   combined, so no merge request outgrows the context window (Ollama silently drops the start of an overlong
 *   prompt: the system rules first).
 */
import { estimateTokens, leadingWithin, weightedLength } from "./chunk.ts";

/**
 * Answer tokens a call is expected to spend, for the estimate only (the reservation per call is the client's
 * answer limit): a chunk's summary, answer or JSON is typically a few hundred tokens.
 */
export const EXPECTED_ANSWER_TOKENS = 300;

/** The plan for a page's chunks. */
export interface ChunkPlan {
  /** The chunks to send: all, or the leading ones that fit the budget. */
  chunks: string[];
  /** Set when chunks were left out: what to tell the caller. */
  warning?: string;
}

/**
 * The leading `chunks` whose estimated cost fits in `budgetTokens`: each chunk costs its tokens, `fixedTokens`
 * (instructions, prompt, schema) and {@link EXPECTED_ANSWER_TOKENS}, plus `perChunkMergeTokens` for combining its
 * answer later. At least the first chunk is kept (when even that is over budget, the client's own check refuses
 * the call with `LLM_TOKEN_BUDGET_EXCEEDED`). `what` names the operation in the warning.
 */
export function fitToBudget(chunks: string[], o: { fixedTokens: number; budgetTokens: number; perChunkMergeTokens?: number; what: string }): ChunkPlan {
  let total = 0;
  let fit = 0;
  for (const c of chunks) {
    const cost = estimateTokens(c) + o.fixedTokens + EXPECTED_ANSWER_TOKENS + (chunks.length > 1 ? (o.perChunkMergeTokens ?? 0) : 0);
    if (fit > 0 && total + cost > o.budgetTokens) break;
    total += cost;
    fit++;
  }
  if (fit === chunks.length) return { chunks };
  const kept = chunks.slice(0, fit);
  const keptChars = kept.reduce((n, c) => n + c.length, 0);
  const allChars = chunks.reduce((n, c) => n + c.length, 0);
  return {
    chunks: kept,
    warning:
      `The page is too long for the LLM token budget of this request (${o.budgetTokens} tokens, CRAWLBOX_LLM_TOKEN_BUDGET): ` +
      `${o.what} was drawn from its first ${fit} of ${chunks.length} parts (${keptChars} of ${allChars} characters).`,
  };
}

/** Separator between parts in a merge request. */
function joinParts(parts: readonly string[]): string {
  return parts.map((p, i) => `Part ${i + 1}: ${p}`).join("\n\n");
}

/** Characters `Part n: ` and the blank line add per part (generous). */
const PART_LABEL_CHARS = 16;

/**
 * Combines `parts` into one with `mergeOne(joined)` calls whose joined text stays within `maxChars`: parts are packed
 * greedily into groups, each group merged, and the results packed again until one is left. A part longer than half
 * of `maxChars` is cut to that, so every group holds at least two parts and each round at least halves the count.
 * Sizes are {@link weightedLength}s, as the chunks': a Chinese summary of N characters costs the tokens of ~4.5 N
 * ASCII ones.
 */
export async function mergeInRounds(parts: string[], maxChars: number, mergeOne: (joined: string) => Promise<string>): Promise<string> {
  const half = Math.max(1, Math.floor(maxChars / 2) - PART_LABEL_CHARS);
  let current = parts;
  while (current.length > 1) {
    const groups: string[][] = [];
    let group: string[] = [];
    let size = 0;
    for (const raw of current) {
      const rawSize = weightedLength(raw);
      const p = rawSize > half ? leadingWithin(raw, half) : raw;
      const pSize = p === raw ? rawSize : weightedLength(p);
      if (group.length > 0 && size + pSize + PART_LABEL_CHARS > maxChars) {
        groups.push(group);
        group = [];
        size = 0;
      }
      group.push(p);
      size += pSize + PART_LABEL_CHARS;
    }
    groups.push(group);
    const next: string[] = [];
    for (const g of groups) next.push(g.length === 1 ? g[0]! : await mergeOne(joinParts(g)));
    current = next;
  }
  return current[0] ?? "";
}
