/**
 * @module server/routes/parse
 * `POST /v2/parse` ([LATEST] upstream; docs/parse.md): a file uploaded as multipart/form-data (`file`, plus
 * `options` as a JSON string of scrape options) is parsed like a fetched page and answered as a scrape is:
 * `{success:true, data: Document}`. Uploads are limited by `CRAWLBOX_MAX_UPLOAD_BYTES` (413 beyond).
 */
import { Elysia } from "elysia";
import { BadRequestError } from "../../errors.ts";
import { pageFromUpload, parseUploadOptions } from "../../parse/upload.ts";
import { specFromOptions } from "../../scrape/from-options.ts";
import { authPlugin } from "../auth.ts";
import { fileSinkFor, publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Share of the request's timeout a parse may wait for a scrape slot, as `POST /v2/scrape`. */
const QUEUE_WAIT_SHARE = 0.667;

/** The parse route. */
export function parseRoutes(services: Services) {
  const { config, scrape, limiter } = services;
  return new Elysia({ name: "crawlbox-parse" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/parse",
      async ({ body, who, request }) => {
        if (!(body instanceof FormData)) {
          throw new BadRequestError("POST /v2/parse takes a multipart/form-data upload: a `file` part and an optional `options` part (JSON); upload references (`uploadRef`) are not supported.");
        }
        const file = body.get("file");
        if (!(file instanceof Blob) || file.size === 0) throw new BadRequestError("The upload has no `file` part, or it is empty.");
        const filename = ((file as File).name || "upload").trim() || "upload";
        const rawOptions = body.get("options");
        let options: unknown;
        if (typeof rawOptions === "string" && rawOptions.trim() !== "") {
          try {
            options = JSON.parse(rawOptions);
          } catch {
            throw new BadRequestError("The `options` part is not valid JSON.");
          }
        }
        const req = parseUploadOptions(options, filename);
        const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, config);
        scrape.validate(spec);
        const page = pageFromUpload(new Uint8Array(await file.arrayBuffer()), filename, file.type);
        const files = fileSinkFor(services, who.keyId, publicBaseUrl(config.publicUrl, request));
        const doc = await limiter.run(Math.round(spec.timeoutMs * QUEUE_WAIT_SHARE), (queuedMs) =>
          scrape.scrape(spec, who, { signal: request.signal, files, page, queue: { queuedMs } }),
        );
        return { success: true, data: doc };
      },
      { detail: { tags: ["parse"], summary: "Parse an uploaded file (PDF, DOCX, ODT, RTF, image, HTML, text) into the scrape formats" } },
    );
}
