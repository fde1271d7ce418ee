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
 * LLM format may spend per page"). Without it a redaction has its own budget, as the page's markdown has.
 */
export interface RedactionBudget {
  call: LlmCall;
  spent: OperationSpent;
}

/** Redacts markdown. */
export interface Redactor {
  redact(markdown: string, options: PiiOptions, run: RedactionRun, budget?: RedactionBudget): Promise<string>;
}

/** The call of a redaction drawing on `b`: what the format has left, each call's tokens added to its `spent`. */
function callDrawingOn(b: RedactionBudget): LlmCall {
  return {
    ...b.call,
    tokenBudget: Math.max(0, b.call.tokenBudget - b.spent.tokens),
    onTokens: (tokens) => {
      b.spent.tokens += tokens;
      b.call.onTokens?.(tokens);
    },
  };
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
        const quotes = await findModelQuotes(llm, markdown, options.entities, budget ? callDrawingOn(budget) : llmCallForRun(run, limits, now));
        alsoEscaped((text) => spansOfQuotes(text, quotes));
      }
      return applySpans(markdown, toMarkdownSpans(view, spans), options.replaceStyle);
    },
  };
}
