/**
 * @module engines/charset
 * Turns fetched bytes into text with the right character encoding, following the HTML encoding-sniffing order
 * (reliability.md "Charset detection"; WHATWG HTML §13.2.3.2): byte-order mark, then the transport
 * `Content-Type; charset=`, then a `<meta>` prescan of the first 1024 bytes (HTML) or the XML declaration (XML),
 * then a default.
 *
 * Default for unlabelled content: UTF-8 when the bytes are valid UTF-8, else windows-1252. The spec's default is
 * locale-dependent (windows-1252 for most locales); checking UTF-8 validity first gets modern unlabelled pages right
 * and still decodes legacy Western pages, which is what browsers' detectors effectively do.
 *
 * Decoding uses Bun's `TextDecoder`, which supports the WHATWG legacy encodings (shift_jis, euc-jp, iso-2022-jp,
 * gbk, gb18030, big5, euc-kr, windows-125x, koi8-r…), verified on bun 1.4.5.
 */
import type { Page } from "./types.ts";

/** How many bytes the `<meta>` prescan looks at (HTML spec: 1024). */
export const PRESCAN_BYTES = 1024;

/** Where the charset came from; useful in metadata and when debugging mojibake. */
export type CharsetSource = "bom" | "header" | "meta" | "xml-declaration" | "utf8-valid" | "default";

/** The result of {@link sniffCharset}. */
export interface SniffedCharset {
  /** WHATWG encoding name, e.g. `utf-8`, `shift_jis`, `windows-1251`. */
  charset: string;
  source: CharsetSource;
  /** Bytes of BOM to skip before decoding. */
  bomBytes: number;
}

/** The WHATWG name for an encoding label, or undefined when Bun cannot decode it. */
export function normalizeCharset(label: string | undefined | null): string | undefined {
  if (!label) return undefined;
  const clean = label.trim().replace(/^["']|["']$/g, "").toLowerCase();
  if (clean === "") return undefined;
  try {
    return new TextDecoder(clean).encoding;
  } catch {
    return undefined;
  }
}

/** The MIME type of a Content-Type value, without parameters, lower-cased (`""` when there is none). */
export function mimeTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type header value. */
export function charsetFromContentType(contentType: string | null | undefined): string | undefined {
  if (!contentType) return undefined;
  const m = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  return m ? (m[2] ?? m[1]) : undefined;
}

/** The encoding a byte-order mark names, and the mark's length; undefined without one. Shared with sitemap reading. */
export function charsetFromBom(bytes: Uint8Array): SniffedCharset | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: "utf-8", source: "bom", bomBytes: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: "utf-16be", source: "bom", bomBytes: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: "utf-16le", source: "bom", bomBytes: 2 };
  return undefined;
}

/**
 * The charset declared by `<meta charset>` or `<meta http-equiv="content-type" content="…charset=…">` in the first
 * {@link PRESCAN_BYTES} bytes, skipping comments. A simplified version of the spec's prescan: enough for real pages.
 */
export function prescanMetaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES)).toString("latin1").replace(/<!--[\s\S]*?(-->|$)/g, "");
  for (const tag of head.matchAll(/<meta[\s/]([^>]*)>?/gi)) {
    const attrs = parseAttributes(tag[1] ?? "");
    let label = attrs.get("charset");
    if (!label && attrs.get("http-equiv")?.toLowerCase() === "content-type") {
      label = charsetFromContentType(`x/x; ${(attrs.get("content") ?? "").replace(/^[^;]*;?/, "")}`);
    }
    let cs = normalizeCharset(label);
    if (!cs) continue;
    // Spec: a meta declaring UTF-16 is a lie (the prescan could read it), and x-user-defined means windows-1252.
    if (cs.startsWith("utf-16")) cs = "utf-8";
    if (cs === "x-user-defined") cs = "windows-1252";
    return cs;
  }
  return undefined;
}

function parseAttributes(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of s.matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/g)) {
    const name = m[1]!.toLowerCase();
    if (!out.has(name)) out.set(name, m[2] ?? m[3] ?? m[4] ?? "");
  }
  return out;
}

/** The `encoding` of an `<?xml … encoding="…"?>` declaration at the very start of the document. */
export function xmlDeclarationCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 200)).toString("latin1");
  const m = /^<\?xml[^>]*\sencoding\s*=\s*["']([^"']+)["']/.exec(head);
  return normalizeCharset(m?.[1]);
}

