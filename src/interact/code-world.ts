/**
 * @module interact/code-world
 * Where a function is run on an element for a read or a caller's `evaluate` (interact/isolated-world.ts
 * `WorldElement.call`: a locator's `evaluate`, JavaScript's and Python's, and reads such as `textContent`): an
 * isolated world of the session page's main frame of its own, not crawlbox's, and its value measured there by
 * functions taken when the world was made, before any caller's code ran in it.
 *
 * Why: a locator's `evaluate` ran the caller's function in crawlbox's world, and its value was measured there by the
 * `JSON.stringify` that world had at the time. A function that replaced it (`JSON.stringify = () => '"small"'`) had a
 * 2 MB value, and every later read of that document (`allTextContents` too), answer "small"; one whose replacement
 * returned an object sent that object across the DevTools connection unmeasured (20 MB and more); and
 * `String.prototype.slice` replaced there would have let crawlbox's own reads (a title cut at 10,000 characters)
 * send what they cut. An error the function threw crossed whole (a 20 MB message) before crawlbox cut it to 300.
 *
 * Now crawlbox's world runs crawlbox's code alone; this world gets, at its making, a kit ({@link CODE_KIT}) that holds
 * `JSON.stringify`, `Array.isArray`, a typed array's length getter, `eval` and the string functions it needs in a
 * strict closure no global reaches: the caller's code may change the world's builtins as it likes, the measure is
 * the kit's own (engines/browser/budgeted-json.ts `BOUNDED_ANSWER`). The function's source is handed to the kit as a
 * string and compiled there at the world's top level: pasted into a function of crawlbox's, as it was, a source could
 * close that function and put one of its own in its place, answering anything unmeasured. What it throws comes back
 * as its first line, at most 300 characters, made in the world. Everything crosses by value, within the bound.
 *
 * The element is carried over from crawlbox's world by its node (`DOM.describeNode`, `DOM.resolveNode`); the handle
 * made for the call is released after it, so a call keeps nothing of the page alive.
 */
import type { CDPSession } from "puppeteer-core";
import { BOUNDED_ANSWER } from "../engines/browser/budgeted-json.ts";
import { PageOpError } from "./page-ops.ts";

/** Characters of the first line of an error the caller's function throws. */
const MAX_THROWN_CHARS = 300;
const WORLD = "crawlbox-code";
/** The kit's handle, kept while the world lives (a few hundred bytes). */
const KIT_GROUP = "crawlbox-code-kit";

/**
 * Source of the kit, evaluated once in a new world: `(src, el, arg, maxChars) => answer`, which compiles `src` (the
 * source of `function (arg) {…}`) at the world's top level, calls it on `el` (its `this`) with `arg` and answers
 * `{thrown}` (the first line of what it threw, as DevTools names it) or {@link BOUNDED_ANSWER}'s answer for its value.
 */
export const CODE_KIT = `(() => {
  "use strict";
  const apply = Reflect.apply, compile = eval, stringify = JSON.stringify, isArray = Array.isArray, isView = ArrayBuffer.isView;
  const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
  const slice = String.prototype.slice, indexOf = String.prototype.indexOf, symbolText = Symbol.prototype.toString;
  const objectTag = Object.prototype.toString;
  const isError = typeof Error.isError === "function" ? Error.isError : (x) => apply(objectTag, x, []) === "[object Error]";
  const viewLength = (x) => { if (!isView(x)) return -1; try { return apply(typedLength, x, []); } catch (_) { return -1; } };
  const answer = ${BOUNDED_ANSWER}(stringify, isArray, viewLength);
  const cut = (s, n) => apply(slice, s, [0, n]);
  const firstLine = (s) => { const t = cut(s, ${MAX_THROWN_CHARS}); const i = apply(indexOf, t, ["\\n"]); return i < 0 ? t : cut(t, i); };
  // As DevTools names a thrown value: "TypeError: message" (its class's name), "Object", a number's digits, and
  // "Uncaught" for a string, null or undefined. Each read is guarded, and cut before it is joined.
  const thrownText = (e) => {
    const t = typeof e;
    if (e === null || t === "undefined" || t === "string") return "Uncaught";
    if (t === "number" || t === "boolean") return "" + e;
    if (t === "bigint") return e + "n";
    if (t === "symbol") return apply(symbolText, e, []);
    let name = t === "function" ? "Function" : "Object";
    try { const c = e.constructor, n = c && c.name; if (typeof n === "string" && n !== "") name = cut(n, ${MAX_THROWN_CHARS}); } catch (_) {}
    let message;
    try { if (isError(e)) message = e.message; } catch (_) {}
    return firstLine(typeof message === "string" && message !== "" ? name + ": " + cut(message, ${MAX_THROWN_CHARS}) : name);
  };
  return (src, el, arg, maxChars) => {
    try {
      return answer(apply(compile("(" + src + "\\n)"), el, [arg]), maxChars, "the value is");
    } catch (e) {
      try { return { thrown: thrownText(e) }; } catch (_) { return { thrown: "Uncaught" }; }
    }
  };
})()`;

