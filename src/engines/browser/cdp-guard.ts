/**
 * @module engines/browser/cdp-guard
 * Page-controlled text that Chromium would hand crawlbox whole. puppeteer enables the Runtime and Network domains on
 * every page and worker it drives, so a page's `console.log` of a 500 MB string, an uncaught error with such a
 * message, a POST of a 200 MB body, a `prompt` with a huge default or a 30 MB `data:` URL arrives at crawlbox as one
 * CDP event, which puppeteer parses into objects: a page (scraped, or a browser session's code) could make the server
 * take gigabytes and seconds of CPU per call (a 200 MB POST: 2.5 GB and a 3 s stall). So:
 * - request bodies in events are cut by Chromium at {@link MAX_POST_DATA_BYTES} (`maxPostDataSize` is added to every
 *   `Network.enable`);
 * - events that only carry page text, over {@link MAX_PAGE_EVENT_CHARS}, are dropped as they arrive, before they are
 *   parsed; an oversized dialog is dismissed unread;
 * - an oversized intercepted request (`Fetch.requestPaused`, when crawlbox adds headers or blocks requests) loses
 *   its body's copies (`postData`, `postDataEntries`: `maxPostDataSize` does not reach the Fetch domain, so a 430 KB
 *   upload made a 1 MB event) before it is parsed, and goes on with its body whole; one still oversized (a huge URL)
 *   is failed unread.
 * Answers to crawlbox's own commands (which may be large: screenshots, page content) and other events pass untouched.
 *
 * It wraps puppeteer's `Connection.prototype.onMessage` and `_rawSend` once, when this module loads (every Chromium
 * crawlbox starts is launched by engines/browser/chromium.ts, which imports it): a connection binds `onMessage` when
 * it is created.
 */
import { Connection } from "puppeteer-core";

/** Characters of a page-text event past which it is dropped (or answered) unread. */
export const MAX_PAGE_EVENT_CHARS = 1_000_000;
/** Bytes of a request's body Chromium puts in its events (`Network.enable`'s `maxPostDataSize`, for every session). */
export const MAX_POST_DATA_BYTES = 65_536;

/**
 * How the events that carry a page's own text begin (Chromium writes `method` first): a console call, an uncaught
 * error, a log entry, an EventSource message, a WebSocket frame, a frame's requested navigation (a `data:` URL).
 * puppeteer reads none of these for what crawlbox does with it.
 */
const DROPPED = [
  "Runtime.consoleAPICalled",
  "Runtime.exceptionThrown",
  "Log.entryAdded",
  "Network.eventSourceMessageReceived",
  "Network.webSocketFrameReceived",
  "Network.webSocketFrameSent",
  "Network.webSocketFrameError",
  "Page.frameRequestedNavigation",
].map((m) => `{"method":"${m}"`);
/** A dialog (a `prompt` with a huge default) waits for an answer: an oversized one is dismissed unread. */
const DIALOG = '{"method":"Page.javascriptDialogOpening"';
/** An intercepted request waits for an answer: its body's copies are cut out; one still oversized is failed unread. */
const PAUSED = '{"method":"Fetch.requestPaused"';

/** Where the JSON string whose contents start at `from` ends (its closing quote: the first one not escaped). */
function endOfJsonString(text: string, from: number): number {
  for (let i = from; ; ) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/**
 * `text` without the last member `"name":…` whose value ends at `end(valueStart)`, and one comma beside it. The last:
 * a request header may carry the same name, and Chromium writes the request's headers before its body.
 */
function withoutMember(text: string, opening: string, end: (valueStart: number) => number): string {
  // A key can only appear as written here outside string values: inside one its quotes would be escaped.
  const at = text.lastIndexOf(opening);
  if (at < 0) return text;
  const last = end(at + opening.length);
  if (last < 0) return text;
  const from = text[at - 1] === "," ? at - 1 : at;
  const to = from === at && text[last + 1] === "," ? last + 2 : last + 1;
  return text.slice(0, from) + text.slice(to);
}

/**
 * A `Fetch.requestPaused` event's text without the paused request's body (`postData`, and `postDataEntries`, base64
 * items with no `]` in them): nothing crawlbox does with a paused request reads it, and a request continued without
 * `postData` keeps its own body.
 */
export function withoutRequestBody(message: string): string {
  // Without a body there is nothing to cut (and a header of that name must stay: the request is continued with it).
  if (!message.includes('"hasPostData":true')) return message;
  const cut = withoutMember(message, '"postData":"', (from) => endOfJsonString(message, from));
  return withoutMember(cut, '"postDataEntries":[', (from) => cut.indexOf("]", from));
}

let dropped = 0;

/** Events dropped or answered unread so far in this process (for tests and diagnostics). */
export function droppedPageEvents(): number {
  return dropped;
}

/** puppeteer's own (internal) handlers: every message from Chromium as its text, and every command sent. */
const proto = Connection.prototype as unknown as {
  onMessage?: (this: Connection, message: string) => Promise<void>;
  _rawSend?: (this: Connection, callbacks: unknown, method: string, params: Record<string, unknown> | undefined, ...rest: unknown[]) => Promise<unknown>;
};
const onMessage = proto.onMessage;
const rawSend = proto._rawSend;
// puppeteer-core is pinned; a version without these would let the guard lapse unseen, so it fails loudly instead.
if (typeof onMessage !== "function" || typeof rawSend !== "function") throw new Error("cdp-guard: puppeteer's Connection.onMessage/_rawSend are gone; update engines/browser/cdp-guard.ts");

/** The session an event belongs to (Chromium writes `sessionId` last), and a quoted field's value near its start. */
const sessionOf = (message: string) => /"sessionId":"([^"]{1,100})"\}$/.exec(message.slice(-200))?.[1];
const fieldOf = (message: string, name: string) => new RegExp(`"${name}":"([^"]{1,200})"`).exec(message.slice(0, 2_000))?.[1];

proto.onMessage = function guarded(this: Connection, message: string): Promise<void> {
  if (message.length > MAX_PAGE_EVENT_CHARS) {
    if (DROPPED.some((p) => message.startsWith(p))) {
      dropped++;
      return Promise.resolve();
    }
    if (message.startsWith(PAUSED)) {
      const cut = withoutRequestBody(message);
      if (cut.length <= MAX_PAGE_EVENT_CHARS) {
        dropped++;
        return onMessage.call(this, cut);
      }
    }
    const answer = message.startsWith(DIALOG)
      ? (["Page.handleJavaScriptDialog", { accept: false }] as const)
      : message.startsWith(PAUSED) && fieldOf(message, "requestId")
        ? (["Fetch.failRequest", { requestId: fieldOf(message, "requestId")!, errorReason: "BlockedByClient" }] as const)
        : undefined;
    const session = answer ? this.session(sessionOf(message) ?? "") : null;
    if (answer && session) {
      dropped++;
      void session.send(answer[0], answer[1] as never).catch(() => undefined);
      return Promise.resolve();
    }
  }
  return onMessage.call(this, message);
};

// A request's body in events (Network.requestWillBeSent's postData and postDataEntries, about 2.3 times its size) is
// cut by Chromium itself, on every session puppeteer or crawlbox enables the Network domain on.
proto._rawSend = function limited(this: Connection, callbacks, method, params, ...rest) {
  const withLimit = method === "Network.enable" && params?.maxPostDataSize === undefined ? { ...params, maxPostDataSize: MAX_POST_DATA_BYTES } : params;
  return rawSend.call(this, callbacks, method, withLimit, ...rest);
};
