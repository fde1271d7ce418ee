/**
 * @module engines/browser/document-size
 * Holds a scrape's main document to the page limit (`CRAWLBOX_MAX_PAGE_BYTES`) while it downloads, as the HTTP
 * engine holds a body (reliability.md B5): before this, the browser engine measured the page only once it was
 * loaded, and a gzip page that decodes to 200 MB took 11 s and 2 GB of Chromium before the memory guard stopped it.
 *
 * The main frame's document responses are followed on the lease's CDP session (`Network` events, the page's own
 * session is puppeteer's): a `Content-Length` above the limit is refused when the headers arrive (compressed or not,
 * as the HTTP engine does), and the decoded bytes (`Network.dataReceived`'s `dataLength`) are counted as they arrive.
 * Past the limit the page stops loading and {@link DocumentSizeGuard.signal} aborts with the HTTP engine's
 * `SCRAPE_RESPONSE_TOO_LARGE` ({@link responseTooLarge}). Every main-frame navigation of the scrape is followed, so a
 * later one (a meta refresh, a click) is held too. A browser session's page (interact/page-size.ts) keeps one guard
 * for its whole life, re-armed for each command.
 *
 * Not followed: subresources and iframes (scripts, styles, XHRs, frames' documents), which the per-page memory guard
 * (renderer-memory.ts) bounds; responses the engine does not read itself (a PDF or another document, or a download: the
 * router fetches those again with the HTTP engine, under the same limit). What the page builds after loading is measured when it
 * is read (engine.ts).
 */
import type { CDPSession, Protocol } from "puppeteer-core";
import { mimeTypeOf } from "../charset.ts";
import { responseTooLarge } from "../http/body.ts";
import { RENDERED_TYPES, TEXT_TYPES } from "./navigation.ts";

/**
 * Response bodies the session's `Network` domain keeps for `getResponseBody` (its own copies, apart from
 * puppeteer's): none are read through it, so it keeps as little as Chromium allows.
 */
const NO_BUFFER = { maxTotalBufferSize: 1, maxResourceBufferSize: 1 };

/** Main-frame documents listed at most (a session's page may leave many a document that Chromium never ends). */
const MAX_LISTED_DOCUMENTS = 64;

/**
 * Follows the main document's size on one lease's session: for one scrape, or for a browser session's page through
 * all its navigations ({@link DocumentSizeGuard.rearm} before each command, interact/page-size.ts).
 */
export class DocumentSizeGuard {
  private controller = new AbortController();
  private mainFrameId: string | undefined;
  /**
   * Main-frame document requests in flight: their URL, decoded bytes so far, and the {@link rearm} mark in force when
   * their headers came (undefined before).
   */
  private readonly documents = new Map<string, { url: string; bytes: number; answeredIn?: number }>();
  private listening = false;
  /** Who waits in {@link settled}: for documents answered since `since`. */
  private waiters: { since: number; done: () => void }[] = [];
  /** Counts {@link rearm}s: each command's mark. */
  private marks = 0;

  constructor(
    private readonly session: CDPSession,
    private readonly maxBytes: number,
  ) {}

  /** Aborts, with `SCRAPE_RESPONSE_TOO_LARGE`, when a main document passes the limit (until {@link rearm}). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Starts a command: a fresh {@link signal} once the last one has aborted (a browser session's page outlives a
   * document past the limit, its load stopped, and the session's next command must be held, and told, on its own
   * account). Returns the command's mark, for {@link settled}.
   */
  rearm(): number {
    if (this.controller.signal.aborted) this.controller = new AbortController();
    return ++this.marks;
  }

