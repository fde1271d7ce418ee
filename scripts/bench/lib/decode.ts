/**
 * @module bench/lib/decode
 * Bytes of a stored page → string, with the browser's order of precedence reduced to what a stored file has:
 * byte-order mark, then a `<meta charset>` / `http-equiv` declaration in the first 1024 bytes, then UTF-8.
 */

/** How far into the document the HTML standard's prescan looks for a `<meta>` charset. */
const PRESCAN_BYTES = 1024;
const META_CHARSET_RE = /<meta[^>]+?charset\s*=\s*["']?\s*([\w.:-]+)/i;

/** Find the encoding label of an HTML byte stream. */
export function sniffCharset(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, PRESCAN_BYTES));
  const label = META_CHARSET_RE.exec(head)?.[1]?.toLowerCase();
  // A meta declaration of UTF-16 is a lie by definition (the bytes we just read as ASCII were ASCII).
  if (!label || label.startsWith("utf-16")) return "utf-8";
  return label === "x-user-defined" ? "windows-1252" : label;
}

/** Decode HTML bytes using {@link sniffCharset}; unknown labels fall back to UTF-8. */
export function decodeHtml(bytes: Uint8Array): string {
  const label = sniffCharset(bytes);
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
