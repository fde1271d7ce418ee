/**
 * @module crawl/sitemap-body
 * A fetched sitemap file's bytes turned into text (crawl/sitemap.ts), judged by what they are, not by what the
 * server calls them:
 *
 * - gzip (by its magic bytes, whatever the name or type) is inflated up to {@link MAX_SITEMAP_BYTES}; a file that
 *   inflates past it keeps its first {@link MAX_SITEMAP_BYTES} (its complete entries are still pages of the site)
 *   and is reported as cut;
 * - the character encoding comes from the byte-order mark, then the XML declaration's `encoding`, then the
 *   `Content-Type` charset, then UTF-8: an ISO-8859-1 sitemap's `café` became `caf%EF%BF%BD` and a UTF-16 one gave
 *   nothing when every file was read as UTF-8;
 * - a body whose root element is `<html>` is a page (a soft 404), not a sitemap, whatever its type; anything else
 *   is handed to the parser, so a valid sitemap served as `text/html` (common with misconfigured servers and CMS
 *   plugins) is read.
 */
import zlib from "node:zlib";
import { charsetFromContentType, normalizeCharset } from "../engines/charset.ts";

/** Largest sitemap file, decoded (sitemaps.org: 50 MiB uncompressed). */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
/** Compressed bytes handed to the inflater at once: its output per step stays small. */
const INFLATE_SLICE_BYTES = 64 * 1024;

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
 * The first `maxBytes` of what `gz` inflates to, and whether there was more. Streamed, so a bomb costs `maxBytes`
 * plus one slice, never its full size (zlib's `gunzipSync` with `maxOutputLength` throws and keeps nothing). A
 * stream cut short (a file whose first part only was served) gives what it holds.
 */
export async function gunzipPrefix(gz: Uint8Array, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const inflater = zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const chunks: Buffer[] = [];
  let total = 0;
  let cut = false;
  const done = new Promise<void>((resolve, reject) => {
    inflater.on("data", (chunk: Buffer) => {
      if (cut) return;
      const room = maxBytes - total;
      if (chunk.byteLength > room) {
        chunks.push(chunk.subarray(0, room));
        total += room;
        cut = true;
        inflater.destroy(); // stop inflating now: this is what bounds a bomb's memory
        resolve();
        return;
      }
      chunks.push(chunk);
      total += chunk.byteLength;
    });
    inflater.on("error", (err) => (total > 0 ? resolve() : reject(new SitemapGzipError(`could not inflate the gzip file: ${err.message}`))));
    inflater.on("end", resolve);
    inflater.on("close", resolve);
  });
  for (let at = 0; at < gz.byteLength && !cut && !inflater.destroyed; at += INFLATE_SLICE_BYTES) {
    const more = inflater.write(gz.subarray(at, at + INFLATE_SLICE_BYTES));
    if (!more && !cut) await Promise.race([new Promise((r) => inflater.once("drain", r)), done]);
  }
  if (!inflater.destroyed) inflater.end();
  await done;
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), cut };
}

/**
 * The encoding of a sitemap's bytes and the length of its byte-order mark: the mark, then the XML declaration (the
 * XML spec's own rule, Appendix F, UTF-16 without a mark included), then the `Content-Type` charset, then UTF-8.
 */
export function sitemapCharset(bytes: Uint8Array, contentTypeHeader: string | undefined): { charset: string; bomBytes: number } {
  const [b0, b1, b2, b3] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { charset: "utf-8", bomBytes: 3 };
  if (b0 === 0xfe && b1 === 0xff) return { charset: "utf-16be", bomBytes: 2 };
  if (b0 === 0xff && b1 === 0xfe) return { charset: "utf-16le", bomBytes: 2 };
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
