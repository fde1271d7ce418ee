/**
 * @module interact/sandbox/channel
 * How code running in an offline sandbox page (engines/browser/offline-sandbox.ts) talks to crawlbox without being
 * able to send it more than crawlbox reads: browser `code` in `language: "node"` (interact/sandbox/run-node.ts) and
 * `deterministicJson`'s extractors (llm/deterministic/sandbox.ts).
 *
 * The code's world gets no binding. A request is left in the sandbox document (an attribute of its root) and
 * signalled with a DOM event; crawlbox's isolated world of the page (interact/isolated-world.ts), which shares the
 * DOM but not the code's JavaScript, picks it up, bounds it with its own untouched built-ins (each request's size,
 * the calls, the characters sent in all) and alone calls crawlbox's binding. Answers go back the same way. The
 * code's own outcome is left in the document too and read there, bounded, by {@link readOutcome}; the code runs
 * inside a wrapper of crawlbox's that answers the browser nothing itself ({@link runInPage}).
 */
import type { CDPSession } from "puppeteer-core";
import { inWorld } from "../isolated-world.ts";

const BINDING = "__crawlboxChannel";

/** What the world lets through. */
export interface ChannelLimits {
  /** Characters of one request at most (a larger one is answered with an error, and counted). */
  maxRequestChars: number;
  /** Requests at most (later ones are answered with an error). */
  maxCalls: number;
  /** Characters of all requests together at most; past it `onFlood` runs and nothing more is let through. */
  maxTotalChars: number;
}

/** The world's program: forwards requests within `limits`, hands back answers. */
function worldProgram(limits: ChannelLimits): string {
  return `(() => {
  if (globalThis.__crawlboxReply) return;
  const root = () => document.documentElement;
  let calls = 0, total = 0, flooded = false;
  const reply = (id, answer) => { root().setAttribute("data-cb-reply-" + id, JSON.stringify(answer)); document.dispatchEvent(new Event("crawlbox-reply-" + id)); };
  globalThis.__crawlboxReply = reply;
  document.addEventListener("crawlbox-call", () => {
    for (const name of root().getAttributeNames()) {
      if (!name.startsWith("data-cb-call-")) continue;
      const id = name.slice(13, 31);
      const raw = root().getAttribute(name) || "";
      root().removeAttribute(name);
      if (!/^[0-9]{1,18}$/.test(id)) continue;
      total += raw.length;
      if (flooded || total > ${limits.maxTotalChars}) {
        if (!flooded) { flooded = true; globalThis.${BINDING}(JSON.stringify({ flood: true })); }
        reply(id, { e: "the code has sent too much" });
        continue;
      }
      if (++calls > ${limits.maxCalls}) { reply(id, { e: "at most ${limits.maxCalls} calls may be made" }); continue; }
      if (raw.length > ${limits.maxRequestChars}) { reply(id, { e: "the call is larger than ${limits.maxRequestChars} characters" }); continue; }
      globalThis.${BINDING}(JSON.stringify({ id: id, r: raw }));
    }
  });
})()`;
}

/**
 * The code's side, a JavaScript expression: a function `(message) => Promise<answer>` that sends `message` (JSON) to
 * crawlbox and resolves with its answer's `v`, or rejects with an Error of its `e`.
 */
export const CHANNEL_CLIENT = `(() => {
  const root = document.documentElement;
  let n = 0;
  return (message) => new Promise((resolve, reject) => {
    const id = String(++n);
    document.addEventListener("crawlbox-reply-" + id, () => {
      const raw = root.getAttribute("data-cb-reply-" + id);
      root.removeAttribute("data-cb-reply-" + id);
      let a = null;
      try { a = JSON.parse(raw); } catch (e) { a = { e: "the answer could not be read" }; }
      if (a && typeof a.e === "string") { const err = new Error(a.e); err.stack = "Error: " + a.e; reject(err); } else resolve(a ? a.v : undefined);
    }, { once: true });
    root.setAttribute("data-cb-call-" + id, JSON.stringify(message === undefined ? null : message));
    document.dispatchEvent(new Event("crawlbox-call"));
  });
})()`;

/** An open channel. */
export interface Channel {
  /** Stops answering (answers still being worked out are dropped) and stops listening. */
  close(): void;
}

/**
 * Opens the channel on the sandbox page behind `session`: `onRequest` gets each request let through (its parsed
 * JSON) and returns the answer's value or throws (its message goes back). `onFlood` runs once when the code sent more
 * than `limits.maxTotalChars`.
 */
export async function openChannel(session: CDPSession, limits: ChannelLimits, onRequest: (request: unknown) => Promise<unknown>, onFlood: () => void = () => undefined): Promise<Channel> {
  let closed = false;
  const onBinding = (e: { name: string; payload: string }) => {
    if (e.name !== BINDING || closed) return;
    // Bounded by the world's program; anything larger did not come from it.
    if (e.payload.length > limits.maxRequestChars + 100) return;
    let msg: { id?: unknown; r?: unknown; flood?: unknown };
    try {
      msg = JSON.parse(e.payload);
    } catch {
      return;
    }
    if (msg.flood === true) return onFlood();
    const id = typeof msg.id === "string" && /^\d{1,18}$/.test(msg.id) ? msg.id : undefined;
    if (!id || typeof msg.r !== "string") return;
    void (async () => {
      let answer: { v?: unknown; e?: string };
      try {
        answer = { v: await onRequest(JSON.parse(msg.r as string)) };
      } catch (err) {
        answer = { e: String((err as Error).message ?? err).slice(0, 1000) };
      }
      if (closed) return;
      await inWorld(session, `globalThis.__crawlboxReply(${JSON.stringify(id)}, ${JSON.stringify(answer)})`).catch(() => undefined);
    })();
  };
  // Bindings reach a named world only with the Runtime domain on.
  await session.send("Runtime.enable");
  await session.send("Runtime.addBinding", { name: BINDING, executionContextName: "crawlbox" });
  session.on("Runtime.bindingCalled", onBinding);
  await inWorld(session, worldProgram(limits));
  return {
    close() {
      closed = true;
      session.off("Runtime.bindingCalled", onBinding);
    },
  };
}

/**
 * Runs `wrapper` (a function declaration of crawlbox's, given `args`) in the sandbox page's own world and waits for
 * it; it is to leave its outcome in the document ({@link readOutcome}). Its value is not read: a page cannot send
 * crawlbox anything by it.
 */
export async function runInPage(session: CDPSession, wrapper: string, args: unknown[]): Promise<void> {
  const { result } = await session.send("Runtime.evaluate", { expression: "globalThis", returnByValue: false });
  await session.send("Runtime.callFunctionOn", {
    functionDeclaration: wrapper,
    objectId: result.objectId!,
    arguments: args.map((value) => ({ value })),
    awaitPromise: true,
    returnByValue: false,
    silent: true,
  });
}

/** The outcome left in the document (`data-cb-result` or `data-cb-error`), read in the world and cut there to `maxChars`. */
export async function readOutcome(session: CDPSession, maxChars: number): Promise<{ result?: string; resultChars?: number; error?: string }> {
  const out = await inWorld(
    session,
    `(() => {
      const r = document.documentElement.getAttribute("data-cb-result");
      const e = document.documentElement.getAttribute("data-cb-error");
      if (r !== null) return { result: r.slice(0, ${maxChars}), resultChars: r.length };
      return e === null ? {} : { error: e.slice(0, ${maxChars}) };
    })()`,
  );
  return out.value as { result?: string; resultChars?: number; error?: string };
}
