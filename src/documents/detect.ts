/**
 * @module documents/detect
 * What a fetched body really is, from its magic bytes first and its content type second: servers label PDFs
 * `application/octet-stream` or even `text/html`, and an URL's extension says nothing reliable.
 *
 * Any kind but `unknown` (and `rtf`) is not text to the scrape (scrape/service.ts `isRenderable`): served as
 * `text/html` with no parser for it, it is a 422 naming what the bytes are, not a 200 of junk markdown. That is why
 * compressed streams, archives and executables are recognised although nothing parses them (a gzip body sent
 * without `Content-Encoding`, a binary behind a mislabelled download link), and why a body labelled as text whose
 * first KiB is largely control bytes is `binary` ({@link mostlyBinary}).
 */
import { isTextMimeType } from "../engines/charset.ts";
import type { Page } from "../engines/types.ts";
import { CompoundFile, isCompoundFile } from "./office/cfb.ts";
import { CONTENT_TYPES, ContentTypes, PACKAGE_RELS, PackageReader, partOfType, readRelationships, type PackageParts, type Relationship } from "./office/opc-package.ts";

/** Kinds of document the parsers and media formats know, and binary kinds no parser reads (never text). */
export type DocumentKind =
  | "pdf" | "png" | "jpeg" | "webp" | "tiff" | "gif" | "bmp"
  | "docx" | "xlsx" | "xlsb" | "odt" | "ods" | "rtf" | "zip" | "xls" | "doc"
  | "audio" | "video"
  | "gzip" | "zstd" | "bzip2" | "xz" | "lz4" | "7z" | "rar" | "elf" | "exe" | "mach-o" | "wasm" | "sqlite"
  | "binary"
  | "unknown";

/** Bytes `from`..`to` as Latin-1 text (a loop: spreading a subarray into fromCharCode was a hot spot). */
function ascii(b: Uint8Array, from: number, to: number): string {
  let out = "";
  for (let i = from; i < to && i < b.length; i++) out += String.fromCharCode(b[i]!);
  return out;
}

function startsWith(b: Uint8Array, bytes: number[], at = 0): boolean {
  return bytes.every((x, i) => b[at + i] === x);
}

const encoder = new TextEncoder();

/** Where `needle` first starts within the first `limit` bytes of `b` (-1: nowhere). */
function indexOf(b: Uint8Array, needle: string, limit = b.length): number {
  if (limit <= 0) return -1;
  const n = encoder.encode(needle);
  // Native search (a damaged 49 MB compound file is scanned whole: ~95 ms a byte at a time in JavaScript); the view
  // ends where a match starting before `limit` would end.
  const view = Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, Math.max(0, limit - 1) + n.length));
  return view.indexOf(n);
}

/** `s` as UTF-16LE code units spelled out as Latin-1 characters, for {@link contains} (stream names of compound files). */
const utf16 = (s: string) => [...s].map((c) => c + "\0").join("");

/**
 * A legacy Office file by its root streams: `WordDocument` is Word's, `Workbook` (or Excel 5's `Book`) Excel's.
 * Only the root counts: a workbook embedding a Word object holds a `WordDocument` stream further down, and a cell
 * may even say "WordDocument" (searched for in the bytes, such a workbook was read as a damaged DOC). A directory
 * that cannot be read (a damaged file) is told by the names its bytes hold, so that its reader says what is wrong
 * with it; other compound files (Outlook's, PowerPoint's) stay unknown.
 */
function compoundKind(b: Uint8Array): DocumentKind {
  let names: string[];
  try {
    names = new CompoundFile(b, "Office").rootStreamNames().map((n) => n.toLowerCase());
  } catch {
    if (contains(b, utf16("WordDocument"))) return "doc";
    return contains(b, utf16("Workbook")) || contains(b, utf16("Book\0")) ? "xls" : "unknown";
  }
  if (names.includes("worddocument")) return "doc";
  if (names.includes("workbook") || names.includes("book")) return "xls";
  return "unknown";
}

/** True when `needle` occurs in `b`. */
function contains(b: Uint8Array, needle: string): boolean {
  return indexOf(b, needle) >= 0;
}

/** The content type of an XLSB's main part (MS-XLSB 2.1.2), lower-case as {@link ContentTypes} gives it. */
const XLSB_MAIN = "application/vnd.ms-excel.sheet.binary.macroenabled.main";

