/**
 * @module scrape/costs
 * What one scrape costs before anything is fetched, and what it may add once the page is known (docs/credits.md).
 * The service holds the up-front credits of a key with a quota while the scrape runs (auth/credits.ts `hold`), so
 * that concurrent scrapes cannot all pass the quota check on the same last credit.
 */
import { ONLY_CLEAN_CONTENT_EXTRA_CREDITS } from "../clean-content/cleaner.ts";
import { REDACT_PII_EXTRA_CREDITS } from "../redact/redactor.ts";
import { formatExtraCredits, type FormatRenderer, type RenderContext } from "./renderer.ts";
import type { FormatRequest, ScrapeSpec } from "./spec.ts";

/** Credits added to a `lockdown` scrape (upstream's price: 5 in all). */
export const LOCKDOWN_EXTRA_CREDITS = 4;

/** Credits added to a page served in the enhanced mode (`metadata.proxyUsed: "stealth"`): 5 in all, as upstream. */
export const ENHANCED_PROXY_EXTRA_CREDITS = 4;

/**
 * The enhanced mode's extra for `spec`'s page: charged when the page was served in that mode, unless the request
 * asked for the basic mode. A basic request may be served a cached copy another request fetched in the enhanced
 * mode; its caller (perhaps another key) chose not to pay for that mode and is not billed for it.
 */
export function enhancedCredits(spec: Pick<ScrapeSpec, "proxy">, proxyUsed: "basic" | "stealth" | undefined): number {
  return proxyUsed === "stealth" && spec.proxy !== "basic" ? ENHANCED_PROXY_EXTRA_CREDITS : 0;
}

/** A scrape's prices known from its request alone. */
export interface UpFrontCosts {
  /** Per page of the result (a parsed PDF has several): 1, plus redaction's extra, charged per page as upstream. */
  perPage: number;
  /** The formats' extras and lockdown's, once per scrape. */
  extraCredits: number;
  /** The cleaning pass (`onlyCleanContent`): charged only when it runs, but the quota must allow it beforehand. */
  cleaningReserve: number;
  /**
   * The enhanced mode's extra when the request asks for that mode: charged once the page is known to be served in it
   * (a cached basic copy serves an enhanced request at the basic price), but the quota must allow it before the page
   * is fetched, so that a key short of it is refused without a browser rendering the page first.
   */
  enhancedReserve: number;
}

/** The up-front costs of `spec` rendered by `renderers`. */
export function upFrontCosts(spec: ScrapeSpec, renderers: readonly (readonly [FormatRenderer, unknown])[]): UpFrontCosts {
  return {
    perPage: 1 + (spec.redactPII ? REDACT_PII_EXTRA_CREDITS : 0),
    extraCredits: formatExtraCredits(renderers) + (spec.lockdown ? LOCKDOWN_EXTRA_CREDITS : 0),
    cleaningReserve: spec.onlyCleanContent ? ONLY_CLEAN_CONTENT_EXTRA_CREDITS : 0,
    enhancedReserve: spec.proxy === "enhanced" || spec.proxy === "stealth" ? ENHANCED_PROXY_EXTRA_CREDITS : 0,
  };
}

/** The least a scrape costs: what the quota must cover before it starts. */
export function leastCredits(costs: UpFrontCosts): number {
  return costs.perPage + costs.extraCredits + costs.cleaningReserve + costs.enhancedReserve;
}

/**
 * Formats of a scrape that did not call their model (their page had no text: llm/visible-text.ts), per render
 * context: their extra credits are not charged. A weak map, so a context's record goes with it.
 */
const skippedModelCalls = new WeakMap<RenderContext, Set<FormatRequest>>();

/**
 * Records that `format` skipped its model call on `ctx`'s page, so that {@link waivedExtraCredits} takes its extra
 * credits (question's and highlights' +4) off the page's price: the client gets no model answer for them.
 */
export function waiveExtraCredits(ctx: RenderContext, format: FormatRequest): void {
  let skipped = skippedModelCalls.get(ctx);
  if (!skipped) skippedModelCalls.set(ctx, (skipped = new Set()));
  skipped.add(format);
}

/**
 * The extra credits of `renderers` (charged up front, {@link upFrontCosts}) that the formats which skipped their
 * model call on `ctx` no longer owe: the extras with them less the extras without them, so a credit group (question
 * and query, one +4) is waived only when none of its formats called the model.
 */
export function waivedExtraCredits(renderers: readonly (readonly [FormatRenderer, FormatRequest])[], ctx: RenderContext): number {
  const skipped = skippedModelCalls.get(ctx);
  if (!skipped || skipped.size === 0) return 0;
  return formatExtraCredits(renderers) - formatExtraCredits(renderers.filter(([, format]) => !skipped.has(format)));
}
