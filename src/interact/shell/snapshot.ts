/**
 * @module interact/shell/snapshot
 * `agent-browser snapshot`: the page as an outline a script (or the model behind it) can read, in agent-browser's
 * manner: one line per heading, link, button, form field, image and piece of text, indented under what contains
 * it, with a ref (`[ref=e3]`) on every element a later command may name as `@e3`. The refs are kept in the session
 * page's isolated world (interact/isolated-world.ts), replaced by the next snapshot and gone with the document: the
 * page can neither see them nor move one to another element. The reader runs in that world too (the page shares
 * its DOM with it, not its JavaScript), so a page cannot fake the outline or break the reader by redefining
 * built-ins; what comes back is bounded again here.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { inWorld, worldElement, type WorldElement } from "../isolated-world.ts";
import { PageOpError } from "../page-ops.ts";

/** Lines one snapshot may have. */
export const MAX_SNAPSHOT_LINES = 2_000;
/** Characters of one element's name or text. */
const MAX_NAME_CHARS = 200;

/** What to outline. */
export interface SnapshotOptions {
  /** `-i`: interactive elements only (links, buttons, form fields, tabs, menu items). */
  interactive?: boolean;
  /** `-d N`: nesting levels shown (1: top level only). */
  maxDepth?: number;
  /** `-s SELECTOR`: the part of the page to outline. */
  scope?: string;
}

/** The outline, or why there is none. */
export interface Snapshot {
  lines: string[];
  /** Refs handed out (`e1`…). */
  refs: number;
  truncated: boolean;
  /** The scope selector matched nothing (or could not be parsed). */
  scopeMissing?: boolean;
}

/**
 * The reader. Plain JavaScript in a string, so that neither the TypeScript transpiler nor the binary's minifier can
 * add names it would not find in the isolated world.
 */
const READER = `(function (o) {
  const refMap = new Map();
  globalThis.__crawlboxRefs = refMap;
  let root = document.body || document.documentElement;
  if (o.scope) { try { root = document.querySelector(o.scope); } catch (e) { root = null; } }
  if (!root) return { lines: [], refs: 0, truncated: false, scopeMissing: true };
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK"]);
  const TEXT_INPUTS = new Set(["", "text", "email", "search", "password", "url", "tel", "number", "date", "time", "datetime-local", "month", "week"]);
  const lines = [];
  let refs = 0;
  let truncated = false;
  const clip = (s) => String(s || "").replace(/\\s+/g, " ").trim().slice(0, o.maxName);
  const quote = (s) => JSON.stringify(s);
  function roleOf(el) {
    const tag = el.tagName;
    const explicit = (el.getAttribute("role") || "").toLowerCase();
    if (/^H[1-6]$/.test(tag)) return ["heading", false];
    if (tag === "A" && el.hasAttribute("href")) return ["link", true];
    if (tag === "BUTTON" || tag === "SUMMARY") return ["button", true];
    if (tag === "SELECT") return ["combobox", true];
    if (tag === "TEXTAREA") return ["textbox", true];
    if (tag === "INPUT") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (type === "hidden") return null;
      if (type === "checkbox" || type === "radio") return [type, true];
      if (type === "button" || type === "submit" || type === "reset" || type === "image") return ["button", true];
      if (TEXT_INPUTS.has(type)) return ["textbox", true];
      return [type, true];
    }
    if (["button", "link", "tab", "menuitem", "checkbox", "radio", "textbox", "combobox", "switch", "option"].includes(explicit)) return [explicit, true];
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return ["textbox", true];
    if (tag === "IMG" && clip(el.getAttribute("alt"))) return ["img", false];
    return null;
  }
  function nameOf(el, role) {
    const given = el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].innerText : "");
    if (given) return clip(given);
    const tag = el.tagName;
    if (tag === "IMG") return clip(el.getAttribute("alt"));
    if (tag === "SELECT") return clip(el.getAttribute("title"));
    if (tag === "INPUT" || tag === "TEXTAREA") return clip(el.getAttribute("placeholder") || el.getAttribute("title") || (role === "button" ? el.value : ""));
    return clip(el.innerText || el.getAttribute("title"));
  }
  /** What a field holds: a textbox's text, a combobox's chosen option. */
  function valueOf(el, role) {
    if (role === "textbox" && "value" in el) return clip(el.value);
    if (role === "combobox" && el.selectedOptions && el.selectedOptions[0]) return clip(el.selectedOptions[0].text);
    return "";
  }
  function ownText(el) {
    let s = "";
    for (const n of Array.from(el.childNodes)) if (n.nodeType === 3) s += n.nodeValue;
    return clip(s);
  }
  function shown(el) {
    if (el.hidden) return false;
    if (typeof el.checkVisibility === "function") return el.checkVisibility({ visibilityProperty: true });
    const st = getComputedStyle(el);
    return st.display !== "none" && st.visibility !== "hidden";
  }
  function emit(depth, text) {
    if (lines.length >= o.maxLines) { truncated = true; return false; }
    lines.push("  ".repeat(depth) + "- " + text);
    return true;
  }
  function walk(el, depth) {
    if (depth >= o.maxDepth) return;
    for (const child of Array.from(el.children)) {
      if (truncated) return;
      if (SKIP.has(child.tagName) || !shown(child)) continue;
      const r = roleOf(child);
      let inner = depth;
      if (r && (!o.interactive || r[1])) {
        refs++;
        const ref = "e" + refs;
        refMap.set(ref, child);
        let extra = " [ref=" + ref + "]";
        if (r[0] === "heading") extra += " [level=" + child.tagName.slice(1) + "]";
        if ((r[0] === "checkbox" || r[0] === "radio") && child.checked) extra += " [checked]";
        if (child.disabled) extra += " [disabled]";
        const value = valueOf(child, r[0]);
        if (!emit(depth, r[0] + " " + quote(nameOf(child, r[0])) + extra + (value ? ": " + value : ""))) return;
        // An element's text is its name (a card wrapped in a link reads as the link): not repeated below it.
        continue;
      } else if (!r && !o.interactive) {
        const text = ownText(child);
        if (text) {
          if (!emit(depth, (child.tagName === "P" ? "paragraph" : "text") + ": " + text)) return;
          inner = depth + 1;
        }
      }
      walk(child, inner);
    }
  }
  walk(root, 0);
  return { lines: lines, refs: refs, truncated: truncated };
})`;

