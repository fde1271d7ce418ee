/**
 * @module llm/pinned-fetch
 * The one exemption from the egress gate: LLM providers talk to the operator's own model server, which is
 * usually on loopback or the private network (exactly what the gate refuses). The exemption is as narrow as
 * it can be: a fetch bound to the configured base URL that
 * - refuses any URL whose origin differs from the configured one, or whose path leaves the configured path,
 * - never follows redirects (a redirect could point anywhere; `redirect: "error"`).
 * Page content never decides where this fetch goes; only the operator's configuration does.
 */

/** Thrown when code asks the pinned fetch for another address (a bug, never a user input). */
export class PinnedFetchRefusedError extends Error {}

/** Largest LLM response body read (an answer is a few KB; a runaway server must not exhaust memory). @default 8 MiB */
export const MAX_LLM_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Thrown when the LLM endpoint sends more than {@link MAX_LLM_RESPONSE_BYTES}. */
export class LlmResponseTooLargeError extends Error {}

async function readCapped(res: Response, maxBytes: number): Promise<Response> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new LlmResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new LlmResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A fetch that reaches only `baseUrl` and paths below it, reading at most `maxResponseBytes` of an answer. */
export function createPinnedFetch(baseUrl: string, inner: typeof fetch = fetch, maxResponseBytes = MAX_LLM_RESPONSE_BYTES): typeof fetch {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const pinned = async function pinnedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const target = new URL(raw);
    const path = target.pathname;
    if (target.origin !== base.origin || (prefix !== "" && path !== prefix && !path.startsWith(`${prefix}/`))) {
      throw new PinnedFetchRefusedError(`this pinned fetch may only go to ${base.origin}${prefix}, not ${target.origin}${path}`);
    }
    if (target.username !== "" || target.password !== "") throw new PinnedFetchRefusedError("credentials in pinned URLs are not allowed");
    const req = input instanceof Request ? input : undefined;
    const res = await inner(target.href, {
      method: init?.method ?? req?.method,
      headers: init?.headers ?? req?.headers,
      body: init?.body ?? (req ? await req.arrayBuffer() : undefined),
      signal: init?.signal ?? req?.signal,
      redirect: "error",
    });
    return readCapped(res, maxResponseBytes);
  };
  return pinned as typeof fetch;
}
