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
 * A world is made for a document under a name never used before, and dropped (its kit released) when its document is
 * gone: Chromium answers a world's name with the world it has for it, where the caller's code may have run.
 *
 * The element is carried over from crawlbox's world by its node (`DOM.describeNode`, `DOM.resolveNode`); the handle
 * made for the call is released after it, so a call keeps nothing of the page alive. An element the page moved into a
 * document of no frame (a `<template>`'s content) is a {@link PageOpError}, not a reason to make a world again.
 */
import type { CDPSession } from "puppeteer-core";
import { BOUNDED_ANSWER, fromBounded } from "../engines/browser/budgeted-json.ts";
import { PageOpError } from "./page-ops.ts";

/** Characters of the first line of an error the caller's function throws. */
const MAX_THROWN_CHARS = 300;
/**
 * Names of the code worlds, a number after it for each one made: Chromium answers `Page.createIsolatedWorld` with the
 * world it already has for a name in the frame's document, which may be one the caller's code has run in (its
 * `JSON.stringify` replaced): a kit made there would measure with the caller's functions.
 */
const WORLD_PREFIX = "crawlbox-code-";
/** The object group of a world's kit (a few hundred bytes), released when the world is dropped. */
const KIT_GROUP_PREFIX = "crawlbox-code-kit-";

/**
 * Source of the kit, evaluated once in a new world: `(src, el, arg, maxChars) => answer`, which compiles `src` (the
 * source of `function (arg) {…}`) at the world's top level, calls it on `el` (its `this`) with `arg` and answers
 * `{thrown}` (the first line of what it threw, as DevTools names it) or {@link BOUNDED_ANSWER}'s answer for its value.
 */
export const CODE_KIT = `(() => {
  "use strict";
  const apply = Reflect.apply, compile = eval, stringify = JSON.stringify, isArray = Array.isArray, isView = ArrayBuffer.isView;
  const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
  const slice = String.prototype.slice, indexOf = String.prototype.indexOf;
  const symbolDescription = Object.getOwnPropertyDescriptor(Symbol.prototype, "description").get;
  const objectTag = Object.prototype.toString;
  const isError = typeof Error.isError === "function" ? Error.isError : (x) => apply(objectTag, x, []) === "[object Error]";
  const viewLength = (x) => { if (!isView(x)) return -1; try { return apply(typedLength, x, []); } catch (_) { return -1; } };
  const answer = ${BOUNDED_ANSWER}(stringify, isArray, viewLength);
  const cut = (s, n) => apply(slice, s, [0, n]);
  const firstLine = (s) => { const t = cut(s, ${MAX_THROWN_CHARS}); const i = apply(indexOf, t, ["\\n"]); return i < 0 ? t : cut(t, i); };
  // As DevTools names a thrown value: "TypeError: message" (its class's name), "Object", a number's digits, and
  // "Uncaught" for a string, null or undefined, "Symbol(description)". Each read is guarded, and cut before it is
  // joined: what crosses is the first line, at most ${MAX_THROWN_CHARS} characters.
  const thrownText = (e) => {
    const t = typeof e;
    if (e === null || t === "undefined" || t === "string") return "Uncaught";
    if (t === "number" || t === "boolean") return "" + e;
    if (t === "bigint") return firstLine(e + "n");
    if (t === "symbol") { const d = apply(symbolDescription, e, []); return firstLine("Symbol(" + (d === undefined ? "" : cut(d, ${MAX_THROWN_CHARS})) + ")"); }
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

/** What resolving a node in a world whose document is gone says. */
export const STALE_WORLD = /Cannot find context|context with specified id|Execution context was destroyed/i;
/** What resolving a node says when the node is not in the world's frame's document (a template's content, another frame's). */
const OTHER_DOCUMENT = /does not belong to the document/i;

interface CodeWorld {
  contextId: number;
  kitId: string;
  kitGroup: string;
}
/** Each session page's code world, as it is being made or made (calls at once share one). */
const worlds = new WeakMap<CDPSession, Promise<CodeWorld>>();
/** The execution contexts each session page's code worlds have had: a world is used once made, never again after. */
const contextsSeen = new WeakMap<CDPSession, Set<number>>();
let calls = 0;
let worldsMade = 0;

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

/** Forgets `made` as the session page's code world, and releases its kit. */
function dropWorld(session: CDPSession, made: Promise<CodeWorld>): void {
  if (worlds.get(session) !== made) return;
  worlds.delete(session);
  made.then((w) => session.send("Runtime.releaseObjectGroup", { objectGroup: w.kitGroup })).catch(() => {});
}

async function makeWorld(session: CDPSession): Promise<CodeWorld> {
  const n = ++worldsMade;
  const { frameTree } = await session.send("Page.getFrameTree");
  const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: `${WORLD_PREFIX}${n}` });
  // A name never used before makes a new world; checked all the same, since a kit made in one the caller's code
  // has run in would measure with what that code left there.
  let seen = contextsSeen.get(session);
  if (!seen) contextsSeen.set(session, (seen = new Set()));
  if (seen.has(executionContextId)) throw new PageOpError("the page's code world could not be made (Chromium gave an existing one)");
  seen.add(executionContextId);
  // The kit first: no caller's code has run in a world this new, so what it takes is the world's own.
  const kitGroup = `${KIT_GROUP_PREFIX}${n}`;
  const { result, exceptionDetails } = await session.send("Runtime.evaluate", { expression: CODE_KIT, contextId: executionContextId, returnByValue: false, objectGroup: kitGroup });
  if (exceptionDetails || !result.objectId) throw new PageOpError("the page's code world could not be made");
  return { contextId: executionContextId, kitId: result.objectId, kitGroup };
}

/**
 * Whether the element `elementId` (crawlbox's world) is in the document of crawlbox's world's frame: not when the
 * page moved it into a document of no frame (a `<template>`'s content, `document.implementation.createHTMLDocument`)
 * or another frame's.
 */
async function inPageDocument(session: CDPSession, elementId: string): Promise<boolean> {
  const { result } = await session.send("Runtime.callFunctionOn", {
    objectId: elementId,
    functionDeclaration: `function () { return (this.ownerDocument || this) === document; }`,
    returnByValue: true,
  });
  return result.value === true;
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
        const message = (err as Error).message;
        // Not a world's fault: the node is in no document of the page's frame. Remaking the world would not help.
        if (OTHER_DOCUMENT.test(message) && !(await inPageDocument(session, elementId).catch(() => false))) {
          throw new PageOpError("the element is not in the page's document (the page moved it into a template's content or another document)");
        }
        // The world belonged to a document that is gone, or left (a navigation; a page kept for going back keeps its
        // worlds): a new one, of a name of its own, for the element's document, once.
        if (attempt === 0 && (STALE_WORLD.test(message) || OTHER_DOCUMENT.test(message))) {
          dropWorld(session, made);
          continue;
        }
        if (OTHER_DOCUMENT.test(message)) throw new PageOpError("the element is not in the page's document");
        throw err;
      }
      const { result, exceptionDetails } = await session.send("Runtime.callFunctionOn", {
        objectId: objectId!,
        functionDeclaration: CALL,
        arguments: [{ objectId: world.kitId }, { value: src }, { value: arg }, { value: maxChars }],
        returnByValue: true,
      });
      if (exceptionDetails) throw thrownError(exceptionDetails);
      return fromAnswer(result.value);
    }
  } finally {
    await session.send("Runtime.releaseObjectGroup", { objectGroup: group }).catch(() => {});
  }
}

/** `thrown`'s first line, at most {@link MAX_THROWN_CHARS} characters, as a {@link PageOpError}. */
function firstLineError(thrown: string): PageOpError {
  return new PageOpError(thrown.split("\n")[0]!.slice(0, MAX_THROWN_CHARS));
}

/** What a script threw in a world (CDP's `exceptionDetails`), as crawlbox reports it: its first line, cut. */
export function thrownError(details: { exception?: { description?: string }; text: string }): PageOpError {
  return firstLineError(String(details.exception?.description ?? details.text));
}

/** The value of a kit's answer, or its refusal or error as a {@link PageOpError}. */
function fromAnswer(a: unknown): unknown {
  const o = (a ?? {}) as { over?: unknown; thrown?: unknown };
  // Cut in the world already; cut again here, so that no answer makes a longer message.
  if (typeof o.thrown === "string") throw firstLineError(o.thrown);
  // With the "Error: " that DevTools put before it when the world threw it: withoutErrorPrefix takes it off.
  if (typeof o.over === "string") throw new PageOpError(`Error: ${o.over}`);
  return fromBounded(a);
}