/** Most bytes the package's relationships and content types may inflate to while its kind is worked out. */
const PACKAGE_METADATA_BYTES = 1024 * 1024;

/**
 * Whether the zip `b` is an XLSB: decided by its main part, the one its relationships name (`officeDocument` in
 * `_rels/.rels`), by that part's content type in `[Content_Types].xml` or, without one, its `.bin` name; without
 * relationships, by the conventional `xl/workbook.bin` among the zip's entries and no `xl/workbook.xml`. Not by
 * whatever bytes the archive holds: an XLSX whose main part is `xl/workbook2.xml` and that embeds a workbook saved
 * as XLSB (stored, so its entry names lie in the outer file's bytes) was refused as an XLSB. A zip whose directory
 * cannot be read is told by the names in its bytes, so that a truncated XLSB is still named as one.
 */
function isBinaryWorkbook(b: Uint8Array): boolean {
  const reader = new PackageReader(b, "XLSX", PACKAGE_METADATA_BYTES);
  let parts: PackageParts;
  try {
    parts = reader.read([PACKAGE_RELS, CONTENT_TYPES]);
  } catch {
    // A damaged directory, or metadata past the allowance: the names in the bytes are all there is to go by.
    return contains(b, "xl/workbook.bin") && !contains(b, "xl/workbook.xml");
  }
  let rels: Relationship[] = [];
  try {
    const packageRels = parts.part(PACKAGE_RELS);
    if (packageRels) rels = readRelationships(packageRels, PACKAGE_RELS, "XLSX");
  } catch {
    // relationships that are not XML name no main part
  }
  const main = partOfType(rels, "officeDocument", "");
  if (main) {
    const type = new ContentTypes(parts.part(CONTENT_TYPES)).of(main);
    return type ? type === XLSB_MAIN : main.toLowerCase().endsWith(".bin");
  }
  return reader.has("xl/workbook.bin") && !reader.has("xl/workbook.xml");
}

/** DIB header sizes a BMP file starts its bitmap header with (after the 14-byte file header). */
const BMP_DIB_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);
/** The start of an HTML document. */
const HTML_START = /<(!doctype|html|head|body|meta|title)\b/i;

/** Whether the `%PDF-` at `at` is a header line: at a line's start, a version (`1.7`), then the line's end. */
function isHeaderLine(b: Uint8Array, at: number): boolean {
  if (b[at - 1] !== 0x0a && b[at - 1] !== 0x0d) return false;
  return /^%PDF-\d\.\d(?:[\r\n]|$)/.test(ascii(b, at, at + 10));
}

/**
 * Compressed streams, archives and executables by their magic numbers (each has a byte no text starts with).
 * Recognised so that they are refused whatever type they are served as; none is parsed.
 */
