/**
 * @module interact/errors
 * The errors of a browser session in use (interact/sessions.ts): busy with another prompt or script, or lost with
 * its page, or its opening given up by every request that waited for it. Other opening errors (limits, the page not
 * loading, the replay failing) are thrown where they happen.
 */
import { CrawlboxError } from "../errors.ts";

/** 409: the session is carrying out another prompt or script. */
export class InteractBusyError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_BUSY", 409, "This browser session is carrying out another prompt or script; send the next one when it answers.");
  }
}

/** 410: the session's browser page closed or crashed under it. */
export class InteractSessionLostError extends CrawlboxError {
  /** `why`: what crawlbox knows of the loss (a crashed page's reason), said before the advice. */
  constructor(why?: string) {
    super("INTERACT_SESSION_LOST", 410, `${why ? `${why} ` : ""}The browser session was lost (its page or browser closed); send the prompt again to open a new one.`);
  }
}

/**
 * 503, retryable: the request joined a session's opening that every request waiting for it had given up on (their
 * time ran out, their clients left), so it was stopped under this one. Sending the request again opens a new session.
 */
export class InteractOpeningAbandonedError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_OPENING_ABANDONED", 503, "The browser session was being opened for another request that gave up on it, and its opening was stopped; send the request again to open a new one.", { retryable: true });
  }
}

/** 409: the session was closed (DELETE) while it was being opened for this request; nothing ran in it. */
export class InteractSessionClosedWhileOpeningError extends CrawlboxError {
  constructor() {
    super("INTERACT_SESSION_CLOSED", 409, "The browser session was closed (DELETE) while it was being opened for this request; nothing ran in it.");
  }
}
