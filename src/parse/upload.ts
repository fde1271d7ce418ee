/**
 * @module parse/upload
 * `POST /v2/parse` ([LATEST] upstream; the SDKs' `parse(file, options)`): a file sent as multipart/form-data
 * (`file`, and `options` as a JSON string) goes through the same pipeline as a fetched page: document parsers
 * (PDF with OCR, DOCX, XLSX, ODT, RTF, images), or the HTML pipeline for markup, then the requested formats. This module
 * turns the upload into a {@link Page} and its options into a validated scrape request, refusing what has no
 * meaning for a file (browser options, cache options), as the SDK does before sending.
 */
import { parseScrapeBody, type ScrapeRequest } from "../api/scrape.ts";
import { BadRequestError } from "../errors.ts";
import { attachText, mimeTypeOf } from "../engines/charset.ts";
import type { Page } from "../engines/types.ts";

/** Formats that need a live page or a browser: refused for an uploaded file. */
const REFUSED_FORMATS = new Set(["screenshot", "changeTracking", "branding", "audio", "video"]);
/** Options that only make sense for a fetch: refused, with the SDK's own wording. */
const REFUSED_OPTIONS: Record<string, string> = {
  waitFor: "parse does not support waitFor",
  actions: "parse does not support actions",
  location: "parse does not support location overrides",
  mobile: "parse does not support mobile rendering",
  maxAge: "parse does not support cache/index options",
  minAge: "parse does not support cache/index options",
  storeInCache: "parse does not support cache/index options",
  lockdown: "parse does not support cache/index options",
};

/** Types by file extension, for uploads sent as `application/octet-stream` or without a type. */
const BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  html: "text/html",
  htm: "text/html",
  xhtml: "application/xhtml+xml",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  xml: "application/xml",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xls: "application/vnd.ms-excel",
  doc: "application/msword",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  rtf: "application/rtf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  tif: "image/tiff",
  tiff: "image/tiff",
  bmp: "image/bmp",
};

/** The pseudo-URL an upload is known by in its document (`metadata.url`, `sourceURL`). */
export function uploadUrl(filename: string): string {
  return `file:///${encodeURIComponent(filename)}`;
}

/** The validated scrape request of `options` (the multipart `options` field, already JSON-parsed) for `filename`. */
export function parseUploadOptions(options: unknown, filename: string): ScrapeRequest {
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) {
    throw new BadRequestError("The options field must be a JSON object.");
  }
  const o = (options ?? {}) as Record<string, unknown>;
  const refuse = (message: string) => new BadRequestError(message, undefined, "PARSE_UNSUPPORTED_OPTIONS");
  for (const [key, message] of Object.entries(REFUSED_OPTIONS)) if (o[key] !== undefined) throw refuse(message);
  if (o.proxy !== undefined && o.proxy !== "basic" && o.proxy !== "auto") throw refuse("parse only supports proxy values of 'basic' or 'auto'");
  const formats = Array.isArray(o.formats) ? o.formats : [];
  for (const f of formats) {
    const type = typeof f === "string" ? f : (f as { type?: unknown })?.type;
    if (typeof type === "string" && REFUSED_FORMATS.has(type)) throw refuse(`parse does not support ${type} format`);
  }
  // The same validator as POST /v2/scrape (unknown keys, bounds, formats), with a placeholder URL; the document
  // is then known by the file's name.
  const req = parseScrapeBody({ ...o, url: "https://upload.invalid/" });
  const url = uploadUrl(filename);
  // A file is never cached: there is no URL to find it again by.
  return { ...req, url, sourceURL: url, scrapeOptions: { ...req.scrapeOptions, maxAge: 0, storeInCache: false } };
}

/**
 * The uploaded file as a fetched page: its type from the part's `Content-Type` as sent, else its extension (also
 * over a generic `text/plain`: the JS SDK sends a string's contents as `text/plain` whatever the file name, so
 * `page.html` sent as a string would otherwise come back as its own source);
 * text decoded with the part's charset, a BOM or `<meta charset>` (engines/charset.ts), as for a fetched page. A
 * file of no known type (none, `application/octet-stream`, an unknown extension) whose first KiB has no NUL byte
 * is read as markup, as a response without a type is; documents are recognised by their magic bytes.
 */
export function pageFromUpload(bytes: Uint8Array, filename: string, declaredType: string): Page {
  let contentType = mimeTypeOf(declaredType);
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? "";
  if (contentType === "" || contentType === "application/octet-stream") {
    // Unknown: documents are still recognised by their magic bytes (documents/detect.ts), text is read as markup.
    contentType = BY_EXTENSION[ext] ?? "";
  } else if (contentType === "text/plain" && BY_EXTENSION[ext]) {
    contentType = BY_EXTENSION[ext];
  }
  const url = uploadUrl(filename);
  const page: Page = {
    requestedUrl: url,
    finalUrl: url,
    statusCode: 200,
    // What it was read as (`metadata.contentType`): the SDK sends a file without a type as application/octet-stream,
    // and a string as text/plain, whatever its name says it is.
    headers: { "content-type": contentType && contentType !== mimeTypeOf(declaredType) ? contentType : declaredType || contentType },
    contentType,
    body: bytes,
    engine: "upload",
    elapsedMs: 0,
  };
  attachText(page, declaredType);
  return page;
}
