/**
 * ODT table row groups (documents/office/odt.ts): `table:table-row-group` may hold groups of its own, and the walk
 * that finds a table's rows through them recursed without a bound: a 23 KB ODT nesting 200,000 groups answered 500
 * "Maximum call stack size exceeded". Nesting past 200 levels is a corrupt document, as it is for every other walk.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { odtToBlocks } from "../../src/documents/office/odt.ts";
import { MAX_XML_DEPTH } from "../../src/documents/office/xml.ts";

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"';

function odt(body: string): Uint8Array {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  return zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(xml) });
}

const row = (text: string) => `<table:table-row><table:table-cell><text:p>${text}</text:p></table:table-cell></table:table-row>`;
const grouped = (depth: number, inner: string) => "<table:table-row-group>".repeat(depth) + inner + "</table:table-row-group>".repeat(depth);

describe("ODT row groups", () => {
  test("200,000 nested table:table-row-group is a corrupt document (422), not a stack overflow (500)", () => {
    const bytes = odt(`<table:table>${grouped(200_000, row("cell"))}</table:table>`);
    expect(bytes.length).toBeLessThan(50_000);
    expect(() => odtToBlocks(bytes)).toThrow(DocumentCorruptError);
    expect(() => convertOffice("odt", bytes)).toThrow(`elements nest deeper than ${MAX_XML_DEPTH} levels`);
  });

  test("row groups nested a realistic depth still give the table's rows, in order", () => {
    const bytes = odt(`<table:table><table:table-header-rows>${row("head")}</table:table-header-rows>${grouped(50, row("a") + grouped(3, row("b")))}${row("c")}</table:table>`);
    const { blocks } = odtToBlocks(bytes);
    expect(blocks).toEqual([{ kind: "table", rows: [[[{ text: "head" }]], [[{ text: "a" }]], [[{ text: "b" }]], [[{ text: "c" }]]] }]);
  });
});
