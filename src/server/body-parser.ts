/**
 * @module server/body-parser
 * Reads request bodies as JSON with a byte limit, whatever the Content-Type says (curl's `-d` sends
 * form-encoded headers with JSON bodies). The limit is enforced while reading, so a chunked body without a
 * Content-Length cannot grow past it either.
 */
import { BadRequestError, InvalidJsonError, PayloadTooLargeError, RequestBodyTimeoutError } from "../errors.ts";

/** 413 when `request` declares a body over `limitBytes`, before anything is read. */
function refuseDeclaredOver(request: Request, limitBytes: number): number {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
  return declared;
}

/**
 * Reads at most `limitBytes` of `request`'s body, chunked or not ({@link PayloadTooLargeError} beyond, the
 * declared size checked before reading anything), and, with `timeoutMs`, within that time
 * ({@link RequestBodyTimeoutError}): a client sending slowly must not hold the server's resources for ever.
 */
export async function readBodyBytes(request: Request, limitBytes: number, timeoutMs?: number): Promise<Uint8Array> {
  refuseDeclaredOver(request, limitBytes);
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late =
      deadline === undefined
        ? undefined
        : new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new RequestBodyTimeoutError(timeoutMs!)), Math.max(0, deadline - performance.now()));
          });
    const { done, value } = await (late ? Promise.race([reader.read(), late]) : reader.read())
      .catch(async (err: unknown) => {
        await reader.cancel().catch(() => {});
        throw err;
      })
      .finally(() => clearTimeout(timer));
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * Reads at most `limitBytes` of `request`'s body as UTF-8 text; throws {@link PayloadTooLargeError} beyond and, with
 * `timeoutMs`, {@link RequestBodyTimeoutError} when it has not all arrived by then (a client that declares 229 bytes
 * and sends 10 held its connection until the server's idle timeout, 255 s, and hundreds of them its sockets).
 */
export async function readBodyText(request: Request, limitBytes: number, timeoutMs?: number): Promise<string> {
  const declared = refuseDeclaredOver(request, limitBytes);
  if (!request.body) return "";
  if (Number.isFinite(declared) && request.headers.get("transfer-encoding") === null) {
    // Fast path, every SDK request: the size is declared and within the limit, and HTTP/1.1 framing stops the
    // read at that size, so one native read is as bounded as the loop of readBodyBytes and skips the stream
    // machinery (≈ 0.1 ms per request on a busy server, where that JS is cold).
    if (timeoutMs === undefined) return await request.text();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RequestBodyTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      return await Promise.race([request.text(), late]);
    } finally {
      clearTimeout(timer);
    }
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(await readBodyBytes(request, limitBytes, timeoutMs));
}

/** Deepest nesting of arrays and objects accepted in a JSON body; no /v2 body needs more than a few levels. */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether `text` nests arrays/objects deeper than `max` (outside strings). Deep nesting overflows the stack of
 * the recursive validators behind every route, which would be a 500; only bodies long enough to nest that deep
 * are scanned.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/**
 * Parses a request body as JSON, read within `timeoutMs` (see {@link readBodyText}); an empty body is `{}` so that
 * validation names the missing fields.
 */
export async function parseJsonBody(request: Request, limitBytes: number, timeoutMs?: number): Promise<unknown> {
  const text = await readBodyText(request, limitBytes, timeoutMs);
  if (text.trim() === "") return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new BadRequestError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let protoKey = false;
  let body: unknown;
  try {
    // A `__proto__` key parses as an own property, which any later `Object.assign` or `o[k] = v` copy makes the
    // copy's prototype: its fields were then read as options past the strict schema. Looked for only when present.
    body = text.includes("__proto__") ? JSON.parse(text, (key, value) => ((protoKey ||= key === "__proto__"), value)) : JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
  if (protoKey) throw new BadRequestError("The JSON body has a `__proto__` key, which no body takes.", [{ code: "unrecognized_keys", path: [], keys: ["__proto__"], message: "Unrecognized key(s) in object: '__proto__'" }]);
  return body;
}

/**
 * The body of a multipart upload to `POST /v2/parse`, not read yet: the route reads it (parse/multipart.ts) only
 * after authentication, within a time limit and with its own size limit, so an unauthenticated upload costs nothing.
 */
export class DeferredUpload {}
