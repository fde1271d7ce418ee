/**
 * @module engines/browser/cdp-guard
 * Page-controlled text that Chromium would hand crawlbox whole. puppeteer enables the Runtime domain on every page
 * and worker it drives, so a page's `console.log` of a 500 MB string, or an uncaught error with such a message,
 * arrives at crawlbox as one CDP event, which puppeteer parses into objects: a page (scraped, or a browser session's
 * code) could make the server take gigabytes and seconds of CPU per call. crawlbox never reads page console output
 * or error messages that long, so such events (console calls, uncaught errors, log entries over
 * {@link MAX_PAGE_EVENT_CHARS}) are dropped as they arrive, before they are parsed. Answers to crawlbox's own
 * commands (which may be large: screenshots, page content) and every other event pass untouched.
 *
 * It wraps puppeteer's `Connection.prototype.onMessage` once, when this module loads (every Chromium crawlbox starts
 * is launched by engines/browser/chromium.ts, which imports it): a connection binds the method when it is created.
 */
import { Connection } from "puppeteer-core";

/** Characters of a console, error or log event past which it is dropped unread. */
export const MAX_PAGE_EVENT_CHARS = 1_000_000;

/** How the events that carry a page's own text begin (Chromium writes `method` first). */
const PAGE_TEXT_EVENTS = ['{"method":"Runtime.consoleAPICalled"', '{"method":"Runtime.exceptionThrown"', '{"method":"Log.entryAdded"'];

let dropped = 0;

/** Events dropped so far in this process (for tests and diagnostics). */
export function droppedPageEvents(): number {
  return dropped;
}

/** puppeteer's own (internal) message handler: every message from Chromium, as its text, before it is parsed. */
const proto = Connection.prototype as unknown as { onMessage?: (this: Connection, message: string) => Promise<void> };
const onMessage = proto.onMessage;
// puppeteer-core is pinned; a version without the method would let the guard lapse unseen, so it fails loudly instead.
if (typeof onMessage !== "function") throw new Error("cdp-guard: puppeteer's Connection.onMessage is gone; update engines/browser/cdp-guard.ts");
proto.onMessage = function guarded(this: Connection, message: string): Promise<void> {
  if (message.length > MAX_PAGE_EVENT_CHARS && PAGE_TEXT_EVENTS.some((p) => message.startsWith(p))) {
    dropped++;
    return Promise.resolve();
  }
  return onMessage.call(this, message);
};
