/**
 * @module interact/sandbox/channel
 * How code running in an offline sandbox page (engines/browser/offline-sandbox.ts) talks to crawlbox without being
 * able to send it more than crawlbox reads: browser `code` in `language: "node"` and `"python"` (interact/sandbox/run.ts) and
 * `deterministicJson`'s extractors (llm/deterministic/sandbox.ts).
 *
 * The code's world gets no binding. A request is left in the sandbox document (an attribute of its root) and
 * signalled with a DOM event; crawlbox's isolated world of the page (interact/isolated-world.ts), which shares the
 * DOM but not the code's JavaScript, picks it up, bounds it with its own untouched built-ins (each request's size,
 * the requests, the characters sent in all, the requests awaiting an answer) and alone calls crawlbox's binding,
 * which exists in that world only. Answers go back the same way; a note (a log line) gets none. The code runs inside
 * a wrapper of crawlbox's that answers the browser nothing itself ({@link startInPage}) and leaves its outcome in the
 * document, read there, bounded ({@link waitOutcome}).
 *
 * Limits of the design: a page that rewrites its own document (`document.open()`) or navigates takes the channel
 * with it, so calls made after go unanswered until the run's time ends; and, as for any page the browser driver
 * holds, the page's console messages and uncaught errors reach the driver as events (engines/browser/cdp-guard.ts
 * drops those over 1,000,000 characters unread).
 */
import type { CDPSession } from "puppeteer-core";
import { inWorld, worldContextId } from "../isolated-world.ts";
import { raceAbort } from "../../scheduler/abortable.ts";

const BINDING = "__crawlboxChannel";
/** Characters each request counts for besides its own, so that many tiny requests add up too. */
const PER_REQUEST_CHARS = 64;

/** What the world lets through. */
export interface ChannelLimits {
  /** Characters of one request at most (a larger one is answered with an error, and counted). */
  maxRequestChars: number;
  /** Requests at most (a later call is answered with an error; a later note counts as a flood). */
  maxCalls: number;
  /** Characters of all requests together at most, each counting {@link PER_REQUEST_CHARS} more; past it `onFlood` runs (once). */
  maxTotalChars: number;
  /** Requests awaiting an answer at most (more are answered with an error at once). */
  maxPending: number;
}

/** The world's program: forwards requests within `limits`, hands back answers. */
function worldProgram(limits: ChannelLimits): string {
  return `(() => {
  if (globalThis.__crawlboxReply) return;
  const root = () => document.documentElement;
  let calls = 0, total = 0, flooded = false;
  const pending = new Set();
  const reply = (id, answer) => {
    pending.delete(id);
    const r = root();
    if (!r) return;
    r.setAttribute("data-cb-reply-" + id, JSON.stringify(answer));
    document.dispatchEvent(new Event("crawlbox-reply-" + id));
  };
  globalThis.__crawlboxReply = reply;
  document.addEventListener("crawlbox-call", () => {
    const r = root();
    if (!r) return;
    for (const name of r.getAttributeNames()) {
      const note = name.startsWith("data-cb-note-");
      if (!note && !name.startsWith("data-cb-call-")) continue;
      const id = name.slice(13, 31);
      const raw = r.getAttribute(name) || "";
      r.removeAttribute(name);
      if (!/^[0-9]{1,18}$/.test(id)) continue;
      const refuse = (e) => { if (!note) reply(id, { e: e }); };
      total += raw.length + ${PER_REQUEST_CHARS};
      // Too much in all, or a note (a log line) past the last call: the code is stopped. A call past it gets an error.
      if (flooded || total > ${limits.maxTotalChars} || (note && calls >= ${limits.maxCalls})) {
        if (!flooded) { flooded = true; globalThis.${BINDING}("flood"); }
        refuse("the code has sent too much");
        continue;
      }
      if (++calls > ${limits.maxCalls}) { refuse("at most ${limits.maxCalls} calls may be made"); continue; }
      if (raw.length > ${limits.maxRequestChars}) { refuse("the call is larger than ${limits.maxRequestChars} characters"); continue; }
      if (!note) {
        if (pending.size >= ${limits.maxPending}) { refuse("at most ${limits.maxPending} calls may wait for an answer at once: await them"); continue; }
        pending.add(id);
      }
      globalThis.${BINDING}((note ? "n" : "c") + id + ":" + raw);
    }
  });
})()`;
}

/**
 * The code's side, a JavaScript expression: `{send, note}`. `send(message)` sends `message` (JSON) to crawlbox and
 * resolves with its answer's `v`, or rejects with an Error of its `e`; `note(message)` sends it and expects nothing.
 */
export const CHANNEL_CLIENT = `(() => {
  const root = document.documentElement;
  let n = 0;
  const post = (kind, id, message) => {
    root.setAttribute("data-cb-" + kind + "-" + id, JSON.stringify(message === undefined ? null : message));
    document.dispatchEvent(new Event("crawlbox-call"));
  };
  // Where a call was made, kept for the stack of the Error it may fail with: the caller's frames are on the stack
  // now (its own code, which the sandbox's wrapper shows by its lines), not when the answer comes.
  const E = Error;
  const callSite = () => {
    let at;
    try { const limit = E.stackTraceLimit; E.stackTraceLimit = 30; at = new E(); E.stackTraceLimit = limit; } catch (_) { at = undefined; }
    return at;
  };
  // The answer's listener comes first: a refusal is answered at once, inside the dispatch.
  const send = (message) => {
    const at = callSite();
    return new Promise((resolve, reject) => {
      const id = String(++n);
      document.addEventListener("crawlbox-reply-" + id, () => {
        const raw = root.getAttribute("data-cb-reply-" + id);
        root.removeAttribute("data-cb-reply-" + id);
        let a = null;
        try { a = JSON.parse(raw); } catch (e) { a = { e: "the answer could not be read" }; }
        if (a && typeof a.e === "string") {
          const err = new E(a.e);
          let frames = "";
          try { frames = at ? String(at.stack).split("\\n").filter((l) => /^\\s+at /.test(l)).map((l) => "\\n" + l).join("") : ""; } catch (_) { frames = ""; }
          err.stack = "Error: " + a.e + frames;
          reject(err);
        } else resolve(a ? a.v : undefined);
      }, { once: true });
      post("call", id, message);
    });
  };
  const note = (message) => { post("note", String(++n), message); };
  return { send: send, note: note };
})()`;

