/**
 * @module server/routes/extract
 * `POST /v2/extract` and `GET /v2/extract/{id}` (api-v2.md §2.8, §3.3): an asynchronous LLM extraction over
 * pages (docs/extract.md). The create answer is `{success:true, id, urlTrace:[], invalidURLs?}`; the status is
 * `{success, data ([] until completed), status, error?, expiresAt, tokensUsed, creditsUsed, sources?, warning?}`;
 * an unknown id (or another key's) is a 404 "Extract job not found", as upstream.
 */
import { Elysia } from "elysia";
import { ExtractRequestSchema, parseExtractBody } from "../../api/extract.ts";
import { NotFoundError } from "../../errors.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** The extract routes. */
export function extractRoutes(services: Services) {
  const { config } = services;
  return new Elysia({ name: "crawlbox-extract" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/extract",
      // The answer holds only the job's id, so it is kept for replay like a crawl's.
      ({ body, who, request }) =>
        idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: true, log: services.log }, () =>
          services.extract.start(parseExtractBody(body), who),
        ),
      { detail: { tags: ["extract"], summary: "Extract structured data from pages with the LLM", parameters: [IDEMPOTENCY_PARAMETER], requestBody: { required: true, content: { "application/json": { schema: ExtractRequestSchema as object } } } } },
    )
    .get(
      "/v2/extract/:id",
      ({ params, who }) => {
        const status = services.extract.status(params.id, who.keyId);
        if (!status) throw new NotFoundError("Extract job not found");
        return status;
      },
      { detail: { tags: ["extract"], summary: "An extract job's status and data" } },
    );
}
