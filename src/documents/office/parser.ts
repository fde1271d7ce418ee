/**
 * @module documents/office/parser
 * Office documents (DOCX, ODT, RTF), recognised by their bytes, converted to markdown whatever `parsers` says
 * (upstream converts DOCX unconditionally too). One credit per document.
 */
import { convertBlocks } from "../convert.ts";
import { detectKind } from "../detect.ts";
import type { DocumentParser } from "../types.ts";
import { docxToBlocks } from "./docx.ts";
import { odtToBlocks } from "./odt.ts";
import { rtfToBlocks } from "./rtf.ts";

const READERS = { docx: docxToBlocks, odt: odtToBlocks, rtf: rtfToBlocks } as const;

/** The office-document parser. */
export const officeParser: DocumentParser = {
  name: "office",
  accepts: (page) => detectKind(page) in READERS,
  async parse(page) {
    const kind = detectKind(page) as keyof typeof READERS;
    const { blocks, title } = READERS[kind](page.body) as { blocks: import("../layout/model.ts").Block[]; title?: string };
    const metadata: Record<string, unknown> = {};
    const heading = blocks.find((b) => b.kind === "heading");
    const t = title ?? (heading?.kind === "heading" ? heading.content.map((c) => c.text).join("") : undefined);
    if (t) metadata.title = t;
    return convertBlocks(blocks, metadata, 1);
  },
};