/** What crawlbox runs on the element in the code world: the kit, given the function's source as data. */
const CALL = `function (kit, src, arg, maxChars) { return kit(src, this, arg, maxChars); }`;

/** What resolving a node in a world of another document says. */
const STALE_WORLD = /Cannot find context|context with specified id|Execution context was destroyed|does not belong to the document/i;

interface CodeWorld {
  contextId: number;
  kitId: string;
}
/** Each session page's code world, as it is being made or made (calls at once share one). */
const worlds = new WeakMap<CDPSession, Promise<CodeWorld>>();
let calls = 0;

/** The session page's code world, made (with its kit) when there is none for the document yet. */
function codeWorld(session: CDPSession): Promise<CodeWorld> {
  let world = worlds.get(session);
  if (!world) {
    world = makeWorld(session);
    worlds.set(session, world);
    world.catch(() => worlds.get(session) === world && worlds.delete(session));
  }
  return world;
}

async function makeWorld(session: CDPSession): Promise<CodeWorld> {
  const { frameTree } = await session.send("Page.getFrameTree");
  const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: WORLD });
  // The kit first: no caller's code has run in a world this new, so what it takes is the world's own.
  const { result, exceptionDetails } = await session.send("Runtime.evaluate", { expression: CODE_KIT, contextId: executionContextId, returnByValue: false, objectGroup: KIT_GROUP });
  if (exceptionDetails || !result.objectId) throw new PageOpError("the page's code world could not be made");
  return { contextId: executionContextId, kitId: result.objectId };
}

/**
 * Runs `src` (source of `function (arg) {…}`, `this` the element) on the element `elementId` (a handle in crawlbox's
 * world) in the code world; its value, bounded at `maxChars` there, as JSON gives it back (a string as it is;
 * `undefined` when JSON has nothing for it). What it throws, or a value over the bound, is a {@link PageOpError}
 * (`Error: boom`, `Error: the value is more than 1000000 characters, over the 1000000 that are read`).
 */
export async function evaluateInCodeWorld(session: CDPSession, elementId: string, src: string, arg: unknown, maxChars: number): Promise<unknown> {
  const { node } = await session.send("DOM.describeNode", { objectId: elementId });
  const group = `crawlbox-code-call-${++calls}`;
  try {
    for (let attempt = 0; ; attempt++) {
      const made = codeWorld(session);
      const world = await made;
      let objectId: string | undefined;
      try {
        objectId = (await session.send("DOM.resolveNode", { backendNodeId: node.backendNodeId, executionContextId: world.contextId, objectGroup: group })).object.objectId;
      } catch (err) {
        // The world belonged to a document that is gone, or left (a navigation; a page kept for going back keeps its
        // worlds): a new one for the element's document, once.
        if (attempt === 0 && STALE_WORLD.test((err as Error).message)) {
          if (worlds.get(session) === made) worlds.delete(session);
          continue;
        }
        throw err;
      }
      const { result, exceptionDetails } = await session.send("Runtime.callFunctionOn", {
        objectId: objectId!,
        functionDeclaration: CALL,
        arguments: [{ objectId: world.kitId }, { value: src }, { value: arg }, { value: maxChars }],
        returnByValue: true,
      });
      if (exceptionDetails) throw new PageOpError(String(exceptionDetails.exception?.description ?? exceptionDetails.text).split("\n")[0]!.slice(0, MAX_THROWN_CHARS));
      return fromAnswer(result.value);
    }
  } finally {
    await session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
  }
}

/** The value of a kit's answer, or its refusal or error as a {@link PageOpError}. */
function fromAnswer(a: unknown): unknown {
  if (typeof a === "string") return a;
  const o = (a ?? {}) as { json?: unknown; over?: unknown; thrown?: unknown };
  if (typeof o.thrown === "string") throw new PageOpError(o.thrown);
  // With the "Error: " that DevTools put before it when the world threw it: withoutErrorPrefix takes it off.
  if (typeof o.over === "string") throw new PageOpError(`Error: ${o.over}`);
  return typeof o.json === "string" ? (JSON.parse(o.json) as unknown) : undefined;
}
