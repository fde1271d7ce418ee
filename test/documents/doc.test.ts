/**
 * DOC files (Word 97–2003: MS-DOC in a compound file; documents/office/doc*.ts). The fixture was written by
 * LibreOffice from test/fixtures/documents/handbook-doc-source.html (`soffice --headless --infilter="HTML
 * (StarWriter)" --convert-to doc:"MS Word 97"`): headings from heading styles, nested bulleted and numbered lists,
 * a table with an empty cell and a cell of two paragraphs, hyperlink fields, a page break, text beyond Latin-1, and a
 * title in the summary information. Word itself writes Latin text as 8-bit pieces: a synthetic piece table covers
 * those. Crafted and damaged files are 422s, quickly, never another error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CrawlboxError } from "../../src/errors.ts";
import { sniffBytes } from "../../src/documents/detect.ts";
import { bodyText, type Fib } from "../../src/documents/office/doc-text.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const dir = join(import.meta.dir, "..", "fixtures", "documents");
const doc = new Uint8Array(readFileSync(join(dir, "handbook.doc")));
const xls = new Uint8Array(readFileSync(join(dir, "budget.xls")));

const EXPECTED = `# Getting Started

Read the [onboarding guide](https://example.org/onboarding) first.

- Install the tools
  - Use the main branch
- Clone the repository

1. Ask questions
2. Share answers

## Team Contacts

| Name | Role |
| --- | --- |
| Ada | Lead since 2020 |
| Linus |  |

### Prices

Prices in €: café crème costs 3 € — “quoted” text.

After the page break, see [the FAQ](https://example.org/faq).
`;

describe("DOC", () => {
  test("the bytes say DOC; headings, nested lists, a table, links and the title come through", () => {
    expect(sniffBytes(doc)).toBe("doc");
    const converted = convertOffice("doc", doc);
    expect(converted.markdown).toBe(EXPECTED);
    expect(converted.metadata.title).toBe("Project Handbook");
    expect(converted.html).toContain("<h1>Getting Started</h1>");
  });

  test("8-bit pieces (as Word writes Latin text) decode as code page 1252; fields keep their result", () => {
    // A WordDocument stream holding "Caf\\xe9 \\x80 " then a field, as one compressed piece, and a table stream with its CLX.
    const text = 'Caf\xe9 \x80 \x13 DATE \\@ "yyyy" \x142026\x15!\r';
    const word = new Uint8Array(1024);
    const at = 600;
    for (let i = 0; i < text.length; i++) word[at + i] = text.charCodeAt(i);
    const table = new Uint8Array(64);
    const tv = new DataView(table.buffer);
    table[0] = 2; // clxt: the piece table
    tv.setUint32(1, 16, true); // one piece: two CPs and one PCD
    tv.setUint32(5, 0, true);
    tv.setUint32(9, text.length, true);
    tv.setUint32(13 + 2, (at * 2) | 0x40000000, true); // fc of a compressed piece: twice the byte offset, bit 30 set
    const fib: Fib = { ccpText: text.length, table, pair: (i) => (i === 33 ? { fc: 0, lcb: 21 } : { fc: 0, lcb: 0 }) };
    const body = bodyText(word, fib);
    expect(body.text).toBe(text.replace("\x80", "€"));
    expect(body.offsets[0]).toBe(at);
  });

  test("a password-protected document, a truncated one and one without its table stream: 422s", () => {
    const locked = doc.slice();
    const wordAt = Buffer.from(locked).indexOf(Buffer.from([0xec, 0xa5]));
    locked[wordAt + 0x0b]! |= 0x01; // fEncrypted (bit 8 of the flags at 0x0A)
    expect(() => convertOffice("doc", locked)).toThrow(expect.objectContaining({ code: "SCRAPE_DOCUMENT_ENCRYPTED", status: 422 }));
    expect(() => convertOffice("doc", doc.subarray(0, 2048))).toThrow(expect.objectContaining({ code: "SCRAPE_DOCUMENT_CORRUPT", status: 422 }));
    const noTable = doc.slice();
    noTable[wordAt + 0x0b]! ^= 0x02; // fWhichTblStm: the other table stream, which does not exist
    expect(() => convertOffice("doc", noTable)).toThrow(expect.objectContaining({ code: "SCRAPE_DOCUMENT_CORRUPT" }));
  });

  test("a Word 6.0/95 document (its own FIB, wIdent 0xA5DC) is an unsupported file that says so, not a corrupt one", () => {
    const old = doc.slice();
    const wordAt = Buffer.from(old).indexOf(Buffer.from([0xec, 0xa5]));
    old[wordAt] = 0xdc;
    expect(() => convertOffice("doc", old)).toThrow(expect.objectContaining({ code: "SCRAPE_UNSUPPORTED_FILE_ERROR", status: 422, message: expect.stringContaining("Word 6.0/95") }));
    // A Word 95 FIB with the Word 97 wIdent: its nFib (104) says so (as Apache POI reads it).
    const word95 = doc.slice();
    word95[wordAt + 2] = 0x68;
    word95[wordAt + 3] = 0x00;
    expect(() => convertOffice("doc", word95)).toThrow(expect.objectContaining({ code: "SCRAPE_UNSUPPORTED_FILE_ERROR" }));
  });

  test("500 damaged copies of each of the DOC and XLS fixtures: each converts or is a typed 422, each quickly", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (const [kind, bytes] of [["doc", doc], ["xls", xls]] as const) {
      let failed = 0;
      for (let n = 0; n < 500; n++) {
        const copy = bytes.slice();
        for (let k = 0; k < 1 + Math.floor(random() * 8); k++) copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
        const started = performance.now();
        try {
          convertOffice(kind, copy);
        } catch (err) {
          failed++;
          if (!(err instanceof CrawlboxError) || err.status !== 422) throw new Error(`${kind} mutation ${n}: ${err instanceof Error ? err.stack : String(err)}`);
        }
        expect(performance.now() - started).toBeLessThan(2000);
      }
      expect(failed).toBeLessThan(500);
    }
  });
});

describe("DOC through POST /v2/scrape", () => {
  let h: Harness;
  let site: DocumentSite;
  beforeAll(async () => {
    site = await startDocumentSite();
    h = await createHarness();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    site?.stop();
  });

  test("served as application/msword: markdown, links, the title, one credit", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/handbook.doc`, formats: ["markdown", "links"] } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.markdown).toBe(EXPECTED);
    expect(body.data.links).toEqual(["https://example.org/onboarding", "https://example.org/faq"]);
    expect(body.data.metadata).toMatchObject({ title: "Project Handbook", creditsUsed: 1, contentType: "application/msword" });
  });
});
