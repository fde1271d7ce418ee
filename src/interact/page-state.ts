/**
 * @module interact/page-state
 * What the model sees of an interactive session's page before each step: its URL and title, the start of its
 * visible text, and a numbered list of the elements it can act on (links, buttons, form fields, elements with a
 * button or link role, visible ones only). The listed elements are kept in the page's isolated world
 * (interact/isolated-world.ts), so the step the model picks by number reaches exactly that element: the page can
 * neither see the numbers nor move one to an element of its choosing (a mark in the DOM, as the first version had,
 * it could). The reading runs in that world too (see {@link readPageState}) and its result is bounded again here.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { inWorld, worldElement, type WorldElement } from "./isolated-world.ts";

/** Elements listed per step, in document order. */
export const MAX_ELEMENTS = 80;
/** Characters of the page's visible text shown per step. */
export const MAX_TEXT_CHARS = 4_000;

/** One element the model may act on. */
export interface PageElement {
  ix: number;
  tag: string;
  /** `type` of an input, `role` of another element. */
  kind?: string;
  /** What a person reads on it: its text, label, placeholder or value. */
  label: string;
}

/** The page as the model sees it. */
export interface PageState {
  url: string;
  title: string;
  text: string;
  elements: PageElement[];
}

/**
 * The reader, run in an isolated world (the page's own scripts cannot redefine what it calls). Plain JavaScript in a
 * string, so that neither the TypeScript transpiler nor the binary's minifier can add names it would not find there.
 */
const READER = `(function (maxElements, maxText) {
  const kept = [];
  globalThis.__crawlboxIx = kept;
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=tab], [role=menuitem], summary";
  const elements = [];
  for (const el of Array.from(document.querySelectorAll(selector))) {
    if (elements.length >= maxElements) break;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === "hidden" || style.display === "none") continue;
    const label = (el.innerText || el.getAttribute("aria-label") || el.placeholder || el.value || el.getAttribute("title") || el.getAttribute("href") || "")
      .replace(/\\s+/g, " ").trim().slice(0, 100);
    const ix = elements.length;
    kept.push(el);
    const kind = el.getAttribute("type") || el.getAttribute("role") || "";
    elements.push({ ix: ix, tag: el.tagName.toLowerCase(), kind: kind, label: label });
  }
  const text = document.body ? document.body.innerText : "";
  return { url: location.href, title: document.title, text: text.replace(/\\n{3,}/g, "\\n\\n").slice(0, maxText), elements: elements };
})`;

/** Kept on the server side too: whatever came back is cut to the limits and to plain strings. */
function bounded(raw: unknown): PageState {
  const r = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const str = (v: unknown, max: number) => (typeof v === "string" ? v.slice(0, max) : "");
  const elements = (Array.isArray(r.elements) ? r.elements : []).slice(0, MAX_ELEMENTS).map((e, i) => {
    const o = (typeof e === "object" && e !== null ? e : {}) as Record<string, unknown>;
    const kind = str(o.kind, 40);
    return { ix: i, tag: str(o.tag, 20), ...(kind ? { kind } : {}), label: str(o.label, 100) };
  });
  return { url: str(r.url, 2_000), title: str(r.title, 300), text: str(r.text, MAX_TEXT_CHARS), elements };
}

/**
 * Reads the page's state and keeps its interactive elements (those of an earlier step are replaced), in the
 * isolated world of the page's main frame reached through `session` (CDP): the page shares its DOM with that world
 * but not its JavaScript, so it can neither fake the state nor break the reader by redefining built-ins.
 */
export async function readPageState(session: CDPSession): Promise<PageState> {
  const result = await inWorld(session, `${READER}(${MAX_ELEMENTS}, ${MAX_TEXT_CHARS})`).catch(() => {
    throw new Error("the page could not be read");
  });
  return bounded(result.value);
}

/** Element `ix` of the last reading; undefined when there is none (or the page has changed documents since). */
export function listedElement(page: Page, session: CDPSession, ix: number): Promise<WorldElement | undefined> {
  return worldElement(page, session, `globalThis.__crawlboxIx ? globalThis.__crawlboxIx[${Math.trunc(ix)}] : undefined`);
}

/** The state as text for the model: the page's text, then one line per element. */
export function describeState(state: PageState): string {
  const lines = state.elements.map((e) => `[${e.ix}] <${e.tag}${e.kind ? ` ${e.kind}` : ""}> ${e.label}`);
  return `URL: ${state.url}\nTitle: ${state.title}\n\nVisible text:\n${state.text}\n\nElements:\n${lines.join("\n") || "(none)"}`;
}
