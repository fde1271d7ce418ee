/**
 * @module documents/isolate/protocol
 * Messages between the document workers (documents/isolate/pool.ts) and a document worker
 * (documents/isolate/document-worker.ts), and how a typed error crosses the thread boundary. A worker answers its
 * requests in order; a PDF stays open in the worker between calls of one lease.
 */
import { CrawlboxError, type SerializedError } from "../../errors.ts";
import type { ConvertedDocument } from "../types.ts";
import type { PageText } from "../layout/model.ts";
import type { OfficeKind } from "../office/readers.ts";

/** How the PDF parser treats pages (api-v2.md §2.2 `parsers[].mode`). */
export type PdfMode = "fast" | "auto" | "ocr";

/** Main → worker. */
export type DocumentRequest =
  | { id: number; op: "office"; kind: OfficeKind; body: Uint8Array }
  | { id: number; op: "pdfOpen"; body: Uint8Array }
  /** Pages `from` to `from + count - 1` (0-based) of the open PDF. */
  | { id: number; op: "pdfPages"; from: number; count: number; mode: PdfMode; dpi: number }
  | { id: number; op: "pdfFinish" }
  /** The pixel size an image's header declares (mupdf reads every kind crawlbox OCRs but WebP). */
  | { id: number; op: "imageSize"; body: Uint8Array }
  /** An image (GIF, BMP) re-encoded as PNG, for tesseract. */
  | { id: number; op: "imagePng"; body: Uint8Array }
  /** Forget the lease's state (its open PDF); sent on release, unanswered. */
  | { id: number; op: "reset" };

/** What the worker found on one PDF page. */
export type PdfPageResult =
  /** The text layer is the page's content. */
  | { kind: "text"; page: PageText }
  /** The page needs OCR: its rendering (grayscale PNG) and the factor from its pixels back to points. */
  | { kind: "ocr"; png: Uint8Array; pointsPerPixel: number; width: number; height: number }
  /** mupdf could not read the page; the others may still be fine. */
  | { kind: "failed"; message: string };

/** The document-level facts read once every page is done. */
export interface PdfSummary {
  title?: string;
  author?: string;
  /** mupdf had to repair the file (truncated download, broken xref). */
  repaired: boolean;
}

/** The answer of each request kind. */
export interface DocumentResults {
  office: ConvertedDocument;
  pdfOpen: { total: number };
  pdfPages: PdfPageResult[];
  pdfFinish: PdfSummary;
  imageSize: { width: number; height: number };
  imagePng: Uint8Array;
  reset: null;
}

/** An error as it crosses the boundary: typed ones carry their stored form (code, status, details, retryable). */
export interface WireError {
  name: string;
  message: string;
  typed?: SerializedError;
}

/** The id of the message a worker sends once its script has loaded (before any request). */
export const READY_ID = -1;

/** Worker → main. */
export type DocumentResponse =
  | { id: number; ok: true; result: unknown }
  /** The result as JSON (a page's text layer: cheaper than a structured clone of its many small objects). */
  | { id: number; ok: true; json: string }
  | { id: number; ok: false; error: WireError };

/** `err` in a form `postMessage` can clone. */
export function toWireError(err: unknown): WireError {
  if (err instanceof CrawlboxError) return { name: err.name, message: err.message, typed: err.toJSON() };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: "Error", message: String(err) };
}

/** The error a worker reported, as a {@link CrawlboxError} (same code, status, message and details) when it was one. */
export function fromWireError(wire: WireError): Error {
  const err = wire.typed ? CrawlboxError.fromJSON(wire.typed) : new Error(wire.message);
  err.name = wire.name;
  return err;
}
