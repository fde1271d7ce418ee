/**
 * @module documents/office/parser
 * Office documents (DOCX, DOC, XLSX, XLS, ODT, ODS, RTF), recognised by their bytes, converted to markdown whatever `parsers` says
 * (upstream converts DOCX unconditionally too). One credit per document. The conversion (documents/office/
 * readers.ts) runs in a document worker, stopped at the request's deadline: its cost is not bounded by the
 * file's size.
 */
import { documentDeadline } from "../deadline.ts";
import { detectKind } from "../detect.ts";
import type { DocumentWorkers } from "../isolate/pool.ts";
import type { DocumentParser } from "../types.ts";
import { isOfficeKind } from "./readers.ts";

/** Creates the office-document parser, converting on `workers`. */
export function createOfficeParser(options: { workers: DocumentWorkers }): DocumentParser {
  if (!options?.workers) throw new TypeError("createOfficeParser: document workers are required");
  return {
    name: "office",
    accepts: (page) => isOfficeKind(detectKind(page)),
    async parse(page, spec, signal) {
      const kind = detectKind(page);
      if (!isOfficeKind(kind)) throw new TypeError(`office parser given a ${kind} page`);
      const deadline = documentDeadline(spec, page, signal);
      try {
        const worker = await options.workers.lease(deadline.signal);
        try {
          return await worker.call({ op: "office", kind, body: page.body });
        } finally {
          worker.release();
        }
      } catch (err) {
        throw deadline.wrap(err);
      }
    },
  };
}
