/**
 * @module documents/office/readers
 * Office bytes (DOCX, DOC, XLSX, XLS, ODT, RTF) → {@link ConvertedDocument}, synchronously: the conversion a document worker runs
 * (documents/isolate/document-worker.ts). It is kept off the main thread because its cost is not bounded by the
 * file's size: a 100 KB DOCX can inflate to 32 MiB of XML, which takes seconds and a gigabyte of memory to parse.
 */
import { convertBlocks } from "../convert.ts";
import type { Block } from "../layout/model.ts";
import type { ConvertedDocument } from "../types.ts";
import { docToBlocks } from "./doc.ts";
import { docxToBlocks } from "./docx.ts";
import { odtToBlocks } from "./odt.ts";
import { rtfToBlocks } from "./rtf.ts";
import { xlsToBlocks } from "./xls.ts";
import { xlsxToBlocks } from "./xlsx.ts";

const READERS = { docx: docxToBlocks, doc: docToBlocks, xlsx: xlsxToBlocks, xls: xlsToBlocks, odt: odtToBlocks, rtf: rtfToBlocks } as const;

/** The office formats crawlbox reads. */
export type OfficeKind = keyof typeof READERS;

/** Whether a detected kind (documents/detect.ts) is an office format. */
export function isOfficeKind(kind: string): kind is OfficeKind {
  return Object.hasOwn(READERS, kind);
}

/** Converts an office document of `kind`. One credit per document. Throws the readers' typed errors. */
export function convertOffice(kind: OfficeKind, bytes: Uint8Array): ConvertedDocument {
  const { blocks, title } = READERS[kind](bytes) as { blocks: Block[]; title?: string };
  const metadata: Record<string, unknown> = {};
  const heading = blocks.find((b) => b.kind === "heading");
  // A note reference's text is its label, not the heading's.
  const t = title ?? (heading?.kind === "heading" ? heading.content.filter((c) => c.note === undefined).map((c) => c.text).join("") : undefined);
  if (t) metadata.title = t;
  return convertBlocks(blocks, metadata, 1);
}
