/**
 * @module interact/sandbox/locate
 * Finds the elements a Playwright-style locator of the sandbox's `page` names (interact/sandbox/prelude.ts): a chain
 * of steps, each looked for inside the matches of the one before: CSS (also Playwright's `css=`), XPath (`xpath=` or
 * a selector starting with `//`), text (`getByText`, `text=`: the smallest visible elements whose text, scripts left
 * out, contains it, any case; or equals it with `exact`), role (`getByRole`: visible elements, with the accessible
 * `name`) and label (`getByLabel`). A step pinned by `nth()` keeps one match. Shadow roots are not looked into.
 * Puppeteer's own `::-p-text` and `::-p-aria` were tried first and, in this Bun build, matched every element.
 * The finding runs in the page's isolated world (interact/isolated-world.ts), which keeps the matches, in document
 * order, for the call that uses them: the page can neither redefine what the finder calls nor swap a match.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { boundedSource, fromBounded } from "../../engines/browser/budgeted-json.ts";
import { inWorld, worldElement, type WorldElement } from "../isolated-world.ts";
import { PageOpError, poll } from "../page-ops.ts";

/** One step of a locator; `nth` keeps one of its matches before the next step looks inside (a pinned `nth()`). */
export type Step = ({ css: string } | { xpath: string } | { text: string; exact?: boolean } | { role: string; name?: string; exact?: boolean } | { label: string; exact?: boolean } | { placeholder: string; exact?: boolean }) & { nth?: number };

/** Characters of the values read from all of a locator's matches at once. */
const MAX_LIST_CHARS = 1_000_000;
/** Bounds them in the world, their JSON written no further than that and sent as text (engines/browser/budgeted-json.ts). */
const BOUNDED_LIST = boundedSource(MAX_LIST_CHARS, "the values are");

/** A locator: its steps, and which match (0 first, -1 last; null: all of them). */
export interface Target {
  chain: Step[];
  nth: number | null;
}

const FINDER = `(function (chain) {
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE"]);
  const norm = (s) => String(s == null ? "" : s).replace(/\\s+/g, " ").trim();
  const has = (hay, needle, exact) => exact ? norm(hay) === norm(needle) : norm(hay).toLowerCase().includes(norm(needle).toLowerCase());
  const TEXT_INPUTS = ["", "text", "email", "search", "password", "url", "tel", "number"];
  // An element's text without its scripts and styles (textContent has them), each element's computed once.
  const memo = new Map();
  function textOf(e) {
    let t = memo.get(e);
    if (t !== undefined) return t;
    t = "";
    for (const n of Array.from(e.childNodes)) {
      if (n.nodeType === 3) t += n.nodeValue;
      else if (n.nodeType === 1 && !SKIP.has(n.tagName)) t += textOf(n);
    }
    memo.set(e, t);
    return t;
  }
  // Text and role locators find what a person sees: hidden elements (a collapsed menu's copy of a button) are not theirs.
  const shown = (e) => typeof e.checkVisibility !== "function" || e.checkVisibility({ visibilityProperty: true });
  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.trim().split(/\\s+/)[0].toLowerCase();
    const tag = el.tagName, type = (el.getAttribute("type") || "").toLowerCase();
    if (/^H[1-6]$/.test(tag)) return "heading";
    if (tag === "A" || tag === "AREA") return el.hasAttribute("href") ? "link" : "";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "INPUT") {
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
      if (type === "range") return "slider";
      if (TEXT_INPUTS.includes(type)) return el.hasAttribute("list") ? "combobox" : type === "search" ? "searchbox" : type === "number" ? "spinbutton" : "textbox";
      return "";
    }
    const map = { TEXTAREA: "textbox", SELECT: el.multiple ? "listbox" : "combobox", OPTION: "option", IMG: el.getAttribute("alt") === "" ? "presentation" : "img",
      UL: "list", OL: "list", LI: "listitem", NAV: "navigation", MAIN: "main", TABLE: "table", TR: "row", TD: "cell", TH: "columnheader",
      FORM: "form", DIALOG: "dialog", ARTICLE: "article", ASIDE: "complementary", HEADER: "banner", FOOTER: "contentinfo", P: "paragraph" };
    return map[tag] || "";
  }
  function nameOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) { const t = by.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((n) => textOf(n)).join(" "); if (norm(t)) return t; }
    const own = el.getAttribute("aria-label") || (el.labels && el.labels.length ? Array.from(el.labels).map((l) => textOf(l)).join(" ") : "");
    if (norm(own)) return own;
    if (el.tagName === "IMG") return el.getAttribute("alt") || "";
    if (el.tagName === "INPUT") return ["button", "submit", "reset"].includes((el.getAttribute("type") || "").toLowerCase()) ? el.value : el.getAttribute("placeholder") || el.getAttribute("title") || "";
    return textOf(el) || el.getAttribute("title") || "";
  }
  const inside = (r) => Array.from((r.nodeType === 9 ? r.documentElement : r).querySelectorAll("*")).filter((e) => !SKIP.has(e.tagName));
  function find(r, s) {
    if (s.css !== undefined) return Array.from(r.querySelectorAll(s.css));
    if (s.xpath !== undefined) {
      const res = document.evaluate(s.xpath, r, null, 7, null);
      const out = [];
      for (let i = 0; i < res.snapshotLength; i++) { const n = res.snapshotItem(i); if (n.nodeType === 1) out.push(n); }
      return out;
    }
    if (s.text !== undefined) {
      const m = inside(r).filter((e) => (has(textOf(e), s.text, s.exact) || (e.tagName === "INPUT" && ["button", "submit"].includes(e.type) && has(e.value, s.text, s.exact))) && shown(e));
      return m.filter((e) => !m.some((o) => o !== e && e.contains(o)));
    }
    if (s.role !== undefined) return inside(r).filter((e) => roleOf(e) === s.role && (s.name === undefined || has(nameOf(e), s.name, s.exact)) && shown(e));
    if (s.label !== undefined) return inside(r).filter((e) => (e.labels && Array.from(e.labels).some((l) => has(textOf(l), s.label, s.exact))) || (e.hasAttribute("aria-label") && has(e.getAttribute("aria-label"), s.label, s.exact)));
    if (s.placeholder !== undefined) return inside(r).filter((e) => e.hasAttribute("placeholder") && has(e.getAttribute("placeholder"), s.placeholder, s.exact));
    return [];
  }
  let roots = [document];
  for (const s of chain) {
    const next = new Set();
    for (const r of roots) for (const e of find(r, s)) next.add(e);
    roots = Array.from(next).sort((a, b) => (a.compareDocumentPosition(b) & 4 ? -1 : 1));
    if (typeof s.nth === "number") roots = roots.at(s.nth) ? [roots.at(s.nth)] : [];
  }
  globalThis.__crawlboxMatches = roots;
  return roots.length;
})`;

