/**
 * @module redact/redactor
 * `redactPII` (upstream's PII redaction): the document's markdown with personally identifiable information replaced
 * before it leaves the server (and before it is stored for `GET /v2/scrape/{id}`). Modes, as upstream:
 * - `accurate` (default): the model finds the PII (redact/model.ts); needs an LLM provider;
 * - `aggressive`: the model and the patterns (redact/detectors.ts) together;
 * - `fast`: the patterns only, no model call: e-mails, phones, payment cards, IBANs, social security numbers and
 *   credentials; names and places are not found.
 * Either finds PII written with percent-escapes too (`mailto:jane%40example.com`: redact/percent-escapes.ts).
 * Only `markdown` is redacted, as upstream. Costs {@link REDACT_PII_EXTRA_CREDITS} more credits per page.
 */
import type { LlmCall, OperationSpent } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { LlmBudgetExceededError } from "../llm/errors.ts";
import { llmCallForRun, type LlmLimits, type LlmRun } from "../llm/render-call.ts";
import { applySpans, plainView, type ReplaceStyle, spansOfQuotes, toMarkdownSpans } from "./apply.ts";
import { findPatternSpans, PII_ENTITIES, type PiiEntity, type PiiSpan } from "./detectors.ts";
import { findModelQuotes } from "./model.ts";
import { findThroughEscapes } from "./percent-escapes.ts";

/** Extra credits per page (per parsed PDF page) of a redacted document (upstream: 1 + 4). */
export const REDACT_PII_EXTRA_CREDITS = 4;

/** Normalised `redactPII` options. */
export interface PiiOptions {
  mode: "accurate" | "aggressive" | "fast";
  entities: PiiEntity[];
  replaceStyle: ReplaceStyle;
}

/** The request's `redactPII` field (validated by the API schema) as options; undefined when off. */
export function piiOptions(field: unknown): PiiOptions | undefined {
  if (field === undefined || field === false || field === null) return undefined;
  const o = (field === true ? {} : field) as { mode?: PiiOptions["mode"]; entities?: PiiEntity[]; replaceStyle?: ReplaceStyle };
  // An empty list is read as "all": a redaction request that redacts nothing would only hide a mistake.
  const entities = o.entities && o.entities.length > 0 ? [...new Set(o.entities)] : [...PII_ENTITIES];
  return { mode: o.mode ?? "accurate", entities, replaceStyle: o.replaceStyle ?? "tag" };
}

/** Whether these options need the model. */
export function usesModel(o: PiiOptions): boolean {
  return o.mode !== "fast";
}

/** What a redaction may spend: the scrape's deadline and abort, and where its tokens are recorded. */
export type RedactionRun = LlmRun;

/**
 * The LLM budget of a format that redacts what it sends its own model (`deterministicJson`'s outline and `askLlm`
 * prompts): the redaction's model calls are then part of the format's work on the page, under its call (deadline,
 * abort, retry) and counted in its `spent` against its `tokenBudget`, as docs/configuration.md promises ("tokens one
 * LLM format may spend per page"). Without a budget a redaction has its own, as the page's markdown has.
 */
export interface RedactionBudget {
  /**
   * The format's call. Without it, the redaction's own (its deadline and `CRAWLBOX_LLM_TOKEN_BUDGET`), made at the
   * first model read and kept here: every redaction given this budget then shares it, as the strings of one JSON
   * value do (redact/json-strings.ts), instead of each string getting a budget of its own.
   */
  call?: LlmCall;
  spent: OperationSpent;
}

/** The call of a redaction drawing on `b`: what is left of its budget, each call's tokens added to its `spent`. */
function callDrawingOn(b: Required<RedactionBudget>): LlmCall {
  return {
    ...b.call,
    tokenBudget: Math.max(0, b.call.tokenBudget - b.spent.tokens),
    onTokens: (tokens) => {
      b.spent.tokens += tokens;
      b.call.onTokens?.(tokens);
    },
  };
}

/**
 * The model's quotes of `text` within what is left of `b`. findModelQuotes counts its spending from 0 against what
 * was left, so its budget error would quote that rest and its own spending ("budget (100) is spent (0 used)" for a
 * format with 7,900 of 8,000 spent): the error names the whole budget and all that was spent of it instead.
 */
async function quotesDrawingOn(llm: LlmClient, text: string, entities: readonly PiiEntity[], b: Required<RedactionBudget>) {
  try {
    return await findModelQuotes(llm, text, entities, callDrawingOn(b));
  } catch (e) {
    if (e instanceof LlmBudgetExceededError) throw new LlmBudgetExceededError(b.call.tokenBudget, b.spent.tokens);
    throw e;
  }
}

/** Redacts markdown. */
export interface Redactor {
  redact(markdown: string, options: PiiOptions, run: RedactionRun, budget?: RedactionBudget): Promise<string>;
}

/** A redactor for the pattern mode only (no LLM configured): what the scrape service uses when given none. */
export const patternRedactor: Redactor = createRedactor(undefined, { llmTimeoutMs: 0, llmTokenBudget: 0 });

/** A redactor using `llm` (when configured) for the modes that need a model. */
export function createRedactor(llm: LlmClient | undefined, limits: LlmLimits, now: () => number = Date.now): Redactor {
  return {
    async redact(markdown, options, run, budget) {
      // Found in the text without markdown's escapes, and in it with percent-escapes decoded (link targets:
      // `mailto:jane%40example.com`, redact/percent-escapes.ts), replaced in the markdown.
      const view = plainView(markdown);
      let spans: PiiSpan[] = [];
      // concat, not push(...): a page of megabytes may give more spans than a call takes arguments.
      const alsoEscaped = (find: (text: string) => PiiSpan[]) => (spans = spans.concat(find(view.plain), findThroughEscapes(view.plain, find)));
      if (options.mode !== "accurate") {
        const entities = new Set(options.entities);
        alsoEscaped((text) => findPatternSpans(text, entities));
      }
      if (usesModel(options)) {
        if (!llm) throw new TypeError("redactPII needs the model in this mode: the capability check should have refused the request");
        const quotes = budget
          ? await quotesDrawingOn(llm, markdown, options.entities, { call: (budget.call ??= llmCallForRun(run, limits, now)), spent: budget.spent })
          : await findModelQuotes(llm, markdown, options.entities, llmCallForRun(run, limits, now));
        alsoEscaped((text) => spansOfQuotes(text, quotes));
      }
      return applySpans(markdown, toMarkdownSpans(view, spans), options.replaceStyle);
    },
  };
}
