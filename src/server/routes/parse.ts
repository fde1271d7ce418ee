/**
 * @module server/routes/parse
 * `POST /v2/parse` ([LATEST] upstream; docs/parse.md): a file uploaded as multipart/form-data (`file`, plus
 * `options` as a JSON string of scrape options) is parsed like a fetched page and answered as a scrape is:
 * `{success:true, data: Document}`.
 *
 * The body is read here, not by the app's body parser: only after authentication, within the default scrape
 * timeout (408 for a client that sends too slowly), and before the request takes one of the server's scrape slots
 * (a slow sender must not hold a slot). At most twice `CRAWLBOX_MAX_CONCURRENCY` uploads are in progress at once
 * (429 beyond), which bounds the memory they hold while they wait. Limits: the whole upload
 * `CRAWLBOX_MAX_UPLOAD_BYTES`, the `options` part `CRAWLBOX_MAX_REQUEST_BODY_BYTES`, a markup or text file
 * `CRAWLBOX_MAX_PAGE_BYTES` (as a fetched page): 413 beyond each.
 */
import { Elysia } from "elysia";
import { BadRequestError, PayloadTooLargeError, TooManyRequestsError } from "../../errors.ts";
import { readMultipart } from "../../parse/multipart.ts";
import { pageFromUpload, parseUploadOptions } from "../../parse/upload.ts";
import { specFromOptions } from "../../scrape/from-options.ts";
import { queueWaitMs } from "../../scrape/limiter.ts";
import { authPlugin } from "../auth.ts";
import { DeferredUpload } from "../body-parser.ts";
import { fileSinkFor, publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";
import type { KeyIdentity } from "../../auth/keys.ts";

/** The parse route. */
export function parseRoutes(services: Services) {
  const { config, scrape, limiter, ledger } = services;
  const maxUploads = config.maxConcurrency * 2;
  let uploads = 0;
  return new Elysia({ name: "crawlbox-parse" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/parse",
      async ({ body, who, request }) => {
        if (!(body instanceof DeferredUpload)) {
          throw new BadRequestError("POST /v2/parse takes a multipart/form-data upload: a `file` part and an optional `options` part (JSON); upload references (`uploadRef`) are not supported.");
        }
        ledger.assertCanSpend(who, 1);
        if (uploads >= maxUploads) throw new TooManyRequestsError("TOO_MANY_UPLOADS", `${maxUploads} uploads are in progress; retry shortly.`);
        uploads++;
        try {
          return await handleUpload(request, who);
        } finally {
          uploads--;
        }
      },
      {
        detail: {
          tags: ["parse"],
          summary: "Parse an uploaded file (PDF, DOCX, ODT, RTF, image, HTML, text) into the scrape formats",
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file"],
                  properties: {
                    file: { type: "string", format: "binary", description: "The file; its part's Content-Type (or its extension) gives its type." },
                    options: { type: "string", description: "JSON object of scrape options (formats, onlyMainContent, parsers, timeout, …); see docs/parse.md." },
                  },
                },
              },
            },
          },
        },
      },
    );

  /** Reads and checks the upload, then parses it in a scrape slot. */
  async function handleUpload(request: Request, who: KeyIdentity) {
    const parts = await readMultipart(request, config.maxUploadBytes, config.defaultTimeoutMs);
    const file = parts.find((p) => p.name === "file");
    if (!file || file.data.byteLength === 0) throw new BadRequestError("The upload has no `file` part, or it is empty.");
    const optionsPart = parts.find((p) => p.name === "options");
    let options: unknown;
    if (optionsPart && optionsPart.data.byteLength > 0) {
      if (optionsPart.data.byteLength > config.maxRequestBodyBytes) throw new PayloadTooLargeError(config.maxRequestBodyBytes);
      try {
        options = JSON.parse(new TextDecoder().decode(optionsPart.data));
      } catch {
        throw new BadRequestError("The `options` part is not valid JSON.");
      }
    }
    const filename = (file.filename ?? "").trim() || "upload";
    const req = parseUploadOptions(options, filename);
    const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, config);
    scrape.validate(spec);
    const page = pageFromUpload(file.data, filename, file.contentType);
    if (page.text !== undefined && file.data.byteLength > config.maxPageBytes) throw new PayloadTooLargeError(config.maxPageBytes);
    const files = fileSinkFor(services, who.keyId, publicBaseUrl(config.publicUrl, request));
    const doc = await limiter.run(
      queueWaitMs(spec.timeoutMs),
      (queuedMs) => scrape.scrape(spec, who, { signal: request.signal, files, page, queue: { queuedMs } }),
      who.keyId,
    );
    services.scrapeStats.record(who.keyId, Date.now());
    return { success: true, data: doc };
  }
}