/** The text when `bytes` are valid UTF-8, else undefined. */
function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function isValidUtf8(bytes: Uint8Array): boolean {
  return strictUtf8(bytes) !== undefined;
}

/** One non-fatal decoder per encoding: `decode()` without `stream` keeps no state between calls. */
const decoders = new Map<string, TextDecoder>();

function decoderFor(charset: string): TextDecoder {
  let d = decoders.get(charset);
  if (!d) decoders.set(charset, (d = new TextDecoder(charset, { ignoreBOM: true })));
  return d;
}

/**
 * Picks the encoding of a text body.
 * @param mimeType Content-Type without parameters, lower-cased (selects the HTML or XML in-document rule)
 * @param contentTypeHeader the full header value (for `charset=`)
 */
export function sniffCharset(bytes: Uint8Array, mimeType: string, contentTypeHeader?: string | null): SniffedCharset {
  const declared = declaredCharset(bytes, mimeType, contentTypeHeader);
  if (declared) return declared;
  if (isValidUtf8(bytes)) return { charset: "utf-8", source: "utf8-valid", bomBytes: 0 };
  return undeclaredFallback(mimeType);
}

/** Steps 1–4 of {@link sniffCharset}: BOM, header, meta prescan, XML declaration. */
function declaredCharset(bytes: Uint8Array, mimeType: string, contentTypeHeader?: string | null): SniffedCharset | undefined {
  const fromBom = charsetFromBom(bytes);
  if (fromBom) return fromBom;
  const header = normalizeCharset(charsetFromContentType(contentTypeHeader));
  if (header) return { charset: header, source: "header", bomBytes: 0 };
  if (mimeType === "text/html" || mimeType === "application/xhtml+xml" || mimeType === "") {
    const meta = prescanMetaCharset(bytes);
    if (meta) return { charset: meta, source: "meta", bomBytes: 0 };
  }
  if (mimeType.endsWith("xml") || mimeType === "") {
    const xml = xmlDeclarationCharset(bytes);
    if (xml) return { charset: xml, source: "xml-declaration", bomBytes: 0 };
  }
  return undefined;
}

function undeclaredFallback(mimeType: string): SniffedCharset {
  // JSON is UTF-8 by definition (RFC 8259 §8.1): keep it, with replacement characters for bad bytes.
  const fallback = mimeType.includes("json") ? "utf-8" : "windows-1252";
  return { charset: fallback, source: "default", bomBytes: 0 };
}

/** Whether a MIME type is text the pipeline reads as characters (HTML, XML, JSON, text/*, scripts). */
export function isTextMimeType(mimeType: string): boolean {
  return (
    mimeType.startsWith("text/") ||
    mimeType.endsWith("+xml") ||
    mimeType.endsWith("+json") ||
    ["application/xml", "application/json", "application/javascript", "application/ecmascript", "application/x-javascript"].includes(
      mimeType,
    )
  );
}

/** Text when the type says so, or when there is no type and the first KiB has no NUL byte (as browsers sniff). */
export function looksLikeText(mimeType: string, body: Uint8Array): boolean {
  if (mimeType !== "") return isTextMimeType(mimeType);
  return !body.subarray(0, 1024).includes(0);
}

/**
 * Sets a fetched or uploaded page's `text` and `charset` when its body is text (see {@link looksLikeText}), decoded
 * under `contentTypeHeader` as {@link decodeText} does; a binary body gets neither.
 */
export function attachText(page: Pick<Page, "body" | "contentType" | "text" | "charset">, contentTypeHeader: string | null | undefined): void {
  if (!looksLikeText(page.contentType, page.body)) return;
  const decoded = decodeText(page.body, page.contentType, contentTypeHeader);
  page.text = decoded.text;
  page.charset = decoded.charset;
}

/** Decodes a text body; never throws (invalid sequences become U+FFFD). */
export function decodeText(
  bytes: Uint8Array,
  mimeType: string,
  contentTypeHeader?: string | null,
): { text: string; charset: string; source: CharsetSource } {
  const declared = declaredCharset(bytes, mimeType, contentTypeHeader);
  if (!declared) {
    // Unlabelled: the UTF-8 validity check already produces the text, so decode once, not twice.
    const utf8 = strictUtf8(bytes);
    if (utf8 !== undefined) return { text: utf8, charset: "utf-8", source: "utf8-valid" };
  }
  const sniffed = declared ?? undeclaredFallback(mimeType);
  const text = decoderFor(sniffed.charset).decode(bytes.subarray(sniffed.bomBytes));
  return { text, charset: sniffed.charset, source: sniffed.source };
}
