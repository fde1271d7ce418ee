/**
 * @module server/routes/parse
 * `POST /v2/parse` ([LATEST] upstream; docs/parse.md): a file uploaded as multipart/form-data (`file`, plus
 * `options` as a JSON string of scrape options), or named by an `uploadRef` in a JSON body (`{uploadRef, …options}`,
 * the upload flow: `POST /v2/parse/upload-url` here, the file PUT to its URL in routes/parse-upload.ts), is parsed
 * like a fetched page and answered as a scrape is: `{success:true, data: Document}`.
 *
 * The body is read here, not by the app's body parser: only after authentication, within the default scrape
 * timeout (408 for a client that sends too slowly), and before the request takes one of the server's scrape slots
 * (a slow sender must not hold a slot). At most twice `CRAWLBOX_MAX_CONCURRENCY` uploads are in progress at once
 * (429 beyond), which bounds the memory they hold while they wait. Limits: the whole upload
 * `CRAWLBOX_MAX_UPLOAD_BYTES`, the `options` part `CRAWLBOX_MAX_REQUEST_BODY_BYTES`, a markup or text file
 * `CRAWLBOX_MAX_PAGE_BYTES` (as a fetched page): 413 beyond each. `POST /v2/parse/upload-url` is refused (402) to a
 * key that cannot spend a credit, and (429) to one holding `MAX_OPEN_UPLOADS_PER_KEY` uploads not parsed yet.
 */
import { Elysia } from "elysia";
import { BadRequestError, PayloadTooLargeError, TooManyRequestsError } from "../../errors.ts";
import { ParseUploadUrlSchema, parseUploadUrlBody } from "../../api/parse-upload.ts";
import { readMultipart } from "../../parse/multipart.ts";
import { UPLOAD_ROUTE_PREFIX } from "../../parse/upload-refs.ts";
import { pageFromUpload, parseUploadOptions } from "../../parse/upload.ts";
import { specFromOptions } from "../../scrape/from-options.ts";
import { queueWaitMs, scrapeWithinTimeout } from "../../scrape/limiter.ts";
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
        ledger.assertCanSpend(who, 1);
        if (!(body instanceof DeferredUpload)) return await parseByRef(body, who, request);
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
              "application/json": {
                schema: {
                  type: "object",
                  required: ["uploadRef"],
                  properties: { uploadRef: { type: "string", description: "From POST /v2/parse/upload-url, once the file was PUT to its uploadUrl" } },
                  additionalProperties: true,
                  description: "uploadRef plus scrape options (formats, onlyMainContent, parsers, timeout, …); see docs/parse.md.",
                },
              },
            },
          },
        },
      },
    )
    .post(
      "/v2/parse/upload-url",
      ({ body, who, request }) => {
        // A reservation is free but holds disk until its file expires: only for a key that could pay for the parse.
        ledger.assertCanSpend(who, 1);
        const req = parseUploadUrlBody(body);
        const maxBytes = Math.min(req.declaredSizeBytes ?? config.maxUploadBytes, config.maxUploadBytes);
        if ((req.declaredSizeBytes ?? 0) > config.maxUploadBytes) throw new PayloadTooLargeError(config.maxUploadBytes);
        const contentType = (req.contentType ?? "").trim();
        const r = services.uploadRefs.reserve(who.keyId, req.filename, contentType, maxBytes);
        return {
          success: true,
          data: {
            uploadUrl: `${publicBaseUrl(config.publicUrl, request).replace(/\/+$/, "")}${UPLOAD_ROUTE_PREFIX}${r.uploadId}`,
            uploadRef: r.uploadRef,
            method: "PUT",
            // What the MCP server's curl command sends; an upload without them is read by its extension.
            headers: { "Content-Type": contentType || "application/octet-stream" },
            expiresAt: new Date(r.expiresAt).toISOString(),
            maxSizeBytes: r.maxBytes,
          },
        };
      },
      {
        detail: {
          tags: ["parse"],
          summary: "Reserve an upload for POST /v2/parse: PUT the file to uploadUrl (no API key), then parse it by uploadRef",
          requestBody: { required: true, content: { "application/json": { schema: ParseUploadUrlSchema as object } } },
        },
      },
    );

  /** `POST /v2/parse {uploadRef, …options}`: the uploaded file of the key's `uploadRef`, parsed in a scrape slot. */
  async function parseByRef(body: unknown, who: KeyIdentity, request: Request) {
    const b = body as Record<string, unknown> | null;
    if (typeof b !== "object" || b === null || Array.isArray(b) || typeof b.uploadRef !== "string" || b.uploadRef === "") {
      throw new BadRequestError(
        "POST /v2/parse takes a multipart/form-data upload (a `file` part and an optional `options` part, JSON), or a JSON body with an `uploadRef` from POST /v2/parse/upload-url and the scrape options.",
      );
    }
    const { uploadRef, ...options } = b;
    const upload = await services.uploadRefs.take(uploadRef as string, who.keyId);
    try {
      const data = await parseFile(upload.bytes, upload.filename, upload.contentType, options, who, request);
      // Paid for: no longer one of the key's MAX_OPEN_UPLOADS_PER_KEY waiting uploads (parse/upload-refs.ts).
      services.uploadRefs.markParsed(upload.ref);
      return { success: true, data };
    } finally {
      // Zero data retention keeps nothing, a failed parse's file included (a retry needs a new upload).
      if (options.zeroDataRetention === true) services.uploadRefs.remove(upload.ref);
    }
  }

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
    return { success: true, data: await parseFile(file.data, filename, file.contentType, options, who, request) };
  }

  /** Parses one file with `options` (a scrape body without `url`) in a scrape slot; the document. */
  async function parseFile(bytes: Uint8Array, filename: string, contentType: string, options: unknown, who: KeyIdentity, request: Request) {
    const req = parseUploadOptions(options, filename);
    const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, config);
    scrape.validate(spec);
    const page = pageFromUpload(bytes, filename, contentType);
    if (page.text !== undefined && bytes.byteLength > config.maxPageBytes) throw new PayloadTooLargeError(config.maxPageBytes);
    const files = fileSinkFor(services, who.keyId, publicBaseUrl(config.publicUrl, request));
    // Within the drain: still running when a stopping server's grace ends, it is answered 503 SERVER_STOPPING.
    const doc = await services.drain.run(request, (signal) =>
      limiter.run(
        queueWaitMs(spec.timeoutMs),
        (queuedMs) => scrapeWithinTimeout(spec, queuedMs, (s) => scrape.scrape(s, who, { signal, files, page, queue: { queuedMs } })),
        who.keyId,
      ),
    );
    services.scrapeStats.record(who.keyId, Date.now());
    return doc;
  }
}