const BINARY_MAGIC: readonly (readonly [DocumentKind, readonly number[]])[] = [
  ["gzip", [0x1f, 0x8b, 0x08]], // RFC 1952 (deflate, the only method defined)
  ["zstd", [0x28, 0xb5, 0x2f, 0xfd]], // RFC 8878
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["lz4", [0x04, 0x22, 0x4d, 0x18]], // LZ4 frame format
  ["7z", [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ["rar", [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]], // "Rar!\x1a\x07", RAR 4 and 5
  ["elf", [0x7f, 0x45, 0x4c, 0x46]], // "\x7fELF"
  ["wasm", [0x00, 0x61, 0x73, 0x6d]], // "\0asm"
  ["mach-o", [0xfe, 0xed, 0xfa, 0xce]],
  ["mach-o", [0xfe, 0xed, 0xfa, 0xcf]],
  ["mach-o", [0xce, 0xfa, 0xed, 0xfe]],
  ["mach-o", [0xcf, 0xfa, 0xed, 0xfe]],
  ["sqlite", [...encoder.encode("SQLite format 3\0")]],
];

/** bzip2: "BZh", a block size digit, then a block's or the end's 48-bit magic (π or √π): "BZh9" alone starts texts. */
function isBzip2(b: Uint8Array): boolean {
  if (ascii(b, 0, 3) !== "BZh" || b[3]! < 0x31 || b[3]! > 0x39) return false;
  return startsWith(b, [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], 4) || startsWith(b, [0x17, 0x72, 0x45, 0x38, 0x50, 0x90], 4);
}

/** A Windows executable (PE): "MZ", then at the offset the DOS header gives (0x3C), "PE\0\0". "MZ" alone starts texts. */
function isPortableExecutable(b: Uint8Array): boolean {
  if (ascii(b, 0, 2) !== "MZ" || b.length < 0x40) return false;
  const peAt = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0x3c, true);
  return peAt >= 0x40 && peAt <= b.length - 4 && ascii(b, peAt, peAt + 4) === "PE\0\0";
}

/** The kind of `body` from magic bytes alone (`unknown` when nothing matches). */
export function sniffBytes(b: Uint8Array): DocumentKind {
  if (b.length < 4) return "unknown";
  // A text's byte order mark (UTF-8, UTF-16 LE/BE): text, whatever follows. `FF FE` also passes for an MPEG audio
  // frame's sync below, and a UTF-16 page was refused as an audio file.
  if (startsWith(b, [0xef, 0xbb, 0xbf]) || startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return "unknown";
  // %PDF- may follow a few junk bytes (the spec allows it within the first 1 KiB; a PHP notice often), but then as
  // a header line of its own, and not after the start of an HTML document: a page that mentions "%PDF-" near its top
  // (a Markdown note on the format, a `<code>%PDF-1.7</code>`) is a page, and was refused as a corrupt PDF.
  const pdfAt = indexOf(b, "%PDF-", 1024);
  if (pdfAt === 0 || (pdfAt > 0 && isHeaderLine(b, pdfAt) && !HTML_START.test(ascii(b, 0, pdfAt)))) return "pdf";
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47])) return "png";
  if (startsWith(b, [0xff, 0xd8, 0xff])) return "jpeg";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "webp";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WAVE") return "audio";
  if (ascii(b, 0, 4) === "II*\0" || ascii(b, 0, 4) === "MM\0*") return "tiff";
  if (ascii(b, 0, 4) === "GIF8") return "gif";
  // "BM" alone starts many texts (a CSV's "BMI,…"): the DIB header that follows must have a known size.
  if (ascii(b, 0, 2) === "BM" && b.length > 26 && BMP_DIB_SIZES.has(new DataView(b.buffer, b.byteOffset).getUint32(14, true))) return "bmp";
  if (ascii(b, 0, 5) === "{\\rtf") return "rtf";
  // A compound file (legacy Office): which one by the stream names its directory holds (UTF-16). The reader checks
  // that the stream is the root's; other compound files (Outlook messages, PowerPoint) stay unknown binaries.
  if (isCompoundFile(b)) return compoundKind(b);
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) {
    if (ascii(b, 30, 38) === "mimetype" && ascii(b, 38, 77).startsWith("application/vnd.oasis.opendocument.text")) return "odt";
    if (ascii(b, 30, 38) === "mimetype" && ascii(b, 38, 84).startsWith("application/vnd.oasis.opendocument.spreadsheet")) return "ods";
    if (contains(b, "word/document.xml") || contains(b, "word/_rels")) return "docx";
    // Excel's binary workbook (BIFF12 records in the same package: xl/workbook.bin) has no reader: named as such so
    // that it is refused as an unsupported type rather than read as an XLSX and called damaged.
    if (isBinaryWorkbook(b)) return "xlsb";
    if (contains(b, "xl/workbook.xml") || contains(b, "xl/_rels")) return "xlsx";
    return "zip";
  }
  if (ascii(b, 0, 3) === "ID3" || ascii(b, 0, 4) === "OggS" || ascii(b, 0, 4) === "fLaC") return "audio";
  if (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0) return "audio"; // MPEG audio frame / ADTS
  if (ascii(b, 4, 8) === "ftyp") return /^(M4A |M4B |mp4a)/.test(ascii(b, 8, 12)) ? "audio" : "video";
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return "video"; // Matroska / WebM
  for (const [kind, magic] of BINARY_MAGIC) if (startsWith(b, magic as number[])) return kind;
  if (isBzip2(b)) return "bzip2";
  if (isPortableExecutable(b)) return "exe";
  return "unknown";
}

/** How much of a body {@link mostlyBinary} reads: the first KiB, as the HTML encoding prescan and looksLikeText. */
export const BINARY_SNIFF_BYTES = 1024;
/** The share of binary data bytes from which a body labelled as text is `binary`: random bytes have about 10.5%. */
export const BINARY_BYTE_SHARE = 0.03;

/**
 * WHATWG MIME Sniffing's "binary data byte": a C0 control other than TAB, LF, FF, CR and ESC, which texts use (ESC
 * in ISO-2022-JP's shifts). Legacy single- and multi-byte charsets (windows-125x, Shift_JIS, GBK…) never need them.
 */
