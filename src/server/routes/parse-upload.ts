/**
 * @module server/routes/parse-upload
 * `PUT /v2/parse/upload/{uploadId}`: the file of a reserved upload (parse/upload-refs.ts), sent by whoever holds
 * the file. No API key: the URL is the credential (256 random bits, one file, an hour), as the presigned URL
 * upstream hands out is; the MCP server's upload command carries no key. The body is the file as is, read within the
 * default scrape timeout and the reservation's size (`maxSizeBytes`, at most `CRAWLBOX_MAX_UPLOAD_BYTES`); at most
 * twice `CRAWLBOX_MAX_CONCURRENCY` are read at once (429 beyond).
 */
import { Elysia } from "elysia";
import { BadRequestError, TooManyRequestsError } from "../../errors.ts";
import { UPLOAD_ROUTE_PREFIX } from "../../parse/upload-refs.ts";
import { readBodyBytes } from "../body-parser.ts";
import type { Services } from "../services.ts";

/** The unauthenticated upload route of the parse upload flow. */
export function parseUploadRoutes(services: Services) {
  const { config, uploadRefs } = services;
  const maxReads = config.maxConcurrency * 2;
  let reading = 0;
  return new Elysia({ name: "crawlbox-parse-upload" }).put(
    `${UPLOAD_ROUTE_PREFIX}:uploadId`,
    async ({ params, request }) => {
      if (reading >= maxReads) throw new TooManyRequestsError("TOO_MANY_UPLOADS", `${maxReads} uploads are in progress; retry shortly.`);
      const pending = uploadRefs.claim(params.uploadId);
      reading++;
      try {
        const bytes = await readBodyBytes(request, pending.maxBytes, config.defaultTimeoutMs);
        if (bytes.byteLength === 0) throw new BadRequestError("The upload is empty: send the file as the PUT's body.");
        await uploadRefs.receive(pending, bytes, request.headers.get("content-type") ?? "");
        return { success: true, data: { uploadRef: pending.ref, sizeBytes: bytes.byteLength } };
      } catch (err) {
        uploadRefs.release(pending);
        throw err;
      } finally {
        reading--;
      }
    },
    {
      detail: {
        tags: ["parse"],
        summary: "Upload the file of a reserved parse upload (the URL from POST /v2/parse/upload-url is the credential)",
        security: [],
        requestBody: { required: true, content: { "*/*": { schema: { type: "string", format: "binary" } } } },
      },
    },
  );
}
