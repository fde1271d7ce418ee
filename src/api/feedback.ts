/**
 * @module api/feedback
 * Feedback bodies (the SDK's `feedback()` and `searchFeedback()`): a rating of a job's results, with the sources that
 * were worth it, what was missing, suggestions and notes. Every field is bounded; `metadata` is at most 8 KB of
 * JSON, as the SDK documents.
 */
import { t } from "elysia";
import { BadRequestError } from "../errors.ts";
import { Int, oneOf, OriginProps, strictObject } from "./common.ts";
import { validateBody } from "./validate.ts";

/** Characters of a job id feedback names. */
export const MAX_JOB_ID_CHARS = 200;
/** Bytes of `metadata` (as JSON). */
export const MAX_FEEDBACK_METADATA_BYTES = 8 * 1024;

const Text = (maxLength: number) => t.String({ maxLength });
const List = <T extends Parameters<typeof t.Array>[0]>(item: T) => t.Array(item, { maxItems: 50 });

const SearchFeedbackProps = {
  rating: oneOf(["good", "partial", "bad"]),
  valuableSources: t.Optional(List(strictObject({ url: Text(2_000), reason: t.Optional(Text(2_000)) }))),
  missingContent: t.Optional(List(strictObject({ topic: Text(500), description: t.Optional(Text(2_000)) }))),
  querySuggestions: t.Optional(Text(2_000)),
  ...OriginProps,
};

export const SearchFeedbackSchema = strictObject(SearchFeedbackProps, { description: "POST /v2/search/{id}/feedback body" });

export const FeedbackSchema = strictObject(
  {
    ...SearchFeedbackProps,
    endpoint: oneOf(["search", "scrape", "parse", "map"]),
    jobId: t.String({ minLength: 1, maxLength: MAX_JOB_ID_CHARS }),
    issues: t.Optional(List(Text(200))),
    tags: t.Optional(List(Text(100))),
    note: t.Optional(Text(5_000)),
    url: t.Optional(Text(2_000)),
    pageNumbers: t.Optional(t.Array(Int({ minimum: 1 }), { maxItems: 1_000 })),
    metadata: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { description: "POST /v2/feedback body" },
);

/** A validated feedback body: what it rates, and the body to keep. */
export interface FeedbackBody {
  endpoint: string;
  jobId: string;
  rating: string;
  body: Record<string, unknown>;
}

/** Validates a `POST /v2/feedback` body. */
export function parseFeedbackBody(raw: unknown): FeedbackBody {
  const v = validateBody(FeedbackSchema, raw);
  if (v.metadata !== undefined && Buffer.byteLength(JSON.stringify(v.metadata)) > MAX_FEEDBACK_METADATA_BYTES) {
    throw new BadRequestError(`metadata is larger than ${MAX_FEEDBACK_METADATA_BYTES} bytes of JSON.`, [{ code: "too_big", path: ["metadata"], message: `at most ${MAX_FEEDBACK_METADATA_BYTES} bytes` }]);
  }
  return { endpoint: v.endpoint, jobId: v.jobId, rating: v.rating, body: v as Record<string, unknown> };
}

/** Validates a `POST /v2/search/{id}/feedback` body for search job `jobId` (bounded as `jobId` in a body is). */
export function parseSearchFeedbackBody(raw: unknown, jobId: string): FeedbackBody {
  if (jobId.length > MAX_JOB_ID_CHARS) throw new BadRequestError(`The job id is longer than ${MAX_JOB_ID_CHARS} characters.`, [{ code: "too_big", path: ["id"], message: `at most ${MAX_JOB_ID_CHARS} characters` }]);
  const v = validateBody(SearchFeedbackSchema, raw);
  return { endpoint: "search", jobId, rating: v.rating, body: { ...v, endpoint: "search", jobId } };
}
