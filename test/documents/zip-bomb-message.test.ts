/**
 * A DOCX, XLSX or ODT whose XML parts inflate past the decompressed limit (a zip bomb) answers 422
 * SCRAPE_MEDIA_TOO_LARGE, the code docs/documents.md lists for it, with a message about the document: it said "The
 * media file exceeds the decompressed document limit", and the file is no media file.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { CrawlboxError } from "../../src/errors.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { MAX_OFFICE_UNZIPPED_BYTES } from "../../src/documents/office/unzip.ts";

const spaces = new Uint8Array(MAX_OFFICE_UNZIPPED_BYTES + 1024).fill(0x20);

const BOMBS: [string, "docx" | "xlsx" | "odt", Record<string, Uint8Array>][] = [
  ["DOCX", "docx", { "word/document.xml": spaces }],
  ["XLSX", "xlsx", { "xl/workbook.xml": strToU8("<workbook/>"), "xl/sharedStrings.xml": spaces }],
  ["ODT", "odt", { mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": spaces }],
];

describe("office zip bombs", () => {
  for (const [name, kind, files] of BOMBS) {
    test(`${name} parts inflating past ${MAX_OFFICE_UNZIPPED_BYTES} bytes: 422 SCRAPE_MEDIA_TOO_LARGE about the document`, () => {
      const bytes = zipSync(files, { level: 9 });
      expect(bytes.length).toBeLessThan(100_000);
      let error: unknown;
      try {
        convertOffice(kind, bytes);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(CrawlboxError);
      const body = (error as CrawlboxError).toBody();
      expect(body).toMatchObject({ code: "SCRAPE_MEDIA_TOO_LARGE", details: { what: "decompressed document", limit: MAX_OFFICE_UNZIPPED_BYTES, unit: "bytes" } });
      expect((error as CrawlboxError).status).toBe(422);
      expect(body.error).toBe(`The document's parts inflate past the decompressed document limit of ${MAX_OFFICE_UNZIPPED_BYTES} bytes.`);
      expect(body.error).not.toContain("media file");
    });
  }
});
