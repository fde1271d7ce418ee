/**
 * @module documents/office/readers
 * Office bytes (DOCX, DOC, XLSX, XLS, ODT, ODS, RTF) → {@link ConvertedDocument}, synchronously: the conversion a document worker runs
 * (documents/isolate/document-worker.ts). It is kept off the main thread because its cost is not bounded by the
 * file's size: a 100 KB DOCX can inflate to 32 MiB of XML, which takes seconds and a gigabyte of memory to parse.
 */
import { convertBlocks } from "../convert.ts";
import type { Block } from "../layout/model.ts";
import type { ConvertedDocument } from "../types.ts";
import { docToBlocks } from "./doc.ts";
import { docxToBlocks } from "./docx.ts";
import { odsToBlocks } from "./ods.ts";
import { odtToBlocks } from "./odt.ts";
import { rtfToBlocks } from "./rtf.ts";
import { MAX_TITLE_CHARS } from "./summary-info.ts";
import { cutWarning, restOfDocumentLeftOut, TextBudget } from "./text-budget.ts";
import { xlsToBlocks } from "./xls.ts";
import { xlsxToBlocks } from "./xlsx.ts";

const READERS = { docx: docxToBlocks, doc: docToBlocks, xlsx: xlsxToBlocks, xls: xlsToBlocks, odt: odtToBlocks, ods: odsToBlocks, rtf: rtfToBlocks } as const;

/** The office formats crawlbox reads. */
export type OfficeKind = keyof typeof READERS;

/** Whether a detected kind (documents/detect.ts) is an office format. */
export function isOfficeKind(kind: string): kind is OfficeKind {
  return Object.hasOwn(READERS, kind);
}

/**
 * Converts an office document of `kind`. One credit per document. Throws the readers' typed errors. The readers share
 * one text budget (text-budget.ts): a document that reaches it ends with a line saying the rest is not shown, and a
 * `warning`; a reader's own warning (a DOCX's imported content it cannot show) is the document's `warning` too.
 */
export function convertOffice(kind: OfficeKind, bytes: Uint8Array): ConvertedDocument {
  const budget = new TextBudget();
  const { blocks, title, warning } = READERS[kind](bytes, budget) as { blocks: Block[]; title?: string; warning?: string };
  if (budget.cut) blocks.push(restOfDocumentLeftOut(budget));
  const metadata: Record<string, unknown> = {};
  const heading = blocks.find((b) => b.kind === "heading");
  // A note reference's text is its label, not the heading's.
  const t = title ?? (heading?.kind === "heading" ? heading.content.filter((c) => c.note === undefined).map((c) => c.text).join("") : undefined);
  // A title is one line of metadata (and the HTML's <title>): a core.xml title of megabytes is cut, as a DOC's is.
  if (t) metadata.title = t.slice(0, MAX_TITLE_CHARS);
  const converted = convertBlocks(blocks, metadata, 1);
  const warnings = [warning, budget.cut ? cutWarning(kind, budget) : undefined].filter((w): w is string => !!w);
  if (warnings.length > 0) converted.fields = { warning: warnings.join(" ") };
  return converted;
}