/** Outlines the page's main frame through `session` (CDP), keeping its refs; see the module comment. */
export async function takeSnapshot(session: CDPSession, options: SnapshotOptions = {}): Promise<Snapshot> {
  const args = { interactive: !!options.interactive, maxDepth: options.maxDepth ?? 1_000, scope: options.scope ?? "", maxLines: MAX_SNAPSHOT_LINES, maxName: MAX_NAME_CHARS };
  const result = await inWorld(session, `${READER}(${JSON.stringify(args)})`).catch(() => {
    throw new PageOpError("the page could not be read");
  });
  const r = (typeof result.value === "object" && result.value !== null ? result.value : {}) as Record<string, unknown>;
  const lines = (Array.isArray(r.lines) ? r.lines : []).slice(0, MAX_SNAPSHOT_LINES).map((l) => String(l).slice(0, MAX_NAME_CHARS + 200));
  return { lines, refs: typeof r.refs === "number" ? r.refs : 0, truncated: r.truncated === true, ...(r.scopeMissing === true ? { scopeMissing: true } : {}) };
}

/**
 * The element a command's target names: `@e3` (or `ref=e3`) is the last snapshot's ref, anything else a CSS selector
 * (its first match). Undefined when nothing matches; a selector the browser cannot parse is a {@link PageOpError}.
 */
export async function findTarget(page: Page, session: CDPSession, target: string): Promise<WorldElement | undefined> {
  const ref = /^(?:@|ref=)(e\d{1,6})$/.exec(target);
  if (ref) return worldElement(page, session, `globalThis.__crawlboxRefs ? globalThis.__crawlboxRefs.get(${JSON.stringify(ref[1])}) : undefined`);
  return worldElement(page, session, `document.querySelector(${JSON.stringify(target)})`).catch((err: Error) => {
    throw new PageOpError(`${target} is not a valid selector (${err.message.slice(0, 120)})`);
  });
}

/** How many elements CSS `selector` matches. */
export async function countMatches(session: CDPSession, selector: string): Promise<number> {
  const r = await inWorld(session, `document.querySelectorAll(${JSON.stringify(selector)}).length`).catch((err: Error) => {
    throw new PageOpError(`${selector} is not a valid selector (${err.message.slice(0, 120)})`);
  });
  return r.value as number;
}
