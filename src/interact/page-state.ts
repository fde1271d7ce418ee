/**
 * @module interact/page-state
 * What the model sees of an interactive session's page before each step: its URL and title, the start of its
 * visible text, and a numbered list of the elements it can act on (links, buttons, form fields, elements with a
 * button or link role, visible ones only). Each listed element is marked in the page (`data-crawlbox-ix`) so the
 * step the model picks by number reaches exactly that element.
 */
import type { Page } from "puppeteer-core";

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

/** Reads the page's state and marks its interactive elements (the marks of an earlier step are replaced). */
export async function readPageState(page: Page): Promise<PageState> {
  const state = await page.evaluate(
    (maxElements: number, maxText: number) => {
      for (const el of Array.from(document.querySelectorAll("[data-crawlbox-ix]"))) el.removeAttribute("data-crawlbox-ix");
      const selector = "a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=tab], [role=menuitem], summary";
      const elements: { ix: number; tag: string; kind?: string; label: string }[] = [];
      for (const el of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
        if (elements.length >= maxElements) break;
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        if (box.width === 0 || box.height === 0 || style.visibility === "hidden" || style.display === "none") continue;
        const input = el as HTMLInputElement;
        const label = (el.innerText || el.getAttribute("aria-label") || input.placeholder || input.value || el.getAttribute("title") || el.getAttribute("href") || "")
          .replace(/\s+/g, " ")
          .trim()
          .slice(0, 100);
        const ix = elements.length;
        el.setAttribute("data-crawlbox-ix", String(ix));
        const kind = el.getAttribute("type") ?? el.getAttribute("role") ?? undefined;
        elements.push({ ix, tag: el.tagName.toLowerCase(), ...(kind ? { kind } : {}), label });
      }
      return { url: location.href, title: document.title, text: (document.body?.innerText ?? "").replace(/\n{3,}/g, "\n\n").slice(0, maxText), elements };
    },
    MAX_ELEMENTS,
    MAX_TEXT_CHARS,
  );
  return state;
}

/** The state as text for the model: the page's text, then one line per element. */
export function describeState(state: PageState): string {
  const lines = state.elements.map((e) => `[${e.ix}] <${e.tag}${e.kind ? ` ${e.kind}` : ""}> ${e.label}`);
  return `URL: ${state.url}\nTitle: ${state.title}\n\nVisible text:\n${state.text}\n\nElements:\n${lines.join("\n") || "(none)"}`;
}