/** An open channel. */
export interface Channel {
  /** Stops answering (answers still being worked out are dropped) and stops listening. */
  close(): void;
}

/**
 * Opens the channel on the sandbox page behind `session`: `onRequest` gets each request let through (its parsed
 * JSON) and returns the answer's value or throws (its message goes back; a note's answer is dropped). `onFlood` runs
 * once when the code sent more than `limits.maxTotalChars`.
 */
export async function openChannel(session: CDPSession, limits: ChannelLimits, onRequest: (request: unknown) => Promise<unknown>, onFlood: () => void = () => undefined): Promise<Channel> {
  let closed = false;
  const onBinding = (e: { name: string; payload: string }) => {
    if (e.name !== BINDING || closed) return;
    if (e.payload === "flood") return onFlood();
    // Bounded by the world's program; anything else did not come from it.
    const m = /^([cn])(\d{1,18}):/.exec(e.payload.slice(0, 24));
    if (!m || e.payload.length > limits.maxRequestChars + 24) return;
    const [head, kind, id] = m;
    void (async () => {
      let answer: { v?: unknown; e?: string };
      try {
        answer = { v: await onRequest(JSON.parse(e.payload.slice(head.length))) };
      } catch (err) {
        answer = { e: String((err as Error).message ?? err).slice(0, 1000) };
      }
      if (closed || kind === "n") return;
      await inWorld(session, `globalThis.__crawlboxReply(${JSON.stringify(id)}, ${JSON.stringify(answer)})`).catch(() => undefined);
    })();
  };
  // The binding exists in crawlbox's world only (by its context id, which needs no Runtime domain: the page's console
  // and errors are not sent to this session too).
  await session.send("Runtime.addBinding", { name: BINDING, executionContextId: await worldContextId(session) } as { name: string });
  await inWorld(session, worldProgram(limits));
  session.on("Runtime.bindingCalled", onBinding);
  return {
    close() {
      closed = true;
      session.off("Runtime.bindingCalled", onBinding);
    },
  };
}

/**
 * Starts `wrapper` (an async function declaration of crawlbox's, given `args`) in the sandbox page's own world. It is
 * to set `data-cb-run` on the document's root before its first `await`, and to leave its outcome in the document
 * ({@link waitOutcome}). Its value is not read: a page cannot send crawlbox anything by it.
 *
 * It runs as the page's own inline script, not as a script of the DevTools protocol's: Chromium hides the errors of
 * those from the page (an `error` event's `error` is null, and a promise rejected with no handler fires no
 * `unhandledrejection`), so the wrapper could not tell the code's uncaught errors (prelude.ts). The arguments go in
 * as JSON text; the element is made and removed through the DOM, so no text of theirs is read as HTML.
 */
export async function startInPage(session: CDPSession, wrapper: string, args: unknown[]): Promise<void> {
  const { result } = await session.send("Runtime.evaluate", { expression: "globalThis", returnByValue: false });
  await session.send("Runtime.callFunctionOn", {
    functionDeclaration: `function (wrapper, args) {
      const script = document.createElement("script");
      script.text = "(" + wrapper + ").apply(globalThis, " + JSON.stringify(args) + ");";
      (document.head || document.documentElement).appendChild(script);
      script.remove();
    }`,
    objectId: result.objectId!,
    arguments: [{ value: wrapper }, { value: args }],
    awaitPromise: false,
    returnByValue: false,
    silent: true,
  });
}

/** What a run left: its result (cut to the bound, with its whole length), its error, or why there is neither. */
export interface Outcome {
  result?: string;
  resultChars?: number;
  error?: string;
}

/**
 * Waits until the code started by {@link startInPage} has left its outcome (`data-cb-result` or `data-cb-error`),
 * checking every {@link POLL_MS}, and reads it in the world, cut there to `maxChars`. A page whose document was
 * replaced (navigated away, rewritten) answers an error. Rejects when `signal` aborts.
 */
export async function waitOutcome(session: CDPSession, maxChars: number, signal: AbortSignal): Promise<Outcome> {
  const read = `(() => {
    const root = document.documentElement;
    if (!root || !root.hasAttribute("data-cb-run")) return { error: "the sandbox page's document was replaced (a navigation, or document.open)" };
    const r = root.getAttribute("data-cb-result");
    const e = root.getAttribute("data-cb-error");
    if (r !== null) return { result: r.slice(0, ${maxChars}), resultChars: r.length };
    if (e !== null) return { error: e.slice(0, ${maxChars}) };
    return null;
  })()`;
  for (;;) {
    // A call made while the code blocks the page's thread waits (and may time out in the driver): the next one tries again.
    const out = (await raceAbort(inWorld(session, read), signal).catch((e: unknown) => {
      if (signal.aborted) throw e;
      return { value: null };
    })) as { value: Outcome | null };
    if (out.value) return out.value;
    await raceAbort(Bun.sleep(POLL_MS), signal);
  }
}

/** How often {@link waitOutcome} looks. */
const POLL_MS = 50;
