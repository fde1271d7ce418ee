/**
 * @module scrape/converted-head
 * The part of a converted document's HTML (a PDF, an office file, an image's OCR text) that its page-level readers
 * need: the metadata and the base URL read only `<html>`'s attributes, `<title>`, `<meta>`, `<link>` and `<base>`
 * (pipeline/document-scan.ts), and a converted document has them in its head only. Its HTML is ours
 * (documents/layout/render-html.ts): `<html>`, a `<head>` holding at most a `<title>`, then a `<body>` of headings,
 * paragraphs, lists, tables, code, footnotes and links, whose every text and attribute value is escaped, so no
 * element of the document's own text can appear in it. The PDF parser without `pdf` in `parsers` gives the file's
 * base64 instead: text without a single `<`, which is no element at all.
 *
 * Parsing the whole HTML for those fields held the main thread, and so every other request, `/health` included,
 * for as long as linkedom took: 430 ms for the 30 MB of a 500-page PDF, 150 ms at the 10 M-character text limit,
 * 362 ms for a 28.7 MB DOCX. The head is a few hundred characters (a document's title is capped at one line).
 */

/** Where a converted document's body starts (documents/layout/render-html.ts writes it without attributes). */
const BODY_OPEN = "<body>";

/**
 * The markup of `html` before its `<body>`: parsed, it gives the metadata and base URL the whole document gives.
 * Text without any `<` (a base64 document) is "" (no elements either way); HTML of another shape is returned whole,
 * so a reader of it gets the whole document's answer. Costs a search for `<` (found at once in HTML; ~1 ms over
 * 40 M characters of base64) and for the first `<body>`, right after the head.
 */
export function convertedHead(html: string): string {
  if (!html.includes("<")) return "";
  const at = html.indexOf(BODY_OPEN);
  return at >= 0 ? html.slice(0, at) : html;
}
