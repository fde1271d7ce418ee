/**
 * @module idempotency/guard
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header; reliability.md B2) on the
 * POST routes that start work: `/v2/scrape`, `/v2/crawl`, `/v2/batch/scrape`. A client that lost a response
 * (timeout, dropped connection) retries with the same key and gets the first response again instead of a second
 * scrape, crawl or charge:
 *
 * - a new key runs the request; a 2xx answer is stored for 24 h with a hash of the request;
 * - the same key and request again → the stored answer, with `Idempotent-Replayed: true`, nothing charged;
 * - the same key with another body or route → 422 `IDEMPOTENCY_KEY_MISMATCH`;
 * - while the first request still runs → 409 `IDEMPOTENCY_KEY_IN_FLIGHT`;
 * - a request that failed keeps nothing: retrying it with the same key runs it again (Stripe's rule for
 *   requests that failed before doing anything; our failures charge nothing and store nothing);
 * - a scrape with `zeroDataRetention` keeps no response: a retry gets 409 `IDEMPOTENCY_KEY_USED`.
 *
 * Keys are per API key. Without the header nothing changes. Upstream's `x-idempotency-key` (crawl and batch:
 * 409 on any reuse) is checked by the job service when the request runs; a replay answers before it, so a
 * retry that repeats both headers gets its job back rather than upstream's 409.
 */
import type { KeyIdentity } from "../auth/keys.ts";
import type { Logger } from "../log.ts";
import { IdempotencyKeyInFlightError, IdempotencyKeyMismatchError, IdempotencyKeyUsedError, InvalidIdempotencyKeyError } from "./errors.ts";
import type { IdempotencyStore } from "./store.ts";

/** The request header. */
export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Set on a replayed response (Stripe's name). */
export const REPLAYED_HEADER = "idempotent-replayed";
/** Largest answer kept for replay (characters of JSON); a larger one is answered and its key marked used. */
export const MAX_KEPT_ANSWER_CHARS = 5 * 1024 * 1024;
/** Longest accepted key (Stripe: 255). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The header as an OpenAPI parameter, for the routes' documentation. */
export const IDEMPOTENCY_PARAMETER = {
  in: "header",
  name: "Idempotency-Key",
  required: false,
  description:
    "Makes a retry safe: a successful answer is kept 24 h and replayed (header Idempotent-Replayed: true) for the same key and request, without running or charging again. Another request with the key: 422; while the first runs: 409. 1–255 printable ASCII characters.",
  schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
} as const;

/** The key of `headers`, undefined without the header; throws 400 for an unusable value. */
export function idempotencyKeyOf(headers: Headers): string | undefined {
  const raw = headers.get(IDEMPOTENCY_HEADER);
  if (raw === null) return undefined;
  // The draft's form is a structured-field string ("…"); Stripe's clients send the bare value. Both are accepted.
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(value)) {
    throw new InvalidIdempotencyKeyError(MAX_IDEMPOTENCY_KEY_LENGTH);
  }
  return value;
}

/** JSON with object keys sorted at every level, so that key order and spacing do not make two requests differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Hex SHA-256 of the method, path, upstream's `x-idempotency-key` (if any) and canonical body: what "the same
 * request" means. The `x-` key is part of it so that a new `x-` key under an old `Idempotency-Key` is a 422, not
 * a replay of the old job that would leave the new `x-` key unrecorded.
 */
export function requestHash(method: string, path: string, body: unknown, upstreamKey: string | null = null): string {
  return new Bun.CryptoHasher("sha256").update(`${method} ${path}\n${JSON.stringify(upstreamKey)}\n${canonicalJson(body)}`).digest("hex");
}

/** What {@link idempotent} needs to know about the request. */
export interface IdempotentCall {
  request: Request;
  who: KeyIdentity;
  /** The parsed JSON body, as received. */
  body: unknown;
  /** Whether the response may be stored (false for zeroDataRetention scrapes). */
  keepResponse: boolean;
  /** Where a failure to store the answer is reported. */
  log?: Pick<Logger, "warn">;
}

/**
 * Runs `handler` under the request's `Idempotency-Key`, if it has one (see the module note). Without the header
 * the handler's value is returned as is; with it, a JSON `Response` whose bytes are the ones stored.
 */
export async function idempotent<T extends object>(
  store: IdempotencyStore,
  now: () => number,
  call: IdempotentCall,
  handler: () => T | Promise<T>,
): Promise<T | Response> {
  const key = idempotencyKeyOf(call.request.headers);
  if (key === undefined) return handler();
  const { keyId } = call.who;
  const hash = requestHash(call.request.method, new URL(call.request.url).pathname, call.body, call.request.headers.get("x-idempotency-key"));
  const claim = store.claim(keyId, key, hash, now());
  switch (claim.kind) {
    case "mismatch":
      throw new IdempotencyKeyMismatchError();
    case "in-flight":
      throw new IdempotencyKeyInFlightError();
    case "not-kept":
      throw new IdempotencyKeyUsedError("Idempotency key already used: the request ran, but its response was not kept to replay (zeroDataRetention, or an answer over 5 MiB).");
    case "replay":
      return jsonResponse(claim.response, claim.status, { [REPLAYED_HEADER]: "true" });
  }
  let text: string;
  let answer: T;
  try {
    answer = await handler();
    text = JSON.stringify(answer);
  } catch (err) {
    store.release(keyId, key, claim.claim);
    throw err;
  }
  try {
    // A very large answer (a scrape with rawHtml of a big page) is not kept twice: reuse is then a 409, as for zdr.
    store.complete(keyId, key, claim.claim, 200, call.keepResponse && text.length <= MAX_KEPT_ANSWER_CHARS ? text : null);
  } catch (err) {
    // The work is done and charged: the client gets its answer. Without a stored copy the claim is released, so
    // a retry runs again (as a request without the header would) instead of meeting a 409 for 15 minutes.
    store.release(keyId, key, claim.claim);
    call.log?.warn("could not keep an Idempotency-Key answer", { error: String(err) });
  }
  const response = jsonResponse(text, 200, {});
  firstAnswers.set(response, answer);
  return response;
}

/** The handler's own answer behind each first-run `Response` (a replay has none: it started nothing). */
const firstAnswers = new WeakMap<Response, object>();

/**
 * What the handler answered, for a `Response` {@link idempotent} made when it ran the request: hooks that read a
 * route's answer (the activity log) see the same object with the header as without it. Undefined for a replay.
 */
export function firstAnswerOf(response: Response): object | undefined {
  return firstAnswers.get(response);
}

/** The content type Elysia gives the same object answers, so that the header changes no response header. */
const JSON_CONTENT_TYPE = "application/json;charset=utf-8";

function jsonResponse(text: string, status: number, headers: Record<string, string>): Response {
  return new Response(text, { status, headers: { "content-type": JSON_CONTENT_TYPE, ...headers } });
}
