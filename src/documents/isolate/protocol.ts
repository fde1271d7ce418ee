/**
 * @module documents/isolate/protocol
 * Messages between the document workers (documents/isolate/pool.ts) and a document worker
 * (documents/isolate/document-worker.ts), and how an error crosses the thread boundary: a typed one as it is, any
 * other as the typed error of the document its request was reading ({@link fromWireError}). A worker answers its
 * requests in order; a PDF stays open in the worker between calls of one lease, with the text of its pages.
 */
import { CrawlboxError, type SerializedError } from "../../errors.ts";
import { DocumentCorruptError, OcrFailedError, PdfCorruptError } from "../errors.ts";
import type { ConvertedDocument } from "../types.ts";
import type { PageText } from "../layout/model.ts";
import type { OfficeKind } from "../office/readers.ts";

/** How the PDF parser treats pages (api-v2.md §2.2 `parsers[].mode`). */
export type PdfMode = "fast" | "auto" | "ocr";

/** How the open PDF's pages are joined into its markdown (the `pdf` parser's `pageMarkers` and `pages`). */
export interface PdfConvertOptions {
  pageMarkers?: boolean;
  pages?: boolean;
}

/** Main → worker. */
export type DocumentRequest =
  | { id: number; op: "office"; kind: OfficeKind; body: Uint8Array }
  | { id: number; op: "pdfOpen"; body: Uint8Array }
  /** Pages `from` to `from + count - 1` (0-based) of the open PDF; their text layers stay in the worker. */
  | { id: number; op: "pdfPages"; from: number; count: number; mode: PdfMode; dpi: number }
  /**
   * The open PDF's first `count` pages laid out and rendered, with `ocrPages` (recognised on the main thread) in
   * their places; closes the PDF. Cut to the text limits (documents/pdf/text-budget.ts).
   */
  | { id: number; op: "pdfConvert"; count: number; ocrPages: PageText[]; options: PdfConvertOptions }
  /** The pixel size an image's header declares (mupdf reads every kind crawlbox OCRs but WebP). */
  | { id: number; op: "imageSize"; body: Uint8Array }
  /** An image (GIF, BMP) re-encoded as PNG, for tesseract. */
  | { id: number; op: "imagePng"; body: Uint8Array }
  /** Forget the lease's state (its open PDF); sent on release, unanswered. */
  | { id: number; op: "reset" };

/** A PDF page that needs OCR: its rendering (grayscale PNG) and the factor from its pixels back to points. */
export interface PdfOcrPage {
  kind: "ocr";
  png: Uint8Array;
  pointsPerPixel: number;
  width: number;
  height: number;
}

/** What the worker found on one PDF page. */
export type PdfPageResult =
  /** The text layer is the page's content; the worker keeps it for `pdfConvert`. */
  | { kind: "text" }
  | PdfOcrPage
  /** mupdf could not read the page; the others may still be fine. */
  | { kind: "failed"; message: string }
  /** Not read: the pages before it already hold more text than a document shows (documents/pdf/text-budget.ts). */
  | { kind: "skipped" };

/** The answer of each request kind. */
export interface DocumentResults {
  office: ConvertedDocument;
  pdfOpen: { total: number };
  pdfPages: PdfPageResult[];
  pdfConvert: ConvertedDocument;
  imageSize: { width: number; height: number };
  imagePng: Uint8Array;
  reset: null;
}

/** An error as it crosses the boundary: typed ones carry their stored form (code, status, details, retryable). */
export interface WireError {
  name: string;
  message: string;
  typed?: SerializedError;
  /** The worker's own fault, not the document's (a request out of order): stays an untyped error, a 500. */
  internal?: boolean;
}

/** The id of the message a worker sends once its script has loaded (before any request). */
export const READY_ID = -1;

/** Worker → main. */
export type DocumentResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError };

/** `err` in a form `postMessage` can clone. */
export function toWireError(err: unknown, internal = false): WireError {
  const wire: WireError =
    err instanceof CrawlboxError ? { name: err.name, message: err.message, typed: err.toJSON() } : err instanceof Error ? { name: err.name, message: err.message } : { name: "Error", message: String(err) };
  if (internal) wire.internal = true;
  return wire;
}

/** What {@link fromWireError} needs of the request that failed. */
export type FailedRequest = { op: "office"; kind: OfficeKind } | { op: Exclude<DocumentRequest["op"], "office"> };

/**
 * The error a worker reported for `request`: a {@link CrawlboxError} (same code, status, message and details) when it
 * was one. Any other error thrown while reading a document is the document's doing, and becomes the 422 of its kind:
 * a RangeError ("Maximum call stack size exceeded" on structures nested too deep, "Out of memory" on a string too
 * long) that no reader typed was an unexpected 500 before. Only the worker's own faults ({@link WireError.internal})
 * stay untyped.
 */
export function fromWireError(wire: WireError, request: FailedRequest): Error {
  const err = wire.typed ? CrawlboxError.fromJSON(wire.typed) : wire.internal ? new Error(wire.message) : untypedFailure(request, `${wire.name}: ${wire.message}`);
  if (wire.typed || wire.internal) err.name = wire.name;
  return err;
}

/** The typed error of an untyped failure of `request`. */
function untypedFailure(request: FailedRequest, reason: string): Error {
  switch (request.op) {
    case "office":
      return new DocumentCorruptError(request.kind.toUpperCase(), reason);
    case "pdfOpen":
    case "pdfPages":
    case "pdfConvert":
      return new PdfCorruptError(reason);
    case "imageSize":
    case "imagePng":
      return new OcrFailedError(`the image could not be decoded (${reason})`);
    case "reset":
      return new Error(reason);
  }
}
