/**
 * @module documents/isolate/document-worker
 * A document worker: converts office files, reads PDFs and decodes images with mupdf on its own thread, so that a document whose
 * parsing costs seconds (documents/office/readers.ts, documents/pdf/reader.ts) neither holds the server's event
 * loop nor outlives its request: the pool terminates the worker at the deadline. Holds at most one open PDF, that
 * of the lease it serves; opening another, or the lease's release (`reset`), closes it. Compiled as an extra entry
 * point of the binary (scripts/build.ts). Speaks {@link DocumentRequest}/{@link DocumentResponse}.
 */
import { imageSize, imageToPng } from "../image/decode.ts";
import { convertOffice } from "../office/readers.ts";
import { loadMupdf } from "../pdf/mupdf.ts";
import { PdfReader } from "../pdf/reader.ts";
import { type DocumentRequest, type DocumentResponse, READY_ID, toWireError } from "./protocol.ts";

declare const self: Worker;

let open: PdfReader | undefined;

function closeOpen() {
  open?.close();
  open = undefined;
}

function reader(): PdfReader {
  if (!open) throw new Error("no PDF is open in this document worker");
  return open;
}

/**
 * A result, and how to send it: `transfer` moves buffers instead of copying them; `asJson` sends pages' text
 * layers (thousands of small objects) as one JSON string, which both threads handle faster than a structured clone.
 */
interface Outcome {
  result: unknown;
  transfer?: Transferable[];
  asJson?: boolean;
}

async function handle(req: DocumentRequest): Promise<Outcome> {
  switch (req.op) {
    case "office":
      return { result: convertOffice(req.kind, req.body) };
    case "pdfOpen": {
      closeOpen();
      open = PdfReader.open(await loadMupdf(), req.body);
      return { result: { total: open.total } };
    }
    case "pdfPages": {
      const pdf = reader();
      const result = Array.from({ length: req.count }, (_, k) => pdf.page(req.from + k, req.mode, req.dpi));
      const transfer = result.flatMap((r) => (r.kind === "ocr" ? [r.png.buffer as ArrayBuffer] : []));
      return transfer.length > 0 ? { result, transfer } : { result, asJson: true };
    }
    case "pdfFinish": {
      const result = reader().summary();
      closeOpen();
      return { result };
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
      const { result, transfer, asJson } = await handle(req);
      const response: DocumentResponse = asJson ? { id: req.id, ok: true, json: JSON.stringify(result) } : { id: req.id, ok: true, result };
      self.postMessage(response, transfer ? { transfer } : undefined);
    } catch (err) {
      // Sending is inside the try too: a result that cannot be cloned fails this request, not the worker.
      try {
        self.postMessage({ id: req.id, ok: false, error: toWireError(err) } satisfies DocumentResponse);
      } catch {
        self.postMessage({ id: req.id, ok: false, error: { name: "Error", message: "the document worker could not send its answer" } } satisfies DocumentResponse);
      }
    }
  });
});

// Loaded: from now on a crash is a document's doing, not a broken installation (pool.ts tells them apart).
self.postMessage({ id: READY_ID, ok: true, result: null } satisfies DocumentResponse);
