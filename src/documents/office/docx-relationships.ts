/**
 * @module documents/office/docx-relationships
 * What the DOCX reader (docx-package.ts) needs of a package's relationships beyond the Open Packaging Conventions
 * themselves (opc-package.ts, shared with the XLSX reader): a DOCX's relationship part that is not XML has no
 * relationships, and the document reads on without them (the XLSX reader refuses such a workbook instead); and the
 * root element of a part, read cheaply from its first kilobytes, tells a Word body from a part `_rels/.rels` names
 * wrongly (`word/styles.xml`, an image) before it is parsed whole.
 */
import { DocumentCorruptError } from "../errors.ts";
import { readRelationships, type Relationship } from "./opc-package.ts";

const decoder = new TextDecoder();

/**
 * The relationships of the `.rels` part `name` (`data`), targets resolved against its source part's folder
 * (opc-package.ts); a part that is not XML has none.
 */
export function docxRelationships(data: Uint8Array, name: string): Relationship[] {
  try {
    return readRelationships(data, name, "DOCX");
  } catch (err) {
    if (err instanceof DocumentCorruptError) return [];
    throw err;
  }
}

/**
 * The local name of the root element of XML `data`, from its first kilobytes (after the declaration, comments and a
 * DOCTYPE); undefined when they do not tell.
 */
export function rootLocalName(data: Uint8Array): string | undefined {
  const head = decoder.decode(data.subarray(0, 4096));
  for (let at = head.indexOf("<"); at >= 0; at = head.indexOf("<", at + 1)) {
    const next = head[at + 1];
    if (next === "?" || next === "!") {
      const end = head.indexOf(head.startsWith("<!--", at) ? "-->" : ">", at + 2);
      if (end < 0) return undefined;
      at = end;
      continue;
    }
    const name = /^[^\s/>]+/.exec(head.slice(at + 1, at + 257))?.[0];
    return name?.slice(name.indexOf(":") + 1);
  }
  return undefined;
}
