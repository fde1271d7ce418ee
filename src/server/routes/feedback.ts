/**
 * @module server/routes/feedback
 * `POST /v2/feedback` and `POST /v2/search/{id}/feedback` (the SDK's `feedback` and `searchFeedback`): feedback on a
 * job's results, kept for the operator (src/feedback/store.ts), and `GET /v2/feedback` (crawlbox's own) to read a
 * key's feedback back. Answers are the SDK's `FeedbackResponse`; `creditsRefunded` is 0: crawlbox's credits are a
 * usage count, not a bill, and feedback does not change them.
 */
import { Elysia } from "elysia";
import { FeedbackSchema, parseFeedbackBody, parseSearchFeedbackBody, SearchFeedbackSchema, type FeedbackBody } from "../../api/feedback.ts";
import { BadRequestError } from "../../errors.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Feedback listed per page of `GET /v2/feedback`. */
export const FEEDBACK_PAGE = 100;

/** The feedback routes. */
export function feedbackRoutes(services: Services) {
  const { config, feedback } = services;
  const keep = (keyId: string, f: FeedbackBody) => {
    const { feedbackId, alreadySubmitted } = feedback.add(keyId, f.endpoint, f.jobId, f.rating, f.body);
    return { success: true, feedbackId, creditsRefunded: 0, ...(alreadySubmitted ? { alreadySubmitted: true } : {}) };
  };
  return new Elysia({ name: "crawlbox-feedback" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post("/v2/feedback", ({ body, who }) => keep(who.keyId, parseFeedbackBody(body)), {
      detail: { tags: ["feedback"], summary: "Rate a job's results", requestBody: { required: true, content: { "application/json": { schema: FeedbackSchema as object } } } },
    })
    .post("/v2/search/:id/feedback", ({ params, body, who }) => keep(who.keyId, parseSearchFeedbackBody(body, params.id)), {
      detail: { tags: ["feedback"], summary: "Rate a search's results", requestBody: { required: true, content: { "application/json": { schema: SearchFeedbackSchema as object } } } },
    })
    .get(
      "/v2/feedback",
      ({ query, who, request }) => {
        // The cursor is the last feedback of the previous page: its time and id (`next` carries both).
        const cursor = typeof query.after === "string" ? /^(\d{1,16})\.([0-9a-f-]{36})$/.exec(query.after) : undefined;
        if (query.after !== undefined && !cursor) throw new BadRequestError("after is the cursor of a previous page's `next`.", [{ code: "custom", path: ["after"], message: "Invalid cursor" }]);
        const items = feedback.list(who.keyId, FEEDBACK_PAGE, cursor ? { createdAtMs: Number(cursor[1]), id: cursor[2]! } : undefined);
        const last = items.at(-1);
        const next = items.length === FEEDBACK_PAGE && last ? `${publicBaseUrl(config.publicUrl, request)}/v2/feedback?after=${Date.parse(last.createdAt)}.${last.feedbackId}` : undefined;
        return { success: true, feedback: items, ...(next ? { next } : {}) };
      },
      { detail: { tags: ["feedback"], summary: "List the key's feedback, newest first" } },
    );
}
