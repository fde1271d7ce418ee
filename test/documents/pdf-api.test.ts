/**
 * PDFs: the text layer (headings, hyphenation, lists, tables, links, columns, running headers, metadata and
 * credits) and the options (maxPages, pageMarkers, pages, quotas, rawBase64, blocks, parsers: [], magic bytes,
 * encrypted, truncated and empty PDFs).
 * Through the real /v2/scrape API of an in-process crawlbox (document-api.ts) on the document fixture site.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import type { DocumentSite } from "../fixtures/documents/server.ts";
import { useDocumentApi } from "./document-api.ts";

const api = useDocumentApi();
const { scrape } = api;
let h: Harness;
let site: DocumentSite;
beforeAll(() => ({ h, site } = api));

describe("PDF text layer", () => {
  let md: string;
  let meta: any;
  beforeAll(async () => {
    const r = await scrape({ url: "/report.pdf", formats: ["markdown", "html", "links"] });
    expect(r.status).toBe(200);
    md = r.body.data.markdown;
    meta = r.body.data.metadata;
    expect(r.body.data.html).toContain("<h1>Annual Report 2026</h1>");
    expect(r.body.data.links).toContain("https://example.org/methodology");
  });

  test("headings from font size and weight", () => {
    expect(md).toContain("# Annual Report 2026\n");
    expect(md).toContain("## Key Points\n");
    expect(md).toContain("## Results by Region\n");
  });

  test("hyphenation at a line end is repaired and lines join into one paragraph", () => {
    expect(md).toContain("Our network infrastructure grew steadily this year");
    expect(md).not.toContain("infra-");
  });

  test("bulleted and numbered lists", () => {
    expect(md).toContain("- Revenue rose in every region\n- Costs fell for the third year\n- Staff turnover stayed low");
    expect(md).toContain("1. Open two new offices\n2. Hire forty engineers");
  });

  test("a simple table becomes a GFM table", () => {
    expect(md).toContain("| Region | Revenue | Growth |\n| --- | --- | --- |\n| North | 1,200 | 4% |\n| South | 950 | 7% |\n| West | 1,480 | 2% |");
  });

  test("links keep their text and target", () => {
    expect(md).toContain("[our website](https://example.org/methodology)");
  });

  test("two columns are read column by column", () => {
    const alpha = md.indexOf("ALPHA");
    expect(alpha).toBeGreaterThan(-1);
    expect(md.indexOf("ALPHAEND")).toBeLessThan(md.indexOf("OMEGA"));
    expect(md).toMatch(/ALPHA The northern offices .* ALPHAEND/);
  });

  test("running headers, footers and page numbers are dropped", () => {
    expect(md).not.toContain("ACME Quarterly Review");
    expect(md).not.toMatch(/Page \d of 2/);
  });

  test("metadata and credits: one credit per parsed page", () => {
    expect(meta.numPages).toBe(2);
    expect(meta.totalPages).toBe(2);
    expect(meta.creditsUsed).toBe(2);
    expect(meta.title).toBe("Annual Report 2026");
    expect(meta.contentType).toBe("application/pdf");
  });
});

describe("PDF options", () => {
  test("maxPages caps the parsed pages and the credits", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", maxPages: 2 }] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Chapter 2");
    expect(r.body.data.markdown).not.toContain("Chapter 3");
    expect(r.body.data.metadata).toMatchObject({ numPages: 2, totalPages: 5, creditsUsed: 2 });
  });

  test("pageMarkers joins pages with upstream's marker, between pages only", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pageMarkers: true, maxPages: 3 }] });
    const md: string = r.body.data.markdown;
    expect(md).not.toContain("<!-- page 1 -->");
    expect(md).toContain("\n\n---\n\n<!-- page 2 -->\n\n");
    expect(md).toContain("\n\n---\n\n<!-- page 3 -->\n\n");
    expect(md.indexOf("Chapter 2")).toBeGreaterThan(md.indexOf("<!-- page 2 -->"));
  });

  test("pages: true gives each page's markdown in document.pages (pageMarkdown is its old name)", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pages: true, maxPages: 3 }] });
    const pages = r.body.data.pages as { pageNumber: number; markdown: string }[];
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3]);
    expect(pages[1]!.markdown).toContain("Chapter 2");
    expect(pages[1]!.markdown).not.toContain("Chapter 3");
    expect(r.body.data.markdown).toContain("Chapter 3");
    const old = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pageMarkdown: true, maxPages: 1 }] });
    expect(old.body.data.pages).toHaveLength(1);
    const none = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", maxPages: 1 }] });
    expect(none.body.data.pages).toBeUndefined();
  });

  test("a PDF's per-page credits are held to the key's quota: 402 and nothing charged when they exceed it", async () => {
    const { key } = h.services.keys.create("small quota", 3);
    const post = async (parsers: unknown[]) => {
      const res = await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `${site.url}/long.pdf`, timeout: 60_000, parsers } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const five = await post([{ type: "pdf" }]);
    expect(five.status).toBe(402);
    expect(five.body.code).toBe("INSUFFICIENT_CREDITS");
    const usage = async () => ((await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any).data;
    expect((await usage()).creditsUsed).toBe(0);
    const three = await post([{ type: "pdf", maxPages: 3 }]);
    expect(three.status).toBe(200);
    expect(three.body.data.metadata.creditsUsed).toBe(3);
    expect((await usage()).remainingCredits).toBe(0);
  });

  test("rawBase64 returns the PDF itself, unparsed, for one credit", async () => {
    const r = await scrape({ url: "/long.pdf", formats: ["rawBase64"] });
    expect(r.status).toBe(200);
    expect(Buffer.from(r.body.data.rawBase64, "base64").subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(r.body.data.metadata.creditsUsed).toBe(1);
    expect(r.body.data.metadata.numPages).toBeUndefined();
  });

  test("blocks: true is answered with a warning (not produced), the document still scraped", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", blocks: true, maxPages: 1 }] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Chapter 1");
    expect(r.body.data.warning).toContain("blocks");
  });

  test("parsers: [] returns the PDF itself, base64, for one credit", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown.startsWith("JVBER")).toBe(true);
    expect(Buffer.from(r.body.data.markdown, "base64").equals(Buffer.from(site.fixtures.longPdf))).toBe(true);
    expect(r.body.data.metadata.creditsUsed).toBe(1);
  });

  test("a PDF served as octet-stream or as text/html is still a PDF (magic bytes)", async () => {
    for (const url of ["/download?id=7", "/mislabeled.html"]) {
      const r = await scrape({ url });
      expect(r.status).toBe(200);
      expect(r.body.data.markdown).toContain("# Annual Report 2026");
    }
  });

  test("an encrypted PDF → 422 SCRAPE_PDF_ENCRYPTED", async () => {
    const r = await scrape({ url: "/encrypted.pdf" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ success: false, code: "SCRAPE_PDF_ENCRYPTED" });
  });

  test("a truncated PDF → 422 SCRAPE_PDF_CORRUPT", async () => {
    const r = await scrape({ url: "/truncated.pdf" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ success: false, code: "SCRAPE_PDF_CORRUPT" });
  });

  test("a file served as a PDF with no PDF inside, or nothing, → 422 SCRAPE_PDF_CORRUPT (it said PDF was unsupported)", async () => {
    const junk = await scrape({ url: "/not-a.pdf" });
    expect([junk.status, junk.body.code, junk.body.error]).toEqual([422, "SCRAPE_PDF_CORRUPT", "The PDF is damaged and could not be read: it does not start with %PDF-"]);
    const empty = await scrape({ url: "/empty.pdf" });
    expect([empty.status, empty.body.code, empty.body.error]).toEqual([422, "SCRAPE_PDF_CORRUPT", "The PDF is damaged and could not be read: the body is empty"]);
  });
});
