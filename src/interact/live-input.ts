/**
 * @module interact/live-input
 * What a person does in a session's interactive live view (`interactiveLiveViewUrl`, interact/live-view.ts),
 * carried out on the session's page as real input through CDP `Input.*`: a click, a move, a wheel turn, a key, or
 * text typed. Positions come as fractions (0–1) of the frame the viewer shows and are mapped to the page's
 * viewport, so the viewer's own size does not matter. Events are checked here (types, ranges, sizes) before they
 * reach the browser; what the page then does (navigate, submit) goes through the egress gate as any page's
 * requests do. This is how a person solves a login or a consent screen by hand in a session that is then saved to
 * a profile.
 */
import type { CDPSession } from "puppeteer-core";
import { BadRequestError } from "../errors.ts";

/** Longest text one `text` event may type. */
export const MAX_TEXT_CHARS = 1_000;

/**
 * Keys a `key` event may press, with their DOM key codes (printable text is typed with `text`). A Map, not an object
 * literal: a viewer's `key` is looked up in it, and an object would also answer its inherited names (`constructor`,
 * `toString`, `__proto__`) with something that is not a key code.
 */
const KEYS: ReadonlyMap<string, number> = new Map(Object.entries({
  Enter: 13, Backspace: 8, Tab: 9, Escape: 27, Delete: 46, Space: 32, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Home: 36, End: 35, PageUp: 33, PageDown: 34,
}));

/** One event from the viewer. */
export type LiveInput =
  | { type: "click" | "move"; x: number; y: number; button?: "left" | "right" | "middle"; count?: number }
  | { type: "wheel"; x: number; y: number; deltaX: number; deltaY: number }
  | { type: "key"; key: string }
  | { type: "text"; text: string };

const bad = (message: string) => new BadRequestError(message, [{ code: "custom", path: [], message }]);
const fraction = (v: unknown, name: string): number => {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) throw bad(`${name} is a fraction of the frame, from 0 to 1.`);
  return v;
};

/** Checks a viewer's event (a JSON body); a 400 naming the problem otherwise. */
export function parseLiveInput(body: unknown): LiveInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw bad("The body is one input event: {type, …}.");
  const b = body as Record<string, unknown>;
  switch (b.type) {
    case "click":
    case "move": {
      const button = b.button ?? "left";
      if (button !== "left" && button !== "right" && button !== "middle") throw bad('button is "left", "right" or "middle".');
      // The click's place in a series, as the browser counts it: 2 makes the page see a double click.
      const count = b.count ?? 1;
      if (count !== 1 && count !== 2 && count !== 3) throw bad("count is 1, 2 or 3 (the click's place in a double or triple click).");
      return { type: b.type, x: fraction(b.x, "x"), y: fraction(b.y, "y"), button, count };
    }
    case "wheel": {
      const d = (v: unknown, name: string) => {
        if (typeof v !== "number" || !Number.isFinite(v) || Math.abs(v) > 10_000) throw bad(`${name} is a number of pixels, at most 10000 either way.`);
        return v;
      };
      return { type: "wheel", x: fraction(b.x, "x"), y: fraction(b.y, "y"), deltaX: d(b.deltaX ?? 0, "deltaX"), deltaY: d(b.deltaY ?? 0, "deltaY") };
    }
    case "key":
      if (typeof b.key !== "string" || !KEYS.has(b.key)) throw bad(`key is one of ${[...KEYS.keys()].join(", ")} (type text with {type: "text"}).`);
      return { type: "key", key: b.key };
    case "text":
      if (typeof b.text !== "string" || b.text.length === 0 || b.text.length > MAX_TEXT_CHARS) throw bad(`text is 1 to ${MAX_TEXT_CHARS} characters.`);
      return { type: "text", text: b.text };
    default:
      throw bad('type is "click", "move", "wheel", "key" or "text".');
  }
}

/** The page's viewport in CSS pixels (what a frame shows). */
async function viewport(session: CDPSession): Promise<{ width: number; height: number }> {
  const m = (await session.send("Page.getLayoutMetrics")) as { cssVisualViewport?: { clientWidth: number; clientHeight: number } };
  return { width: m.cssVisualViewport?.clientWidth ?? 1280, height: m.cssVisualViewport?.clientHeight ?? 800 };
}

/** Carries out `input` on the page behind `session`. */
export async function dispatchLiveInput(session: CDPSession, input: LiveInput): Promise<void> {
  if (input.type === "text") {
    await session.send("Input.insertText", { text: input.text });
    return;
  }
  if (input.type === "key") {
    const code = KEYS.get(input.key);
    // parseLiveInput lets only these keys through; an input built elsewhere is refused here rather than sent half-made.
    if (code === undefined) throw bad(`key is one of ${[...KEYS.keys()].join(", ")}.`);
    const key = input.key === "Space" ? " " : input.key;
    const text = input.key === "Enter" ? "\r" : input.key === "Space" ? " " : undefined;
    await session.send("Input.dispatchKeyEvent", { type: text ? "keyDown" : "rawKeyDown", key, code: input.key, windowsVirtualKeyCode: code, ...(text ? { text } : {}) });
    await session.send("Input.dispatchKeyEvent", { type: "keyUp", key, code: input.key, windowsVirtualKeyCode: code });
    return;
  }
  const vp = await viewport(session);
  const x = Math.round(input.x * vp.width);
  const y = Math.round(input.y * vp.height);
  if (input.type === "wheel") {
    await session.send("Input.dispatchMouseEvent", { type: "mouseWheel", x, y, deltaX: input.deltaX, deltaY: input.deltaY });
    return;
  }
  await session.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
  if (input.type === "move") return;
  const button = input.button ?? "left";
  const clickCount = input.count ?? 1;
  await session.send("Input.dispatchMouseEvent", { type: "mousePressed", x, y, button, clickCount });
  await session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button, clickCount });
}
