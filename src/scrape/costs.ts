/**
 * @module scrape/costs
 * What one scrape costs before anything is fetched, and what it may add once the page is known (docs/credits.md).
 * The service holds the up-front credits of a key with a quota while the scrape runs (auth/credits.ts `hold`), so
 * that concurrent scrapes cannot all pass the quota check on the same last credit.
 */
import { ONLY_CLEAN_CONTENT_EXTRA_CREDITS } from "../clean-content/cleaner.ts";
import { REDACT_PII_EXTRA_CREDITS } from "../redact/redactor.ts";
import { formatExtraCredits, type FormatRenderer } from "./renderer.ts";
import type { ScrapeSpec } from "./spec.ts";

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
