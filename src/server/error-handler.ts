/**
 * @module server/error-handler
 * The one place where errors become HTTP responses. Typed {@link CrawlboxError}s keep their code and status;
 * Elysia's own errors (parse, validation, not found) are mapped to the /v2 envelope; anything else is a 500
 * with an exception id that is also logged, so a client never sees a stack and an operator can find the cause.
 */
import { BadRequestError, CrawlboxError, InvalidJsonError, NotFoundError, ServerStoppingError, toCrawlboxError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { badRequest, issuesFromValidationError } from "../api/validate.ts";

/**
 * 499 (nginx's "client closed request"): the client went away while its request ran, so the work was stopped. Nobody
 * reads the answer; it is typed so that the stop is not logged as an unhandled error with an exception id.
 */
export class ClientClosedRequestError extends CrawlboxError {
  constructor() {
    super("CLIENT_CLOSED_REQUEST", 499, "The client closed the connection before the answer was ready.");
  }
}

/**
 * Maps an error raised anywhere in a request to `{status, body}`. `clientGone`: the request's own signal has aborted
 * (the client disconnected), so an abort it caused is that, not a fault. `serverStopped`: the stopping server's grace
 * has ended (server/request-drain.ts), so an untyped failure now (an aborted fetch, a closed browser page) is the
 * stop's doing: `503 SERVER_STOPPING`, which a client may retry, not a 500 with an exception id.
 */
export function mapError(code: string | number, error: unknown, log: Logger, clientGone = false, serverStopped = false): CrawlboxError {
  if (error instanceof CrawlboxError) return error;
  if (clientGone) {
    log.debug("request stopped: the client went away", { error: String(error) });
    return new ClientClosedRequestError();
  }
  switch (code) {
    case "PARSE":
      return (error as { cause?: unknown })?.cause instanceof CrawlboxError
        ? ((error as { cause: CrawlboxError }).cause)
        : new InvalidJsonError();
    case "VALIDATION":
      return badRequest(issuesFromValidationError(error));
    case "NOT_FOUND":
      return new NotFoundError("Not Found");
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return new BadRequestError((error as Error).message);
  }
  if (serverStopped) {
    log.debug("request stopped: the server is stopping", { error: String(error) });
    return new ServerStoppingError();
  }
  const wrapped = toCrawlboxError(error);
  log.error("unhandled error", { message: wrapped.message, cause: String((error as Error)?.stack ?? error) });
  return wrapped;
}

/**
 * The HTTP status sent for `e`. Upstream answers a DNS failure of the scraped site with HTTP 200 and
 * `success:false` (api-v2.md §3.4); clients built on upstream read it that way, so we do the same.
 */
export function httpStatusFor(e: CrawlboxError): number {
  return e.code === "SCRAPE_DNS_RESOLUTION_ERROR" ? 200 : e.status;
}
