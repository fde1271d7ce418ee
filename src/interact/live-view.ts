/**
 * @module interact/live-view
 * Live views of browser sessions (`liveViewUrl`, docs/interact.md): a page a person opens in their own browser to
 * watch a session's page as it changes, e.g. while an agent or a script drives it. The session's page is
 * screencast by Chromium (CDP `Page.startScreencast`, JPEG) and the frames are served as an MJPEG stream
 * (`multipart/x-mixed-replace`) that an `<img>` shows without any script. The view (`liveViewUrl`) only watches;
 * the interactive view (`interactiveLiveViewUrl`, a token of its own) also sends a person's clicks, wheel, keys and
 * text to the page (interact/live-input.ts). No CDP endpoint is handed out (one would reach past the egress gate).
 *
 * Each URL's token (256 random bits) is the capability, as for `/v2/files`: a browser cannot send an API key with an
 * `<img>`. They are given only to the key that opened the session and die with the session. The screencast runs only
 * while someone watches; frames are at most {@link MAX_FPS} a second, and a slow viewer gets the newest frame, not a
 * backlog. At most {@link MAX_VIEWERS} viewers per session.
 */
import type { CDPSession } from "puppeteer-core";
import { CrawlboxError, TooManyRequestsError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { dispatchLiveInput, type LiveInput } from "./live-input.ts";
import { randomToken } from "../auth/token.ts";

/** Viewers one session may have at once. */
export const MAX_VIEWERS = 4;
/** Frames a second at most. */
export const MAX_FPS = 10;
/** Largest frame side, in pixels (frames are scaled down to it). */
const MAX_FRAME_SIDE = 1280;
/** Input events an interactive view may send a second (a person does far fewer). */
export const MAX_INPUTS_PER_S = 50;
/** Input events of one view waiting to be carried out at most (they are carried out one at a time). */
export const MAX_QUEUED_INPUTS = 8;
/** Longest an input event may wait for the page (one busy with a script of its own takes none). */
export const INPUT_TIMEOUT_MS = 5_000;
/** JPEG quality of the frames. */
const FRAME_QUALITY = 60;
const BOUNDARY = "crawlboxframe";

interface Viewer {
  /** The newest frame not yet sent. */
  pending?: Uint8Array;
  /** Wakes the viewer's stream when a frame arrives or the view ends. */
  wake?: () => void;
  ended: boolean;
}

interface View {
  session: CDPSession;
  viewers: Set<Viewer>;
  /** The last frame, shown at once to a new viewer (a still page sends no new ones). */
  last?: Uint8Array;
  casting: boolean;
  onFrame: (e: { data: string; sessionId: number }) => void;
  lastFrameAt: number;
  /** Told of each input event (the session counts it as activity). */
  onInput: () => void;
  /** Input events of the current second. */
  inputs: { second: number; count: number };
  /** Input events being carried out or waiting, and the end of that chain. */
  queued: number;
  chain: Promise<unknown>;
  tokens: { view: string; control: string };
}

/** Why a viewer was refused. */
export type StreamRefusal = "unknown" | "busy";

/** The live views of the server's sessions, by token (a view's two tokens lead to it). */
export class LiveViews {
  private readonly views = new Map<string, { view: View; control: boolean }>();

  /**
   * Starts offering live views of the page behind `session`: its watching token and its interactive one. `onInput`
   * is told of each input event.
   */
  register(session: CDPSession, onInput: () => void = () => undefined): { view: string; control: string } {
    const tokens = { view: randomToken(), control: randomToken() };
    const view: View = {
      session,
      onInput,
      inputs: { second: 0, count: 0 },
      queued: 0,
      chain: Promise.resolve(),
      tokens,
      viewers: new Set(),
      casting: false,
      lastFrameAt: 0,
      onFrame: (e) => {
        const frame = Buffer.from(e.data, "base64");
        view.last = frame;
        for (const v of view.viewers) {
          v.pending = frame;
          v.wake?.();
        }
        // Chromium sends the next frame once this one is acknowledged: acknowledging late bounds the rate.
        const wait = Math.max(0, 1000 / MAX_FPS - (performance.now() - view.lastFrameAt));
        view.lastFrameAt = performance.now() + wait;
        setTimeout(() => void session.send("Page.screencastFrameAck", { sessionId: e.sessionId }).catch(() => undefined), wait);
      },
    };
    this.views.set(tokens.view, { view, control: false });
    this.views.set(tokens.control, { view, control: true });
    return tokens;
  }

  /** Ends the views of a registration (either of its tokens): their viewers' streams end and the screencast stops. */
  unregister(token: string): void {
    const view = this.views.get(token)?.view;
    if (!view) return;
    this.views.delete(view.tokens.view);
    this.views.delete(view.tokens.control);
    for (const v of view.viewers) this.endViewer(v);
    view.viewers.clear();
    this.stopCast(view);
  }

  /** What `token` opens now: a view that watches, an interactive one, or nothing. */
  kind(token: string): "view" | "control" | undefined {
    const entry = this.views.get(token);
    return entry ? (entry.control ? "control" : "view") : undefined;
  }

  /**
   * Carries out a person's `input` through the interactive token `token`, after the view's earlier ones; false when
   * the token is not an interactive view now. 429 past {@link MAX_INPUTS_PER_S} events a second or
   * {@link MAX_QUEUED_INPUTS} waiting; 409 when the page does not take it within {@link INPUT_TIMEOUT_MS}.
   */
  async input(token: string, input: LiveInput): Promise<boolean> {
    const entry = this.views.get(token);
    if (!entry?.control) return false;
    const view = entry.view;
    const second = Math.floor(performance.now() / 1000);
    if (view.inputs.second !== second) view.inputs = { second, count: 0 };
    if (++view.inputs.count > MAX_INPUTS_PER_S) throw new TooManyRequestsError("LIVE_VIEW_INPUT_LIMIT", `An interactive view may send at most ${MAX_INPUTS_PER_S} input events a second.`);
    if (view.queued >= MAX_QUEUED_INPUTS) throw new TooManyRequestsError("LIVE_VIEW_INPUT_LIMIT", `At most ${MAX_QUEUED_INPUTS} input events may wait for the page at once.`);
    view.onInput();
    view.queued++;
    const timeout = AbortSignal.timeout(INPUT_TIMEOUT_MS);
    const turn = view.chain.then(() => (timeout.aborted ? undefined : raceAbort(dispatchLiveInput(view.session, input), timeout)));
    view.chain = turn.catch(() => undefined);
    try {
      await raceAbort(turn, timeout);
    } catch (e) {
      if (!timeout.aborted) throw e;
      throw new CrawlboxError("LIVE_VIEW_PAGE_BUSY", 409, `The page did not take the input within ${INPUT_TIMEOUT_MS / 1000} s (it is busy).`);
    } finally {
      view.queued--;
    }
    return true;
  }

  /** The MJPEG stream of `token`'s page for one viewer, or why not. It ends when the viewer leaves or the session ends. */
  stream(token: string, signal: AbortSignal): ReadableStream<Uint8Array> | StreamRefusal {
    const view = this.views.get(token)?.view;
    if (!view) return "unknown";
    if (view.viewers.size >= MAX_VIEWERS) return "busy";
    const viewer: Viewer = { ended: false, ...(view.last ? { pending: view.last } : {}) };
    view.viewers.add(viewer);
    const leave = () => {
      this.endViewer(viewer);
      view.viewers.delete(viewer);
      if (view.viewers.size === 0) this.stopCast(view);
    };
    signal.addEventListener("abort", leave, { once: true });
    this.startCast(view);
    const encoder = new TextEncoder();
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (!viewer.pending && !viewer.ended) await new Promise<void>((resolve) => (viewer.wake = resolve));
          viewer.wake = undefined;
          if (viewer.ended) {
            controller.close();
            return;
          }
          const frame = viewer.pending!;
          viewer.pending = undefined;
          controller.enqueue(encoder.encode(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${frame.length}\r\n\r\n`));
          controller.enqueue(frame);
          controller.enqueue(encoder.encode("\r\n"));
        },
        cancel: leave,
      },
      { highWaterMark: 0 },
    );
  }

  /** The content type of {@link stream}'s body. */
  static readonly contentType = `multipart/x-mixed-replace; boundary=${BOUNDARY}`;

  private startCast(view: View): void {
    if (view.casting) return;
    view.casting = true;
    view.session.on("Page.screencastFrame", view.onFrame);
    void view.session
      .send("Page.startScreencast", { format: "jpeg", quality: FRAME_QUALITY, maxWidth: MAX_FRAME_SIDE, maxHeight: MAX_FRAME_SIDE, everyNthFrame: 1 })
      .catch(() => undefined);
  }

  private stopCast(view: View): void {
    if (!view.casting) return;
    view.casting = false;
    view.session.off("Page.screencastFrame", view.onFrame);
    void view.session.send("Page.stopScreencast").catch(() => undefined);
  }

  private endViewer(v: Viewer): void {
    v.ended = true;
    v.wake?.();
  }
}
