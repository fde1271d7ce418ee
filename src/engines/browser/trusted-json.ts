/**
 * @module engines/browser/trusted-json
 * A copy of the page's own `JSON.stringify` taken before any of the page's scripts run, for measuring and
 * serialising the values of caller scripts (`executeJavascript`, interact's `evaluate`; script.ts). Those scripts
 * run in the page's main world on purpose (they are the caller's code against the page), so the page's scripts
 * share that world and could replace `JSON.stringify` with one that reports a tiny size for a huge value, which
 * would then cross the DevTools connection whole. The copy lives on `window` under a name random to this process,
 * frozen and not configurable: a page can find it but neither replace nor change it, and `window` itself cannot be
 * replaced. A value is turned into JSON text with it, in the page, and only text within the caller's bound crosses.
 */
import { randomBytes } from "node:crypto";

/** The `window` property holding the copy (random per process, so no page is written against it). */
export const TRUSTED_JSON_NAME = `__crawlbox_json_${randomBytes(12).toString("hex")}`;

/**
 * Registered with `Page.addScriptToEvaluateOnNewDocument` (engines/browser/setup.ts): runs in every document of
 * the page before its own scripts. Everything the copy calls is captured here, not looked up when it runs; so are
 * `Array.isArray` and a typed array's length, for the replacer that measures a value's JSON as it is written (budgeted-json.ts `COUNTED_JSON`).
 */
export const TRUSTED_JSON_SOURCE = `(() => {
  try {
    const stringify = JSON.stringify, json = JSON, apply = Reflect.apply, isArray = Array.isArray, isView = ArrayBuffer.isView;
    const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
    // For the replacer that measures a value's JSON as it is written (script.ts): which holder it is in, and how many
    // items a typed array has (-1: not one), told before JSON lists their keys.
    const viewLength = (x) => { if (!isView(x)) return -1; try { return apply(typedLength, x, []); } catch { return -1; } };
    const trusted = Object.freeze({ stringify: (value, replacer) => apply(stringify, json, [value, replacer]), isArray: isArray, viewLength: viewLength });
    Object.defineProperty(window, ${JSON.stringify(TRUSTED_JSON_NAME)}, { value: trusted, writable: false, configurable: false, enumerable: false });
  } catch {}
})();`;
