/**
 * @module parse/multipart
 * A strict multipart/form-data reader (RFC 7578) for `POST /v2/parse`. Bun's `Request.formData()` drops each
 * part's own `Content-Type` and guesses one from the file name (measured on Bun 1.4.5: a `.txt` part sent as
 * `text/html` becomes `text/plain;charset=utf-8`), which would decode an upload with the wrong type and charset.
 * This reader keeps the part headers as sent. It reads the body with a byte limit (413 beyond, chunked or not) and
 * a time limit (408), after the route has authenticated the caller and before it takes a scrape slot.
 */
import { BadRequestError } from "../errors.ts";
import { readBodyBytes } from "../server/body-parser.ts";

/** Parts read at most: a parse upload has two (`file`, `options`); many empty parts would only cost CPU. */
export const MAX_PARTS = 16;

/** One part of the body. */
export interface FormPart {
  name: string;
  filename?: string;
  /** The part's `Content-Type` header as sent; empty when absent. */
  contentType: string;
  data: Uint8Array;
}

/** A header parameter (`name="x"`), unquoted; undefined when absent. */
function param(header: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!.trim();
}

/**
 * An extended parameter (`filename*=UTF-8''%E2%82%AC%20rates.pdf`, RFC 8187), decoded; undefined when absent or
 * not decodable. Clients that cannot put a non-ASCII name in `filename` (.NET, Java) send it this way, and it wins
 * over `filename` (RFC 6266 §4.3).
 */
function extParam(header: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${key}\\*\\s*=\\s*"?([^'";]*)'[^']*'([^;"]*)"?`, "i").exec(header);
  if (!m) return undefined;
  const charset = m[1]!.trim().toLowerCase();
  const bytes: number[] = [];
  for (let i = 0; i < m[2]!.length; i++) {
    const c = m[2]![i]!;
    if (c === "%" && /^[0-9a-f]{2}$/i.test(m[2]!.slice(i + 1, i + 3))) {
      bytes.push(parseInt(m[2]!.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0) & 0xff);
  }
  if (charset === "iso-8859-1") return bytes.map((b) => String.fromCharCode(b)).join(""); // each byte its code point
  if (charset !== "utf-8") return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

const bad = (why: string) => new BadRequestError(`The multipart/form-data body could not be read: ${why}.`);

/** The parts of a multipart/form-data request, read with a limit of `limitBytes` within `timeoutMs`. */
export async function readMultipart(request: Request, limitBytes: number, timeoutMs = 60_000): Promise<FormPart[]> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) throw bad("the Content-Type is not multipart/form-data");
  const boundary = param(type, "boundary");
  if (!boundary || boundary.length > 200) throw bad("the Content-Type has no usable boundary");
  const raw = await readBodyBytes(request, limitBytes, timeoutMs);
  const body = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength); // a view, not a copy
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw bad("the boundary does not occur in the body");
  const parts: FormPart[] = [];
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString("latin1") === "--") return parts; // the closing delimiter
    if (body.subarray(pos, pos + 2).toString("latin1") !== "\r\n") throw bad("a boundary line is malformed");
    pos += 2;
    const headerEnd = body.indexOf("\r\n\r\n", pos);
    if (headerEnd < 0) throw bad("a part has no end of headers");
    const headers = new Map<string, string>();
    for (const line of body.subarray(pos, headerEnd).toString("utf8").split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) throw bad("a part is not closed by the boundary");
    const disposition = headers.get("content-disposition") ?? "";
    const name = param(disposition, "name");
    if (!/^form-data\b/i.test(disposition) || name === undefined) throw bad("a part has no Content-Disposition: form-data name");
    const filename = extParam(disposition, "filename") ?? param(disposition, "filename");
    if (parts.length === MAX_PARTS) throw bad(`more than ${MAX_PARTS} parts`);
    parts.push({ name, ...(filename !== undefined ? { filename } : {}), contentType: headers.get("content-type") ?? "", data: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
}