function isBinaryDataByte(x: number): boolean {
  return x <= 0x08 || x === 0x0b || (x >= 0x0e && x <= 0x1a) || (x >= 0x1c && x <= 0x1f);
}

/**
 * Whether the first KiB of `b` is largely binary data bytes: at least {@link BINARY_BYTE_SHARE} of it, and two of
 * them (a stray NUL or two in a broken page is not enough). Compressed or encrypted data without a magic number
 * (brotli without its `Content-Encoding`, random bytes) have about 10%; text has none. Not for UTF-16, whose ASCII
 * characters each carry a NUL: the caller leaves UTF-16 bodies out.
 */
export function mostlyBinary(b: Uint8Array): boolean {
  const n = Math.min(b.length, BINARY_SNIFF_BYTES);
  let count = 0;
  for (let i = 0; i < n; i++) if (isBinaryDataByte(b[i]!)) count++;
  return count >= 2 && count >= n * BINARY_BYTE_SHARE;
}

/** Whether `page` is UTF-16 text: a UTF-16 byte order mark, or a charset (header or BOM) that decoded it as such. */
function isUtf16(page: Pick<Page, "body" | "charset">): boolean {
  const b = page.body;
  return (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff) || (page.charset?.startsWith("utf-16") ?? false);
}

const TYPE_KINDS: [RegExp, DocumentKind][] = [
  [/^application\/(x-)?pdf$/, "pdf"],
  [/^image\/png$/, "png"],
  [/^image\/(jpeg|jpg|pjpeg)$/, "jpeg"],
  [/^image\/webp$/, "webp"],
  [/^image\/tiff$/, "tiff"],
  [/^image\/gif$/, "gif"],
  [/^image\/(bmp|x-ms-bmp)$/, "bmp"],
  [/^application\/vnd\.openxmlformats-officedocument\.wordprocessingml\.document$/, "docx"],
  [/^application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet$/, "xlsx"],
  [/^application\/vnd\.ms-excel$/, "xls"],
  [/^application\/msword$/, "doc"],
  [/^application\/vnd\.oasis\.opendocument\.text$/, "odt"],
  [/^application\/vnd\.oasis\.opendocument\.spreadsheet$/, "ods"],
  [/^(application|text)\/rtf$/, "rtf"],
  [/^audio\//, "audio"],
  [/^video\//, "video"],
];

/** Kinds already worked out per body: every parser's `accepts` asks, for every page. */
const detected = new WeakMap<Uint8Array, { contentType: string; charset: string | undefined; kind: DocumentKind }>();

/**
 * The kind of a fetched page: magic bytes win; the content type decides only when the bytes say nothing. A body
 * labelled as text (or not labelled) that is neither UTF-16 nor made of characters ({@link mostlyBinary}) is
 * `binary`.
 */
export function detectKind(page: Pick<Page, "body" | "contentType" | "charset">): DocumentKind {
  const known = detected.get(page.body);
  if (known && known.contentType === page.contentType && known.charset === page.charset) return known.kind;
  const kind = detectUncached(page);
  detected.set(page.body, { contentType: page.contentType, charset: page.charset, kind });
  return kind;
}

function detectUncached(page: Pick<Page, "body" | "contentType" | "charset">): DocumentKind {
  const sniffed = sniffBytes(page.body);
  if (sniffed === "video" && page.contentType.startsWith("audio/")) return "audio";
  if (sniffed !== "unknown") return sniffed;
  // A type alone does not make a document the bytes do not show: a mislabelled body is not parsed as one (an RTF
  // parse of random bytes labelled application/rtf gave junk markdown).
  for (const [re, kind] of TYPE_KINDS) if (re.test(page.contentType)) return kind === "pdf" || kind === "docx" || kind === "xlsx" || kind === "xls" || kind === "doc" || kind === "odt" || kind === "ods" || kind === "rtf" ? "unknown" : kind;
  const textLabelled = page.contentType === "" || isTextMimeType(page.contentType);
  return textLabelled && !isUtf16(page) && mostlyBinary(page.body) ? "binary" : "unknown";
}

/** Image kinds the OCR parser reads. */
export const OCR_IMAGE_KINDS: ReadonlySet<DocumentKind> = new Set(["png", "jpeg", "webp", "tiff", "gif", "bmp"]);
