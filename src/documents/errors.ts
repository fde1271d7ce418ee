/**
 * @module documents/errors
 * Typed errors of document parsing and media extraction (mapped to the /v2 envelope by the one error handler).
 * Codes follow upstream's where upstream has one (`SCRAPE_AUDIO_UNSUPPORTED_URL`, `SCRAPE_UNSUPPORTED_FILE_ERROR`);
 * the PDF ones are ours, because upstream has no self-hosted equivalent.
 */
import { CrawlboxError } from "../errors.ts";

/** 422: an office document protected by a password (its content is encrypted). */
export class DocumentEncryptedError extends CrawlboxError {
  constructor(kind: string) {
    super("SCRAPE_DOCUMENT_ENCRYPTED", 422, `The ${kind} document is password-protected and cannot be read.`, { details: { kind } });
  }
}

/** 422: the PDF is encrypted with a user password; crawlbox does not guess passwords. */
export class PdfEncryptedError extends CrawlboxError {
  constructor() {
    super("SCRAPE_PDF_ENCRYPTED", 422, "The PDF is password-protected and cannot be read.");
  }
}

/** 422: the PDF is damaged beyond repair (truncated, not a PDF, no readable page). */
export class PdfCorruptError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_PDF_CORRUPT", 422, `The PDF is damaged and could not be read: ${reason}`, { details: { reason } });
  }
}

/** 422: an office document (DOCX, ODT, RTF) could not be read. */
export class DocumentCorruptError extends CrawlboxError {
  constructor(kind: string, reason: string) {
    super("SCRAPE_DOCUMENT_CORRUPT", 422, `The ${kind} document is damaged and could not be read: ${reason}`, { details: { kind, reason } });
  }
}

/** 422: an image declares more pixels than OCR takes (documents/pixel-limit.ts); nothing of it was decoded. */
export class OcrImageTooLargeError extends CrawlboxError {
  constructor(width: number, height: number, maxPixels: number) {
    const mp = (n: number) => `${Math.round(n / 1e5) / 10} megapixels`;
    super(
      "SCRAPE_OCR_IMAGE_TOO_LARGE",
      422,
      `The image is ${width}×${height} pixels (${mp(width * height)}); text is recognised in images of at most ${mp(maxPixels)}.`,
      { details: { width, height, maxPixels } },
    );
  }
}

/** 422: an image could not be decoded or recognised. */
export class OcrFailedError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_OCR_FAILED", 422, `Text recognition failed: ${reason}`, { details: { reason }, retryable: true });
  }
}


/** 422: the page has no playable audio or video (upstream's code). */
export class AudioUnsupportedError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_AUDIO_UNSUPPORTED_URL", 422, `No playable audio was found at this URL: ${reason}`, { details: { reason } });
  }
}

/** 422: the `video` format found no playable video (upstream's code). */
export class VideoUnsupportedError extends CrawlboxError {
  constructor(reason: string) {
    super("SCRAPE_VIDEO_UNSUPPORTED_URL", 422, `No playable video was found at this URL: ${reason}`, { details: { reason } });
  }
}

/** 413-like 422: the media file exceeds the configured size or duration limit. */
export class MediaTooLargeError extends CrawlboxError {
  constructor(what: string, limit: number, unit: string) {
    super("SCRAPE_MEDIA_TOO_LARGE", 422, `The media file exceeds the ${what} limit of ${limit} ${unit}.`, { details: { what, limit, unit } });
  }
}

/**
 * 422 `SCRAPE_MEDIA_TOO_LARGE` (the code size limits share): an office document (DOCX, XLSX, ODT) whose parts inflate
 * past the decompressed limit, a zip bomb. Its own class so the message speaks of a document, not a media file.
 */
export class DocumentTooLargeError extends CrawlboxError {
  constructor(limitBytes: number) {
    super("SCRAPE_MEDIA_TOO_LARGE", 422, `The document's parts inflate past the decompressed document limit of ${limitBytes} bytes.`, {
      details: { what: "decompressed document", limit: limitBytes, unit: "bytes" },
    });
  }
}
