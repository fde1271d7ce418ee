/**
 * @module documents/isolate/document-worker
 * A document worker: converts office files, reads and lays out PDFs and decodes images with mupdf on its own thread,
 * so that a document whose parsing costs seconds (documents/office/readers.ts, documents/pdf/conversion.ts) neither
 * holds the server's event loop nor outlives its request: the pool terminates the worker at the deadline. Holds at
 * most one open PDF, that of the lease it serves, with the text of its pages read so far; opening another,
 * converting it, or the lease's release (`reset`), closes it. Compiled as an extra entry point of the binary
 * (scripts/build.ts). Speaks {@link DocumentRequest}/{@link DocumentResponse}.
 */
import { imageSize, imageToPng } from "../image/decode.ts";
import { convertOffice } from "../office/readers.ts";
import { PdfConversion } from "../pdf/conversion.ts";
import { loadMupdf } from "../pdf/mupdf.ts";
import { type DocumentRequest, type DocumentResponse, READY_ID, toWireError } from "./protocol.ts";

declare const self: Worker;

let open: PdfConversion | undefined;

function closeOpen() {
  open?.close();
  open = undefined;
}

/** Thrown for a PDF request without an open PDF: the caller's mistake, never the document's. */
class NoOpenPdfError extends Error {}

function openPdf(): PdfConversion {
  if (!open) throw new NoOpenPdfError("no PDF is open in this document worker");
  return open;
}

/** A result, and the buffers to move instead of copying them. */
interface Outcome {
  result: unknown;
  transfer?: Transferable[];
}

async function handle(req: DocumentRequest): Promise<Outcome> {
  switch (req.op) {
    case "office":
      return { result: convertOffice(req.kind, req.body) };
    case "pdfOpen": {
      closeOpen();
      open = PdfConversion.open(await loadMupdf(), req.body);
      return { result: { total: open.total } };
    }
    case "pdfPages": {
      const result = openPdf().pages(req.from, req.count, req.mode, req.dpi);
      const transfer = result.flatMap((r) => (r.kind === "ocr" ? [r.png.buffer as ArrayBuffer] : []));
      return { result, transfer };
    }
    case "pdfConvert": {
      try {
        return { result: openPdf().convert(req.count, req.ocrPages, req.options) };
      } finally {
        closeOpen();
      }
    }
    case "reset":
      closeOpen();
      return { result: null };
    case "imageSize":
      return { result: imageSize(await loadMupdf(), req.body) };
    case "imagePng": {
      const result = imageToPng(await loadMupdf(), req.body);
      return { result, transfer: [result.buffer as ArrayBuffer] };
    }
  }
}

// Requests arrive one at a time per lease, but are chained anyway so that answers keep their order.
let queue: Promise<void> = Promise.resolve();
self.addEventListener("message", (event: MessageEvent<DocumentRequest>) => {
  const req = event.data;
  queue = queue.then(async () => {
    try {
      const { result, transfer } = await handle(req);
      self.postMessage({ id: req.id, ok: true, result } satisfies DocumentResponse, transfer?.length ? { transfer } : undefined);
    } catch (err) {
      // Anything a document throws crosses as it is; the pool types what is untyped by the request
      // (protocol.ts, fromWireError). Sending is inside the try too: a result that cannot be cloned fails this
      // request, not the worker.
      try {
        self.postMessage({ id: req.id, ok: false, error: toWireError(err, err instanceof NoOpenPdfError || (err instanceof Error && err.name === "DataCloneError")) } satisfies DocumentResponse);
      } catch {
        self.postMessage({ id: req.id, ok: false, error: { name: "Error", message: "the document worker could not send its answer", internal: true } } satisfies DocumentResponse);
      }
    }
  });
});

// Loaded: from now on a crash is a document's doing, not a broken installation (pool.ts tells them apart).
self.postMessage({ id: READY_ID, ok: true, result: null } satisfies DocumentResponse);