  /**
   * Resolves once no main document whose headers came since mark `since` (during the command) is still downloading
   * (each has finished, failed or passed the limit), or after `waitMs`. A page's `load` (puppeteer's session) can be
   * told before the last of its document's bytes are counted here (this session's `Network` events): a gzip page
   * 28 KB on the wire and 5 MiB decoded was "loaded" for a session's `goto`, and its bytes, counted a moment later,
   * failed the session's next command instead. Not waited for: a navigation still waiting for its headers (a slow
   * site would hold every click), and a document answered during an earlier command. Chromium says nothing more of a
   * committed document its page stopped (`window.stop()`) or left while it streamed: it stays listed, and each later
   * command waited the whole `waitMs` for it.
   */
  settled(waitMs: number, since: number): Promise<void> {
    if (!this.downloading(since)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        since,
        done: () => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, waitMs);
      this.waiters.push(waiter);
    });
  }

  private downloading(since: number): boolean {
    for (const doc of this.documents.values()) if (doc.answeredIn !== undefined && doc.answeredIn >= since) return true;
    return false;
  }

  /** Wakes {@link settled}'s waiters with nothing left to wait for. */
  private wakeIfSettled(): void {
    for (const w of [...this.waiters]) if (!this.downloading(w.since)) w.done();
  }

  /** Starts following (before the navigation). */
  async start(): Promise<void> {
    this.session.on("Network.requestWillBeSent", this.onRequest);
    this.session.on("Network.responseReceived", this.onResponse);
    this.session.on("Network.dataReceived", this.onData);
    this.session.on("Network.loadingFinished", this.onDone);
    this.session.on("Network.loadingFailed", this.onDone);
    this.listening = true;
    const [{ frameTree }] = await Promise.all([this.session.send("Page.getFrameTree"), this.session.send("Network.enable", NO_BUFFER)]);
    this.mainFrameId = frameTree.frame.id;
  }

  /** Stops following; the session's `Network` domain is turned off again (a reused page sits idle quietly). */
  dispose(): void {
    if (!this.listening) return;
    this.listening = false;
    this.session.off("Network.requestWillBeSent", this.onRequest);
    this.session.off("Network.responseReceived", this.onResponse);
    this.session.off("Network.dataReceived", this.onData);
    this.session.off("Network.loadingFinished", this.onDone);
    this.session.off("Network.loadingFailed", this.onDone);
    this.documents.clear();
    this.wakeIfSettled();
    void this.session.send("Network.disable").catch(() => {}); // the page may already be gone
  }

  private readonly onRequest = (e: Protocol.Network.RequestWillBeSentEvent) => {
    // A redirect is sent again under the same id: only the last response's body counts.
    if (e.type === "Document" && e.frameId === this.mainFrameId) {
      this.documents.set(e.requestId, { url: e.request.url, bytes: 0 });
      // Entries Chromium never ended (see settled) are dropped, oldest first, past a bound.
      if (this.documents.size > MAX_LISTED_DOCUMENTS) this.documents.delete(this.documents.keys().next().value!);
    }
  };

  private readonly onResponse = (e: Protocol.Network.ResponseReceivedEvent) => {
    const doc = this.documents.get(e.requestId);
    if (!doc) return;
    const headers = lowerCased(e.response.headers);
    const type = mimeTypeOf(headers["content-type"]);
    if (/^\s*attachment/i.test(headers["content-disposition"] ?? "") || (!RENDERED_TYPES.has(type) && !TEXT_TYPES.test(type))) {
      this.documents.delete(e.requestId); // not read by this engine
      this.wakeIfSettled();
      return;
    }
    doc.url = e.response.url;
    doc.answeredIn = this.marks;
    const declared = Number(headers["content-length"] ?? NaN);
    if (Number.isFinite(declared) && declared > this.maxBytes) this.exceeded(doc.url, declared);
  };

  private readonly onData = (e: Protocol.Network.DataReceivedEvent) => {
    const doc = this.documents.get(e.requestId);
    if (!doc) return;
    doc.bytes += e.dataLength;
    if (doc.bytes > this.maxBytes) this.exceeded(doc.url);
  };

  private readonly onDone = (e: { requestId: string }) => {
    this.documents.delete(e.requestId);
    this.wakeIfSettled();
  };

  private exceeded(url: string, contentLength?: number): void {
    this.documents.clear();
    this.wakeIfSettled();
    if (this.signal.aborted) return;
    // Chromium stops reading at once; the engine then closes the page's context (never reused after an error).
    void this.session.send("Page.stopLoading").catch(() => {});
    this.controller.abort(responseTooLarge(url, this.maxBytes, contentLength));
  }
}

function lowerCased(headers: Protocol.Network.Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = String(v);
  return out;
}