/** A step as the sandbox sent it, checked; Playwright's `text=`, `xpath=`, `css=` and `//` prefixes read. */
function step(v: unknown): Step {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  const s = (x: unknown, what: string) => {
    if (typeof x !== "string" || x.length === 0 || x.length > 2_000) throw new PageOpError(`${what} must be a string of 1 to 2,000 characters`);
    return x;
  };
  const exact = o.exact === true ? { exact: true } : {};
  const pin = Number.isInteger(o.nth) ? { nth: o.nth as number } : {};
  const kind = (): Step => {
    if (o.css !== undefined) {
      const css = s(o.css, "a selector");
      if (css.startsWith("text=")) {
        const quoted = /^"(.*)"$/.exec(css.slice(5));
        return quoted ? { text: quoted[1]!, exact: true } : { text: css.slice(5) };
      }
      if (css.startsWith("xpath=")) return { xpath: css.slice(6) };
      if (css.startsWith("//") || css.startsWith("(//")) return { xpath: css };
      return { css: css.startsWith("css=") ? css.slice(4) : css };
    }
    if (o.xpath !== undefined) return { xpath: s(o.xpath, "an XPath") };
    if (o.text !== undefined) return { text: s(o.text, "the text"), ...exact };
    if (o.role !== undefined) return { role: s(o.role, "the role").toLowerCase(), ...(o.name !== undefined ? { name: s(o.name, "the name") } : {}), ...exact };
    if (o.label !== undefined) return { label: s(o.label, "the label"), ...exact };
    if (o.placeholder !== undefined) return { placeholder: s(o.placeholder, "the placeholder"), ...exact };
    throw new PageOpError("a locator step must be css, xpath, text, role, label or placeholder");
  };
  return { ...kind(), ...pin };
}

/** A locator as the sandbox sent it, checked. */
export function target(v: unknown): Target {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  if (!Array.isArray(o.chain) || o.chain.length === 0 || o.chain.length > 20) throw new PageOpError("a locator has 1 to 20 steps");
  return { chain: o.chain.map(step), nth: o.nth === null ? null : Number.isInteger(o.nth) ? (o.nth as number) : 0 };
}

/** A readable form of a locator, for messages. */
export function describe(t: Target): string {
  return t.chain.map((s) => ("css" in s ? s.css : "xpath" in s ? `xpath=${s.xpath}` : "text" in s ? `text=${s.text}` : "role" in s ? `role=${s.role}${s.name ? `[name=${s.name}]` : ""}` : "label" in s ? `label=${s.label}` : `placeholder=${s.placeholder}`)).join(" >> ");
}

/** Finds `t`'s matches and keeps them in the world; how many there are. */
export async function locate(session: CDPSession, t: Target): Promise<number> {
  const r = await inWorld(session, `${FINDER}(${JSON.stringify(t.chain)})`).catch((err: Error) => {
    throw new PageOpError(`${describe(t)} is not a valid locator (${err.message.slice(0, 160)})`);
  });
  return r.value as number;
}

/** Runs `fn` (source of `function (el, i) {…}`) on every match of `t`, in the world; the values, bounded there, as JSON gives them. */
export async function mapMatches(session: CDPSession, t: Target, fn: string): Promise<unknown[]> {
  await locate(session, t);
  const r = await inWorld(session, `(${BOUNDED_LIST})(globalThis.__crawlboxMatches.map(${fn}))`);
  return fromBounded(r.value) as unknown[];
}

/** `t`'s match (its `nth`, the first by default) as it is now; undefined when there is none. */
export async function findNow(page: Page, session: CDPSession, t: Target): Promise<WorldElement | undefined> {
  await locate(session, t);
  return worldElement(page, session, `globalThis.__crawlboxMatches.at(${Number(t.nth ?? 0)})`);
}

/**
 * The element `t` names, waited for (`timeoutMs` at most, or until `signal`) as Playwright waits: to be there for a
 * read, and also `visible` for an action.
 */
export async function findOne(page: Page, session: CDPSession, t: Target, timeoutMs: number, signal: AbortSignal, visible = false): Promise<WorldElement> {
  let last: WorldElement | undefined;
  const found = await poll(async () => {
    last = await findNow(page, session, t);
    return last && (!visible || (await last.visible())) ? last : undefined;
  }, timeoutMs, signal);
  if (found) return found;
  const which = `${describe(t)}${t.nth ? ` (match ${t.nth})` : ""}`;
  throw new PageOpError(last ? `${which} is not visible after ${timeoutMs} ms` : `no element matches ${which} after ${timeoutMs} ms`);
}
