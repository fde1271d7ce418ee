/**
 * @module api
 * The /v2 wire models: TypeBox request schemas (for validation and the OpenAPI document), the `parseXxxBody`
 * functions route handlers call (validate → refine → normalise, or throw `BadRequestError`), the normalised
 * types the service layer consumes, and response schemas for the docs. See validate.ts for why handlers
 * should call the parse functions instead of relying on Elysia's built-in body validation.
 */
export * from "./common.ts";
export * from "./url.ts";
export * from "./issues.ts";
export * from "./validate.ts";
export * from "./refine.ts";
export * from "./formats.ts";
export * from "./actions.ts";
export * from "./parsers.ts";
export * from "./webhook.ts";
export * from "./scrape-options.ts";
export * from "./scrape.ts";
export * from "./batch.ts";
export * from "./crawl.ts";
export * from "./pagination.ts";
export * from "./map.ts";
export * from "./search.ts";
export * from "./extract.ts";
export * from "./agent.ts";
export * from "./responses.ts";
