/**
 * @module engines/browser/element-targets
 * The elements an action acts on: a `click`'s targets (the first visible match, or all of them) and how one is
 * clicked, and a `wait`'s visible element.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { isContextLost, isolatedRealm, readAcrossNavigation } from "./page-reads.ts";

/**
 * How many times a click's targets are looked up again when the page replaced its document before the first click
 * (within the action's deadline). Three were too few for a page that reloads itself a dozen times on a loaded
 * machine: every lookup could land on a document about to go.
 */
const MAX_CLICK_LOOKUPS = 20;

/**
 * Errors of an element handle whose document (or crawlbox's world in it) went away between the lookup and the click:
 * nothing was clicked. A page that reloads itself failed a click this way about one time in two under load.
 */
const STALE_HANDLE = /same JavaScript world|Inspected target navigated or closed/;

/**
 * Clicks what a `click` action names ({@link queryClickTargets}); no match is an error naming the selector. When the
 * page replaced its document before the first element was clicked, the targets are looked up again on the new one;
 * once one was clicked, a failure is final (clicking the same targets again would repeat what the first did).
 */
export async function clickMatches(page: Page, selector: string, all: boolean, deadline: number): Promise<void> {
  for (let lookup = 1; ; lookup++) {
    const handles = await readAcrossNavigation(page, () => queryClickTargets(page, selector, all), deadline);
    if (handles.length === 0) throw new Error(`no element matches ${JSON.stringify(selector)}`);
    let clicked = 0;
    try {
      for (const h of handles) {
        await clickElement(h);
        clicked++;
      }
      return;
    } catch (err) {
      const stale = isContextLost(err) || STALE_HANDLE.test(err instanceof Error ? err.message : String(err));
      if (clicked > 0 || !stale || lookup >= MAX_CLICK_LOOKUPS || performance.now() >= deadline) throw err;
    }
  }
}

/*
 * Selectors are matched by Chromium's `querySelector`/`querySelectorAll` in crawlbox's isolated world (the page's DOM,
 * not its redefinitions of those functions), never by puppeteer's `$`, `$$` or
 * `waitForSelector`: those read `aria/…`, `pierce/…`, `text/…`, `xpath/…`, `>>>` and `::-p-…` as puppeteer's query
 * languages, and fail on them with puppeteer's internal messages. The API refuses such selectors before a scrape
 * starts (api/css-selector.ts); matching as CSS here keeps any that reach the runner (a replayed action, a monitor
 * stored before that check) CSS all the same: Chromium refuses them as invalid selectors, a 400.
 */

/**
 * The elements a `click` clicks: every element `selector` matches (`all`), as CSS, or else one: the first match that
 * is visible (as {@link waitForVisible} decides it), as a person clicks the button they see and not a hidden copy
 * of it earlier in the document (a menu's collapsed twin, a template). When no match is visible, the first match:
 * {@link clickElement} still reaches it.
 */
async function queryClickTargets(page: Page, selector: string, all: boolean): Promise<ElementHandle<Element>[]> {
  const list = await isolatedRealm(page).evaluateHandle(
    (sel: string, every: boolean) => {
      const found = Array.from(document.querySelectorAll(sel));
      if (every) return found;
      const visible = (el: Element) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && !["hidden", "collapse"].includes(getComputedStyle(el).visibility);
      };
      const target = found.find(visible) ?? found[0];
      return target ? [target] : [];
    },
    selector,
    all,
  );
  try {
    const elements: ElementHandle<Element>[] = [];
    for (const item of (await list.getProperties()).values()) {
      const el = item.asElement() as ElementHandle<Element> | null;
      if (el) elements.push(el);
      else await item.dispose();
    }
    return elements;
  } finally {
    await list.dispose();
  }
}

/**
 * Clicks `el` with the mouse, at its centre, as a person would. An element the mouse cannot reach (puppeteer refuses
 * one without a box: `display: none`, a checkbox or file input styled away under its label, an item of a collapsed
 * menu) is clicked in the DOM instead (`HTMLElement.click()`), which runs its handlers and default action as a page's
 * own `el.click()` would: a click on what the selector names does something rather than fail. That is why a single
 * click picks a visible match first ({@link queryClickTargets}): this way round is only for when none is.
 */
async function clickElement(el: ElementHandle<Element>): Promise<void> {
  await el.click().catch(() => el.evaluate((e) => (e as HTMLElement).click()));
}

/**
 * Waits until the first element `selector` matches (as CSS) is visible, as puppeteer's `waitForSelector` with
 * `visible` decides it (a box of some size, `visibility` neither hidden nor collapse), checked every frame.
 */
export async function waitForVisible(page: Page, selector: string, timeoutMs: number, deadline: number): Promise<void> {
  // A selector Chromium refuses fails here at once (waitForFunction would retry it until its timeout).
  await readAcrossNavigation(page, () => isolatedRealm(page).evaluate((sel: string) => void document.querySelector(sel), selector), deadline);
  try {
    await isolatedRealm(page).waitForFunction(
      (sel: string) => {
        const el = document.querySelector(sel);
        if (!el) return false;
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && !["hidden", "collapse"].includes(getComputedStyle(el).visibility);
      },
      { polling: "raf", timeout: timeoutMs },
      selector,
    );
  } catch (err) {
    if (err instanceof Error && err.name === "TimeoutError") {
      throw new Error(`no visible element matches ${JSON.stringify(selector)} after ${Math.round(timeoutMs)} ms`);
    }
    throw err;
  }
}
