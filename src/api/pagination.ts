/**
 * @module api/pagination
 * The `?skip=&limit=` query of crawl and batch status (api-v2.md §3.2, [LATEST] `crawl-status-pagination.ts`).
 */
import { t } from "elysia";
import { BadRequestError } from "../errors.ts";

/** Largest crawl/batch status page (`MAX_CRAWL_STATUS_PAGE_SIZE`). */
export const MAX_STATUS_PAGE_SIZE = 1000;

/**
 * Query of `GET /v2/crawl/:id` and `GET /v2/batch/scrape/:id`. Values stay strings in the schema (query
 * strings are strings; no silent coercion of "1e3" or "-1"); {@link parseStatusPagination} checks them.
 * Other query parameters are tolerated.
 */
export const StatusPaginationQuerySchema = t.Object({
  skip: t.Optional(t.String({ pattern: "^\\d+$", description: "Number of finished jobs to skip" })),
  limit: t.Optional(t.String({ pattern: "^\\d+$", description: `Page size, 1..${MAX_STATUS_PAGE_SIZE}` })),
});

/** Parsed pagination: `skip` defaults to 0; `limit` stays undefined when not given (then `next` omits it). */
export interface StatusPagination {
  skip: number;
  limit?: number;
}

/** Parses `?skip=&limit=`; throws `BadRequestError` "Invalid pagination: …" ([LATEST] behaviour). */
export function parseStatusPagination(query: Record<string, unknown>): StatusPagination {
  const skip = query["skip"];
  const limit = query["limit"];
  const out: StatusPagination = { skip: 0 };
  if (skip !== undefined) {
    if (typeof skip !== "string" || !/^\d+$/.test(skip) || !Number.isSafeInteger(Number(skip))) {
      throw new BadRequestError("Invalid pagination: skip must be a non-negative integer");
    }
    out.skip = Number(skip);
  }
  if (limit !== undefined) {
    const n = typeof limit === "string" && /^\d+$/.test(limit) ? Number(limit) : NaN;
    if (!(n >= 1 && n <= MAX_STATUS_PAGE_SIZE)) {
      throw new BadRequestError(`Invalid pagination: limit must be an integer between 1 and ${MAX_STATUS_PAGE_SIZE}`);
    }
    out.limit = n;
  }
  return out;
}
