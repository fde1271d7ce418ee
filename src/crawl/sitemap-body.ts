/**
 * @module crawl/sitemap-body
 * A fetched sitemap file's bytes turned into text (crawl/sitemap.ts), judged by what they are, not by what the
 * server calls them:
 *
 * - gzip (by its magic bytes, whatever the name or type) is inflated up to {@link MAX_SITEMAP_BYTES}, every member
 *   of it and nothing of the junk after; a file that inflates past the cap keeps its first
 *   {@link MAX_SITEMAP_BYTES} (its complete entries are still pages of the site) and is reported as cut;
 * - the character encoding comes from the byte-order mark, then the XML declaration's `encoding`, then the
 *   `Content-Type` charset, then UTF-8: an ISO-8859-1 sitemap's `café` became `caf%EF%BF%BD` and a UTF-16 one gave
 *   nothing when every file was read as UTF-8;
 * - a body whose root element is `<html>` is a page (a soft 404), not a sitemap, whatever its type; anything else
 *   is handed to the parser, so a valid sitemap served as `text/html` (common with misconfigured servers and CMS
 *   plugins) is read.
 */
import { Gunzip } from "fflate";
import { charsetFromBom, charsetFromContentType, normalizeCharset } from "../engines/charset.ts";

/** Largest sitemap file, decoded (sitemaps.org: 50 MiB uncompressed). */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
/** Compressed bytes handed to the inflater at once: its output per step (at most ~1000× this) stays small. */
const INFLATE_SLICE_BYTES = 4 * 1024;
/** Slices inflated between two turns of the event loop. */
const YIELD_EVERY_SLICES = 64;

/** A sitemap file's text, or why there is none. */
export interface SitemapBody {
  /** The decoded text; undefined when the body is an HTML page. */
  text: string | undefined;
  /** Set when only the first part of the file could be read: the decoded bytes kept. */
  cutAtBytes?: number;
}

/** A gzip stream that could not be inflated at all. */
export class SitemapGzipError extends Error {
  readonly code = "SITEMAP_GZIP_ERROR";
}

/**
 * The first `maxBytes` of what `gz` inflates to, and whether there was more. Fed a small slice at a time, so a bomb
 * costs `maxBytes` plus one slice's output (about 1000× the slice), never its full size. Every member of a
 * multi-member file is read. What comes before an error is kept: a stream cut short (a file whose first part only
 * was served) or followed by junk (servers that pad or append to the file) gives what it holds. fflate, not
 * `node:zlib`: Bun's streaming gunzip drops the last slice's output when junk follows the data, and refuses a
 * small file with junk altogether.
 */
export async function gunzipPrefix(gz: Uint8Array, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let cut = false;
  const inflater = new Gunzip((chunk) => {
    if (cut) return;
    const room = maxBytes - total;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      total += room;
      cut = true;
      return;
    }
    chunks.push(chunk);
    total += chunk.byteLength;
  });
  let failure: unknown;
  try {
    for (let at = 0; at < gz.byteLength && !cut; at += INFLATE_SLICE_BYTES) {
      inflater.push(gz.subarray(at, at + INFLATE_SLICE_BYTES), false);
      // Inflating 50 MiB is some hundred milliseconds of work: let the server answer others in between.
      if ((at / INFLATE_SLICE_BYTES) % YIELD_EVERY_SLICES === YIELD_EVERY_SLICES - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    // The end is told apart from the data: fflate looks for a next member only in a push that is not the last.
    if (!cut) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    failure = err;
  }
  if (total === 0 && failure !== undefined) throw new SitemapGzipError(`could not inflate the gzip file: ${(failure as Error).message}`);
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), cut };
}

/**
 * The encoding of a sitemap's bytes and the length of its byte-order mark: the mark, then the XML declaration (the
 * XML spec's own rule, Appendix F, UTF-16 without a mark included), then the `Content-Type` charset, then UTF-8.
 */
export function sitemapCharset(bytes: Uint8Array, contentTypeHeader: string | undefined): { charset: string; bomBytes: number } {
  const marked = charsetFromBom(bytes);
  if (marked) return { charset: marked.charset, bomBytes: marked.bomBytes };
  const [b0, b1, b2, b3] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if (b0 === 0x3c && b1 === 0x00 && b2 === 0x3f && b3 === 0x00) return { charset: "utf-16le", bomBytes: 0 };
  if (b0 === 0x00 && b1 === 0x3c && b2 === 0x00 && b3 === 0x3f) return { charset: "utf-16be", bomBytes: 0 };
  const head = Buffer.from(bytes.subarray(0, 256)).toString("latin1");
  const declared = normalizeCharset(/^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1]);
  // A declaration that could be read as ASCII cannot be UTF-16 (those files start with a mark or a zero byte).
  if (declared && !declared.startsWith("utf-16")) return { charset: declared, bomBytes: 0 };
  const served = normalizeCharset(charsetFromContentType(contentTypeHeader));
  if (served && !served.startsWith("utf-16")) return { charset: served, bomBytes: 0 };
  return { charset: "utf-8", bomBytes: 0 };
}

/** The local name of the document's root element (after the XML declaration, comments and doctype), lower-cased. */
export function rootElementName(text: string): string | undefined {
  let i = 0;
  for (;;) {
    while (i < text.length && (text.charCodeAt(i) <= 32 || text.charCodeAt(i) === 0xfeff)) i++;
    if (text.charCodeAt(i) !== 60) return undefined; // "<"
    const skipTo = text.startsWith("<?", i) ? "?>" : text.startsWith("<!--", i) ? "-->" : text.startsWith("<!", i) ? ">" : undefined;
    if (skipTo === undefined) break;
    const end = text.indexOf(skipTo, i + 2);
    if (end === -1) return undefined;
    i = end + skipTo.length;
  }
  const name = /^<([\w.:-]+)/.exec(text.slice(i, i + 256))?.[1];
  return name?.slice(name.indexOf(":") + 1).toLowerCase();
}

/**
 * The text of a fetched sitemap file. `cutAtBytes` is set when the file was longer than what is here: cut by the
 * server's answer (`servedCut`) or by the inflation cap. `decoded` is the engine's text of the body, used when it
 * was decoded as this module would (the same charset, no gzip): a second copy of a 50 MiB text is 50–100 MB more.
 * Throws {@link SitemapGzipError} for gzip that gives nothing.
 */
export async function sitemapBody(body: Uint8Array, contentTypeHeader: string | undefined, servedCut = false, decoded?: { text?: string; charset?: string }): Promise<SitemapBody> {
  let bytes = body;
  let cut = servedCut;
  let gzipped = false;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const inflated = await gunzipPrefix(bytes, MAX_SITEMAP_BYTES);
    bytes = inflated.bytes;
    cut ||= inflated.cut;
    gzipped = true;
  }
  const { charset, bomBytes } = sitemapCharset(bytes, contentTypeHeader);
  const reuse = !gzipped && decoded?.text !== undefined && decoded.charset === charset;
  let text = reuse ? decoded.text! : new TextDecoder(charset, { ignoreBOM: true }).decode(bytes.subarray(bomBytes));
  if (rootElementName(text) === "html") return { text: undefined };
  // A plain-text sitemap cut mid-line would list the first part of its last URL as a page.
  if (cut && !text.trimStart().startsWith("<")) text = text.slice(0, text.lastIndexOf("\n") + 1);
  return cut ? { text, cutAtBytes: bytes.byteLength } : { text };
}
