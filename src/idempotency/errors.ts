/**
 * @module idempotency/errors
 * The errors of idempotency keys: upstream's `x-idempotency-key` reuse (409, its exact message) and the
 * `Idempotency-Key` header's cases from draft-ietf-httpapi-idempotency-key-header (reliability.md B2).
 */
import { CrawlboxError } from "../errors.ts";

/** 409: the key was used before and its request is not to be run again (upstream's code and message). */
export class IdempotencyKeyUsedError extends CrawlboxError {
  constructor(message = "Idempotency key already used") {
    super("IDEMPOTENCY_KEY_USED", 409, message);
  }
}

/** 400: the `Idempotency-Key` header is empty, too long or not printable ASCII. */
export class InvalidIdempotencyKeyError extends CrawlboxError {
  constructor(maxLength: number) {
    super("IDEMPOTENCY_KEY_INVALID", 400, `The Idempotency-Key header must be 1 to ${maxLength} printable ASCII characters (optionally in double quotes).`, {
      details: { maxLength },
    });
  }
}

/** 422: the key was first used with a different request (another body or route). */
export class IdempotencyKeyMismatchError extends CrawlboxError {
  constructor() {
    super("IDEMPOTENCY_KEY_MISMATCH", 422, "This Idempotency-Key was already used with a different request; use a new key for a new request.");
  }
}

/** 409: the first request with this key is still running; retry after it finished. */
export class IdempotencyKeyInFlightError extends CrawlboxError {
  constructor() {
    super("IDEMPOTENCY_KEY_IN_FLIGHT", 409, "A request with this Idempotency-Key is still being processed; retry once it has finished.", {
      retryable: true,
    });
  }
}
